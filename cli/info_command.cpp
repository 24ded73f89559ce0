// `warpmatch info`: the build (CUDA on/off, architectures) and the devices this machine has.
#include <cstdio>

#include "commands.hpp"
#include "core/host_affinity.hpp"
#include "printer/output.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::cli {

namespace {
CommandRunner add_info_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("info", "Print the build (CUDA on/off) and the devices seen");
  cmd->set_help_flag("--help", "Print this help and exit");
  cmd->add_flag("--json", *json, "One JSON object");
  return [json] {
    const BuildInfo build = build_info();
    const auto devices = cuda_devices();
    const auto links = cuda_device_links();
    const auto near_cpus = cuda_device_host_affinity();
    auto affinity_of = [&](int ordinal) {
      for (const auto& a : near_cpus)
        if (a.ordinal == ordinal) return a;
      DeviceHostAffinity unknown;
      unknown.ordinal = ordinal;
      return unknown;
    };
    Output out(stdout);
    auto& buf = out.buffer();
    if (*json) {
      fmt::format_to(std::back_inserter(buf),
                     R"({{"type":"info","version":"{}","cuda_compiled":{},"cuda_architectures":"{}",)"
                     R"("cuda_runtime":"{}","cpu_threads":{},"devices":[)",
                     build.version, build.cuda_compiled, build.cuda_architectures,
                     build.cuda_runtime_version, hardware_threads());
      for (std::size_t i = 0; i < devices.size(); ++i) {
        const auto& d = devices[i];
        const DeviceHostAffinity near = affinity_of(d.ordinal);
        fmt::format_to(std::back_inserter(buf),
                       R"({}{{"ordinal":{},"name":)", i ? "," : "", d.ordinal);
        append_json_string(buf, d.name);
        fmt::format_to(std::back_inserter(buf),
                       R"(,"compute_capability":"{}.{}","multiprocessors":{},"memory_bytes":{},)"
                       R"("l2_bytes":{},"clock_mhz":{},"numa_node":{},"cpus":)",
                       d.compute_major, d.compute_minor, d.multiprocessors, d.global_memory_bytes,
                       d.l2_bytes, d.clock_mhz, near.numa_node);
        append_json_string(buf, core::format_cpu_list(near.cpus));
        buf.append(std::string_view(R"(,"cpus_source":)"));
        append_json_string(buf, near.source.empty() ? "unknown" : near.source);
        buf.push_back('}');
      }
      buf.append(std::string_view(R"(],"links":[)"));
      for (std::size_t i = 0; i < links.size(); ++i) {
        const auto& l = links[i];
        fmt::format_to(std::back_inserter(buf), R"({}{{"from":{},"to":{},"peer_access":{},"performance_rank":{},"transport":)",
                       i ? "," : "", l.from, l.to, l.peer_access, l.performance_rank);
        append_json_string(buf, l.transport.empty() ? "unknown" : l.transport);
        buf.push_back('}');
      }
      buf.append(std::string_view("]}\n"));
      out.flush();
      return 0;
    }
    fmt::format_to(std::back_inserter(buf), "warpmatch {}\n", build.version);
    if (build.cuda_compiled)
      fmt::format_to(std::back_inserter(buf), "CUDA backend: compiled (sm_{}; runtime {})\n",
                     build.cuda_architectures, build.cuda_runtime_version);
    else
      fmt::format_to(std::back_inserter(buf), "CUDA backend: not compiled (CPU-only build)\n");
    fmt::format_to(std::back_inserter(buf), "CPU threads: {}\n", hardware_threads());
    if (devices.empty()) fmt::format_to(std::back_inserter(buf), "GPUs: none visible\n");
    for (const auto& d : devices) {
      fmt::format_to(std::back_inserter(buf),
                     "GPU {}: {} (compute {}.{}, {} SMs, {:.1f} GiB, L2 {:.0f} MiB, {} MHz)\n",
                     d.ordinal, d.name, d.compute_major, d.compute_minor, d.multiprocessors,
                     d.global_memory_bytes / 1073741824.0, d.l2_bytes / 1048576.0, d.clock_mhz);
      // The host CPUs near it: where a multi-GPU call's threads for this GPU run.
      const DeviceHostAffinity near = affinity_of(d.ordinal);
      if (near.cpus.empty())
        fmt::format_to(std::back_inserter(buf), "GPU {} host CPUs: unknown (neither NVML nor sysfs said)\n", d.ordinal);
      else
        fmt::format_to(std::back_inserter(buf), "GPU {} host CPUs: {}{} ({})\n", d.ordinal,
                       core::format_cpu_list(near.cpus),
                       near.numa_node >= 0 ? ", NUMA node " + std::to_string(near.numa_node) : std::string(),
                       near.source);
    }
    // How each pair is linked: peer access (cudaDeviceCanAccessPeer), the driver's P2P
    // performance rank (lower is faster) and NVLink or PCIe (NVML, when the driver has it).
    for (const auto& l : links)
      fmt::format_to(std::back_inserter(buf), "GPU {} -> GPU {}: {}, peer access {}, P2P rank {}\n", l.from, l.to,
                     l.transport.empty() ? "link unknown (no NVML)" : l.transport,
                     l.peer_access ? "yes" : "no", l.performance_rank);
    fmt::format_to(std::back_inserter(buf), "backend 'auto' uses: {}\n",
                   devices.empty() ? "cpu" : "cuda");
    out.flush();
    return 0;
  };
}

}  // namespace

const CommandRegistration info_registration("info", 90, add_info_command);

}  // namespace warpmatch::cli
