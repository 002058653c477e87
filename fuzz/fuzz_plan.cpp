// libFuzzer target: the plan loader (plan_from_json) and Plan::check against a zoo graph
// (test_diamond, the graph of common/plan/examples/). Every input must either load and check, or
// be refused with a dgs::Error (one line).
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/plan/plan.h"
#include "common/util/error.h"
#include "fuzz/fuzz_one_line.h"
#include "models/zoo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const dgs::Graph graph = dgs::build_zoo_model("test_diamond");
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const dgs::Plan plan = dgs::plan_from_json(text, graph, "fuzz.json");
    plan.check(graph);
  } catch (const dgs::Error& e) {
    dgs::require_one_line(e.what());
  }
  return 0;
}
