// Table I: the workloads, the paper's layer and parameter counts beside the zoo graphs' own.
#include "common/graph/op_cost.h"
#include "models/zoo.h"
#include "reproductions/atomic/experiments.h"

namespace dgs::atomic {

namespace {

struct Workload {
  const char* paper_name;
  const char* zoo_name;  // "" = not in the zoo yet
};
const std::vector<Workload> kWorkloads = {{"VGG-19", ""},
                                          {"ResNet-50", "resnet50"},
                                          {"ResNet-152", ""},
                                          {"ResNet-1001", ""},
                                          {"Inception-v3", "inception_v3"},
                                          {"NasNet", "nasnet_large"},
                                          {"PNASNet", ""},
                                          {"EfficientNet", ""}};

}  // namespace

void run_table1(ExperimentContext& ctx) {
  const PaperData paper = ctx.paper_data("table1.csv");
  Table t({"dnn", "zoo_model", "characteristics", "paper_layers", "ours_layers", "paper_params_m",
           "ours_params_m"});
  std::vector<Claim> claims;
  for (const Workload& w : kWorkloads) {
    const std::vector<std::pair<std::string, std::string>> key = {{"dnn", w.paper_name}};
    const std::string characteristics = paper.text(key, "characteristics").value_or("");
    const Cell paper_layers = paper.cell(key, "layers");
    const Cell paper_params = paper.cell(key, "params_m");
    if (std::string(w.zoo_name).empty()) {
      t.add_row({w.paper_name, "(not in the zoo yet)", characteristics, paper_layers, Missing{},
                 paper_params, Missing{}});
      continue;
    }
    const Graph g = build_zoo_model(w.zoo_name, {.batch = 1});
    const double params_m = static_cast<double>(parameter_count(g)) / 1e6;
    t.add_row({w.paper_name, w.zoo_name, characteristics, paper_layers,
               static_cast<int64_t>(g.num_ops()), paper_params, params_m});
    claims.push_back({.text = std::string(w.paper_name) + ": parameters (M)",
                      .source = paper.source(key),
                      .paper = paper.value(key, "params_m").value_or(0),
                      .ours = params_m,
                      .kind = ClaimKind::Ratio,
                      .unit = "M"});
    claims.push_back({.text = std::string(w.paper_name) + ": layers (graph operators)",
                      .source = paper.source(key),
                      .paper = paper.value(key, "layers").value_or(0),
                      .ours = static_cast<double>(g.num_ops()),
                      .kind = ClaimKind::Count,
                      .unit = "ops",
                      .informational = "the paper counts the nodes of its own ONNX export; "
                                       "which ops are separate nodes (BatchNorm, Relu, Flatten, "
                                       "padding) depends on the exporter and the model code"});
  }
  ctx.note(
      "layers: the paper's '# Layers' counts graph nodes (ResNet-50 has 54 conv/FC layers "
      "but 73 is listed); ours = ops of the zoo graph");
  ctx.note(
      "Inception-v3: the zoo's graph is the IOS authors' (no BN, no FC, no aux head): "
      "21.8M parameters against the paper's 27M (23.8M + the aux head)");
  ctx.note(
      "NasNet: the zoo's NasNet-A Large is the IOS authors' cell code, ending at the global "
      "pooling (no 3360 x 1000 classifier, 3.4M parameters)");
  ctx.note(
      "VGG-19, ResNet-152, ResNet-1001, PNASNet-5 Large and EfficientNet-B0 are not in the "
      "model zoo yet: no counts");
  ctx.emit_table("Table I: DNN workload characterization", t);
  ctx.emit_claims(claims);
}

}  // namespace dgs::atomic
