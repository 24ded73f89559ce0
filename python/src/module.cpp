// warpmatch._core — the extension module: errors, build and device information, and the
// bindings of each operation (matchers.cpp, sequences.cpp, records.cpp).
#include <nanobind/stl/string.h>

#include "binding.hpp"
#include "cuda/runtime/devices.hpp"
#include "io/input.hpp"
#include "warpmatch/cost_model.hpp"

namespace warpmatch::python {

namespace {

PyObject* g_error = nullptr;
PyObject* g_invalid_argument = nullptr;
PyObject* g_backend_unavailable = nullptr;
PyObject* g_device_error = nullptr;
PyObject* g_input_error = nullptr;

PyObject* new_error(nb::module_& m, const char* name, const char* doc, std::initializer_list<PyObject*> bases) {
  nb::tuple base_tuple = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(bases.size())));
  Py_ssize_t i = 0;
  for (PyObject* b : bases) {
    Py_INCREF(b);
    PyTuple_SET_ITEM(base_tuple.ptr(), i++, b);
  }
  const std::string qualified = std::string("warpmatch.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base_tuple.ptr(), nullptr);
  if (!type) throw nb::python_error();
  m.attr(name) = nb::handle(type);  // the module keeps a reference; so does this file (never freed)
  return type;
}

}  // namespace

void bind_errors(nb::module_& m) {
  g_error = new_error(m, "Error", "Base of every error warpmatch raises; the message names the input and the limit.",
                      {PyExc_Exception});
  g_invalid_argument = new_error(m, "InvalidArgument",
                                 "A value out of range (empty pattern, negative k, unknown backend or format). "
                                 "Also a ValueError.",
                                 {g_error, PyExc_ValueError});
  g_backend_unavailable = new_error(m, "BackendUnavailable",
                                    "backend='cuda' was asked for without a usable GPU or without a CUDA build. "
                                    "Also a RuntimeError.",
                                    {g_error, PyExc_RuntimeError});
  g_device_error = new_error(m, "DeviceError", "A CUDA runtime failure, out-of-memory included. Also a RuntimeError.",
                             {g_error, PyExc_RuntimeError});
  g_input_error = new_error(m, "InputError",
                            "An input file is missing, unreadable or corrupt (gzip, FASTA/FASTQ). Also an OSError.",
                            {g_error, PyExc_OSError});
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const InvalidArgument& e) {
      PyErr_SetString(g_invalid_argument, e.what());
    } catch (const BackendUnavailable& e) {
      PyErr_SetString(g_backend_unavailable, e.what());
    } catch (const DeviceError& e) {
      PyErr_SetString(g_device_error, e.what());
    } catch (const io::InputError& e) {
      PyErr_SetString(g_input_error, e.what());
    } catch (const Error& e) {
      PyErr_SetString(g_error, e.what());
    }
  });
}

}  // namespace warpmatch::python

namespace wp = warpmatch::python;
namespace nb = nanobind;
using namespace nb::literals;

NB_MODULE(_core, m) {
  m.doc() = "warpmatch's extension module; use the `warpmatch` package, which re-exports it.";
  wp::init_numpy_api();
  wp::bind_errors(m);

  m.def(
      "build_info",
      []() {
        const warpmatch::BuildInfo b = warpmatch::build_info();
        nb::dict d;
        d["version"] = b.version;
        d["cuda_compiled"] = b.cuda_compiled;
        d["cuda_architectures"] = b.cuda_architectures;
        d["cuda_runtime_version"] = b.cuda_runtime_version;
        d["hardware_threads"] = warpmatch::hardware_threads();
        d["gpu_visible"] = warpmatch::gpu_visible_without_init();
        return d;
      },
      "What this build offers, as a dict: version, cuda_compiled (built with nvcc),\n"
      "cuda_architectures, cuda_runtime_version, hardware_threads, gpu_visible (a GPU device file\n"
      "is present; found without starting CUDA).\n\n"
      ">>> warpmatch.build_info()['version']\n'0.1.0'");

  m.def(
      "devices",
      []() {
        std::vector<warpmatch::DeviceInfo> devs;
        {
          nb::gil_scoped_release release;
          devs = warpmatch::cuda_devices();
        }
        nb::list out;
        for (const auto& d : devs) {
          nb::dict x;
          x["ordinal"] = d.ordinal;
          x["name"] = d.name;
          x["compute_capability"] = nb::make_tuple(d.compute_major, d.compute_minor);
          x["multiprocessors"] = d.multiprocessors;
          x["global_memory_bytes"] = d.global_memory_bytes;
          x["l2_bytes"] = d.l2_bytes;
          x["clock_mhz"] = d.clock_mhz;
          out.append(x);
        }
        return out;
      },
      "The CUDA GPUs this build can use, as a list of dicts (ordinal, name, compute_capability,\n"
      "multiprocessors, global_memory_bytes, l2_bytes, clock_mhz). Empty without a CUDA build or\n"
      "without a GPU; never raises.\n\n"
      ">>> [d['name'] for d in warpmatch.devices()]   # doctest: +SKIP\n['NVIDIA H100 80GB HBM3']");

  // For tests of backend="auto": whether this process has started CUDA (listed its devices).
  m.def("_cuda_started", []() { return warpmatch::cuda::runtime_started(); });

  wp::bind_matchers(m);
  wp::bind_sequences(m);
  wp::bind_records(m);
}
