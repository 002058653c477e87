#pragma once
// What every evaluator of a plan reports (the GPU model now, an accelerator model later), in one
// type, so that tools and reports print any machine's result the same way. Quantities are keyed
// by the names the hardware config gives (HardwareSpec::memory_levels, unit kinds), in the order
// the hardware lists them; an evaluator reports only what its model accounts for.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dgs {

struct NamedValue {
  std::string name;
  double value = 0;
};
// Values by name, in the order they were first added.
using NamedValues = std::vector<NamedValue>;

// The value named `name`, or `absent` if there is none.
inline double value_of(const NamedValues& values, std::string_view name, double absent = 0) {
  for (const NamedValue& v : values)
    if (v.name == name) return v.value;
  return absent;
}
// Whether a value is named `name`.
inline bool has_value(const NamedValues& values, std::string_view name) {
  for (const NamedValue& v : values)
    if (v.name == name) return true;
  return false;
}
// Adds `x` to the value named `name`, appending it (from 0) if there is none.
inline void add_value(NamedValues& values, std::string_view name, double x) {
  for (NamedValue& v : values)
    if (v.name == name) {
      v.value += x;
      return;
    }
  values.push_back(NamedValue{std::string(name), x});
}

struct EvaluationResult {
  std::string hardware_kind;  // HardwareSpec::kind ("gpu")
  std::string hardware_name;  // HardwareSpec::name ("V100")
  std::string evaluator;      // the model that computed it ("GPU model")

  double latency_us = 0;  // the plan's end-to-end latency
  double flops = 0;       // floating-point operations executed (a multiply-add counts 2)
  int64_t stages = 0;     // plan stages evaluated
  int64_t tasks = 0;      // plan tasks evaluated
  int64_t kernels = 0;    // launches the machine executes (GPU: kernels)
  // Each plan stage's latency, in plan order, when the model reports it (GPU model: the stage's
  // own time, without the synchronisation charged after it); empty otherwise.
  std::vector<double> stage_latency_us;

  // Bytes moved at each memory level (read + written), by level name, innermost first; only the
  // levels the model counts (GPU model: "l2" and "dram").
  NamedValues bytes_by_level;
  // Bytes carried by each interconnect link that carried any, by link name (mesh: "link
  // (x,y)->(x',y')", columns x and rows y), in link order; empty when the model has no
  // interconnect of separate links (GPU model, a cluster bus).
  NamedValues bytes_by_link;
  // Busy time by unit, in microseconds: a unit kind ("sm": summed over its units, so
  // utilisation = busy / (count x latency)) or one unit ("core[3]").
  NamedValues busy_us_by_unit;
  // Energy by component, in picojoules; empty when the model has no energy (GPU model).
  NamedValues energy_pj_by_component;
  // Model-specific figures, each name ending in its unit ("sync_us"), or a plain ratio.
  NamedValues details;
};

}  // namespace dgs
