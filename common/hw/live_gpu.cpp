// Matching the live GPU to a built-in config (see live_gpu.h).
#include "common/hw/live_gpu.h"

#include <cctype>

#include "common/hw/hardware.h"

namespace dgs {

namespace {

std::string normalised(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t");
  std::string out = s.substr(a, b - a + 1);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

LiveGpuMatch match_live_gpu(const LiveGpuProperties& p,
                            const std::vector<std::string>& candidates) {
  const std::vector<std::string> names = candidates.empty() ? builtin_gpu_names() : candidates;
  const std::string want = normalised(p.name);
  std::string disagreements;
  std::string known;
  for (const std::string& n : names) {
    const GpuSpec g = load_gpu_spec(n);
    for (const std::string& d : g.device_names) {
      known += (known.empty() ? "" : ", ") + n + " ('" + d + "')";
      if (normalised(d) != want) continue;
      std::string differs;
      if (p.sm_count > 0 && g.sm_count != p.sm_count)
        differs = std::to_string(g.sm_count) + " SMs, the device has " + std::to_string(p.sm_count);
      else if (p.compute_capability > 0 && g.compute_capability != p.compute_capability)
        differs = "compute capability " + std::to_string(g.compute_capability) +
                  ", the device has " + std::to_string(p.compute_capability);
      if (differs.empty())
        return {n, "the live GPU '" + p.name + "' is hw_configs/" + n + ".json (" +
                       std::to_string(g.sm_count) + " SMs, sm_" +
                       std::to_string(g.compute_capability) + ")"};
      disagreements += "; " + n + " names it but says " + differs;
    }
  }
  return {"", "no built-in GPU config matches the live GPU '" + p.name + "' (" +
                  std::to_string(p.sm_count) + " SMs, sm_" + std::to_string(p.compute_capability) +
                  ")" + disagreements + " (device names of the configs: " +
                  (known.empty() ? "none" : known) + "); give --hw NAME|FILE.json"};
}

}  // namespace dgs
