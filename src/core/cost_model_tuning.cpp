// The cost model's rates as this machine has them: the stored file of `warpmatch tune
// --cost-model`, then the WARPMATCH_COST_<NAME> environment overrides; and CUDA_VISIBLE_DEVICES
// as the cost model reads it. With distance_tune.cpp (the cache directory) the only place of
// src/core that reads the environment (issue 11).
#include "core/cost_model_tuning.hpp"

#include <sys/stat.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "core/distance_tune.hpp"  // cache_directory()

namespace warpmatch::core {

bool cuda_hidden_by_environment() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  return v && (!*v || std::strcmp(v, "-1") == 0);
}

std::string cost_model_path() {
  const std::string dir = tune::cache_directory();
  return dir.empty() ? "" : dir + "/cost_model.txt";
}

void save_cost_model(const CostModelPolicy& policy, const std::string& path) {
  if (path.empty()) throw Error("cannot store the cost model: neither XDG_CACHE_HOME nor HOME is set");
  const std::string dir = path.substr(0, path.rfind('/'));
  for (std::size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0755);
  std::ofstream out(path);
  out << "# warpmatch cost model rates, measured on this machine by the tune command\n";
  CostModelPolicy copy = policy;
  copy.for_each([&](const char* name, double& value) { out << name << ' ' << value << '\n'; });
  if (!out) throw Error(path + ": cannot write the cost model");
}

CostModelPolicy CostModelPolicy::load() {
  CostModelPolicy p;
  if (const std::string path = cost_model_path(); !path.empty()) {
    std::ifstream in(path);
    for (std::string name; in >> name;) {
      double value = 0;
      if (name[0] == '#' || !(in >> value)) {
        in.clear();
        std::string rest;
        std::getline(in, rest);
        continue;
      }
      p.for_each([&](const char* key, double& field) {
        if (name == key && value > 0) field = value;
      });
    }
  }
  p.for_each([](const char* key, double& field) {
    std::string env = "WARPMATCH_COST_";
    for (const char* c = key; *c; ++c) env += static_cast<char>(std::toupper(static_cast<unsigned char>(*c)));
    if (const char* s = std::getenv(env.c_str()); s && *s) field = std::strtod(s, nullptr);
  });
  return p;
}

}  // namespace warpmatch::core
