// wavefront_scheduler: an example of your own scheduler as a program, run by repro_compare
// (--scheduler cmd:build/wavefront_scheduler; protocol in compare/external_scheduler.h).
//
//   wavefront_scheduler --graph G.onnx --hw HW.json --out PLAN.json [--streams N]
//
// On a GPU it runs the graph wave by wave: the ops whose inputs are all ready form one stage
// (their as-soon-as-possible level), each op one task on its own stream (at most --streams per
// stage, default 4; a wider level becomes several stages). On any other kind of machine it
// declines with exit status 3 and one line saying why, as the protocol asks. It uses the suite as
// a library for reading ONNX and writing the plan (common/onnx, common/plan); a program in any
// language that writes the same JSON (common/plan/plan.schema.json) works the same way.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/onnx/onnx_io.h"
#include "common/plan/plan.h"
#include "common/util/error.h"
#include "common/util/resources.h"

namespace {

dgs::Plan wavefront_plan(const dgs::Graph& g, int streams) {
  std::vector<int> level(static_cast<size_t>(g.num_ops()), 0);
  int depth = 0;
  for (int op : g.topo_order()) {
    for (int t : g.op(op).inputs) {
      if (t < 0) continue;
      const int p = g.tensor(t).producer;
      if (p >= 0)
        level[static_cast<size_t>(op)] =
            std::max(level[static_cast<size_t>(op)], level[static_cast<size_t>(p)] + 1);
    }
    depth = std::max(depth, level[static_cast<size_t>(op)] + 1);
  }
  dgs::Plan plan;
  plan.scheduler = "wavefront (examples/wavefront_scheduler.cpp)";
  plan.graph = g.name;
  for (int l = 0; l < depth; ++l) {
    dgs::Stage stage;
    for (int op : g.topo_order()) {
      if (level[static_cast<size_t>(op)] != l) continue;
      if (static_cast<int>(stage.tasks.size()) == streams) {
        plan.stages.push_back(std::move(stage));
        stage = {};
      }
      dgs::Task t;
      t.ops = {op};
      t.placement = dgs::stream_placement(static_cast<int>(stage.tasks.size()));
      stage.tasks.push_back(std::move(t));
    }
    if (!stage.tasks.empty()) plan.stages.push_back(std::move(stage));
  }
  return plan;
}

}  // namespace

constexpr const char* kUsage =
    "usage: wavefront_scheduler --graph G.onnx --hw HW.json --out PLAN.json [--streams N >= 1]\n";

int main(int argc, char** argv) {
  std::string graph_file, hw_file, out_file;
  int streams = 4;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (i + 1 >= argc) {
      std::cerr << "wavefront_scheduler: " << a << " needs a value\n";
      return 2;
    }
    const std::string v = argv[++i];
    if (a == "--graph") {
      graph_file = v;
    } else if (a == "--hw") {
      hw_file = v;
    } else if (a == "--out") {
      out_file = v;
    } else if (a == "--streams") {
      streams = std::atoi(v.c_str());
    } else {
      std::cerr << "wavefront_scheduler: unknown argument " << a << "\n";
      return 2;
    }
  }
  if (graph_file.empty() || hw_file.empty() || out_file.empty() || streams < 1) {
    std::cerr << kUsage;
    return 2;
  }
  try {
    const nlohmann::json hw = nlohmann::json::parse(dgs::read_file(hw_file));
    const std::string kind = hw.value("kind", "");
    if (kind != "gpu") {
      std::cout << "wavefront_scheduler schedules GPUs only, not hardware of kind '" << kind
                << "'\n";
      return 3;
    }
    const dgs::Graph g = dgs::load_onnx_file(graph_file);
    dgs::write_file_atomic(out_file, dgs::plan_to_json(wavefront_plan(g, streams), g));
  } catch (const std::exception& e) {
    std::cerr << "wavefront_scheduler: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
