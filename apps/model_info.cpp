// model_info MODEL [--batch N] [--dim NAME=N] [--image N] [--seq N] [--dtype float32|float16]
//            [--ops] [--csv]
// Describes a zoo model or an .onnx file: operators by type with their FLOPs, MACs, parameters and
// bytes (common/graph/op_cost.h), and the graph's totals, width (largest antichain) and number of
// blocks (parts separated by cut ops); for an .onnx file also its opset, the batch (fixed in the
// file or given) and what load-time normalisation folded (common/onnx/onnx_io.h); with --ops, every
// operator in topological order instead (its name, type, input and output tensors with their
// shapes: the names a plan uses). A terminal table by default, CSV with --csv. A bad file, an
// unknown model name or a bad flag: one line on stderr, exit code 2.
#include <boost/program_options.hpp>
#include <iostream>
#include <map>
#include <string>

#include "common/graph/op_cost.h"
#include "common/graph/op_dag.h"
#include "common/graph/op_grouping.h"
#include "common/onnx/onnx_io.h"
#include "common/report/report.h"
#include "models/zoo.h"

namespace {

namespace po = boost::program_options;

std::string shapes_of(const dgs::Graph& g, const std::vector<int>& tensors) {
  std::string s;
  for (int t : tensors) {
    if (!s.empty()) s += ", ";
    s += g.tensor(t).name + " " + dgs::shape_str(g.tensor(t).shape) + " " +
         std::string(dgs::dtype_name(g.tensor(t).dtype));
  }
  return s;
}

dgs::Table describe(const dgs::Graph& g, int64_t batch) {
  const dgs::GraphCost cost = dgs::graph_cost(g);
  struct PerType {
    int64_t count = 0;
    dgs::OpCost cost;
  };
  std::map<std::string, PerType> by_type;  // sorted by op type: deterministic
  for (int o = 0; o < g.num_ops(); ++o) {
    PerType& p = by_type[std::string(dgs::op_kind_name(g.op(o).kind))];
    ++p.count;
    p.cost += cost.per_op[static_cast<size_t>(o)];
    p.cost.params -= cost.per_op[static_cast<size_t>(o)].params;
  }
  // Parameters: each weight once, on the type of its first consumer (a weight shared by several
  // ops, as exports of tied weights have, is not counted twice), so the rows add up to the total.
  for (int w : g.weight_tensors()) {
    const dgs::Tensor& t = g.tensor(w);
    if (t.consumers.empty() || !dgs::is_learned_weight(t)) continue;
    by_type[std::string(dgs::op_kind_name(g.op(t.consumers.front()).kind))].cost.params +=
        t.numel();
  }
  dgs::Table t({"model", "batch", "op_type", "count", "flops", "macs", "params", "bytes_read",
                "bytes_written", "width", "blocks"});
  const dgs::Cell none = dgs::Missing{};
  for (const auto& [type, p] : by_type) {
    t.add_row({g.name, batch, type, p.count, p.cost.flops, p.cost.macs, p.cost.params,
               p.cost.bytes_read, p.cost.bytes_written, none, none});
  }
  t.add_row({g.name, batch, std::string("TOTAL"), static_cast<int64_t>(g.num_ops()),
             cost.total.flops, cost.total.macs, dgs::parameter_count(g), cost.total.bytes_read,
             cost.total.bytes_written, static_cast<int64_t>(dgs::graph_width(g)),
             static_cast<int64_t>(dgs::graph_blocks(g).size())});
  return t;
}

// One row per op, in topological order: the names a plan's tasks and regions use.
dgs::Table op_list(const dgs::Graph& g) {
  dgs::Table t({"op", "type", "inputs", "outputs"});
  auto tensors = [&](const std::vector<int>& ts) {
    std::string s;
    for (int x : ts) {
      if (x < 0) continue;
      s += (s.empty() ? "" : " ") + g.tensor(x).name + dgs::shape_str(g.tensor(x).shape);
    }
    return s;
  };
  for (int o : g.topo_order()) {
    const dgs::Op& op = g.op(o);
    t.add_row({op.name, std::string(dgs::op_kind_name(op.kind)), tensors(op.inputs),
               tensors(op.outputs)});
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description visible(
      "usage: model_info MODEL [options]\n"
      "MODEL is a zoo name or an .onnx file. Options");
  visible.add_options()("help,h", "show this help")("batch", po::value<int64_t>()->default_value(1),
                                                    "batch size (zoo models; symbolic batch "
                                                    "dimension of an .onnx file)")(
      "image", po::value<int64_t>()->default_value(0), "image size (0: the model's default)")(
      "seq", po::value<int64_t>()->default_value(0), "sequence length (0: the model's default)")(
      "dim", po::value<std::vector<std::string>>(),
      "NAME=N: value of a symbolic dimension of an .onnx file (repeatable)")(
      "dtype", po::value<std::string>()->default_value("float32"), "float32 or float16")(
      "ops", "list every operator (name, type, inputs, outputs) instead of the summary")(
      "csv", "print CSV instead of a table");
  po::options_description all;
  all.add(visible).add_options()("model", po::value<std::string>(), "model");
  po::positional_options_description pos;
  pos.add("model", 1);

  dgs::ZooOptions opts;
  std::string model;
  bool csv = false, ops = false, batch_given = false;
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << visible << "\nzoo models:";
      for (const std::string& n : dgs::zoo_model_names()) std::cout << " " << n;
      std::cout << "\n";
      return 0;
    }
    if (!vm.count("model"))
      throw dgs::UsageError("no model given; expected a zoo name or an .onnx file");
    model = vm["model"].as<std::string>();
    opts.batch = vm["batch"].as<int64_t>();
    batch_given = !vm["batch"].defaulted();
    opts.image_size = vm["image"].as<int64_t>();
    opts.seq_len = vm["seq"].as<int64_t>();
    const std::string dtype = vm["dtype"].as<std::string>();
    if (dtype == "float32" || dtype == "f32") {
      opts.dtype = dgs::DType::F32;
    } else if (dtype == "float16" || dtype == "f16") {
      opts.dtype = dgs::DType::F16;
    } else {
      throw dgs::UsageError("--dtype " + dtype + " is not supported; expected float32 or float16");
    }
    csv = vm.count("csv") != 0;
    ops = vm.count("ops") != 0;
    if (vm.count("dim")) {
      for (const std::string& d : vm["dim"].as<std::vector<std::string>>()) {
        const size_t eq = d.find('=');
        int64_t value = 0;
        try {
          value = eq == std::string::npos ? 0 : std::stoll(d.substr(eq + 1));
        } catch (const std::exception&) {
          value = 0;
        }
        if (eq == std::string::npos || eq == 0 || value < 1) {
          throw dgs::UsageError("--dim " + d + " is invalid; expected NAME=N with N >= 1");
        }
        opts.dim_values[d.substr(0, eq)] = value;
      }
    }
  } catch (const po::error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const dgs::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }

  dgs::Graph g;
  dgs::OnnxLoadSummary onnx;
  opts.onnx_summary = &onnx;
  try {
    g = dgs::load_model(model, opts);
  } catch (const dgs::Error& e) {  // unknown name, unreadable or malformed file
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  if (batch_given && onnx.file_batch > 0 && onnx.file_batch != opts.batch) {
    std::cerr << "error: " << model << ": the file fixes batch " << onnx.file_batch << "; --batch "
              << opts.batch << " cannot change it (export with a symbolic batch dimension)\n";
    return 2;
  }
  try {
    const dgs::Table t = ops ? op_list(g) : describe(g, onnx.batch > 0 ? onnx.batch : opts.batch);
    if (csv) {
      std::cout << dgs::to_csv(t);
    } else {
      std::cout << "model:   " << g.name << " (" << g.num_ops() << " ops, " << g.num_tensors()
                << " tensors, " << dgs::compound_operators(g).counted_units()
                << " compound units)\n"
                << "inputs:  " << shapes_of(g, g.input_tensors()) << "\n"
                << "outputs: " << shapes_of(g, g.output_tensors()) << "\n";
      if (onnx.file_opset > 0) {
        std::cout << "file:    opset " << onnx.file_opset << ", IR version " << onnx.file_ir_version
                  << "; batch " << onnx.batch
                  << (onnx.file_batch > 0 ? " (fixed in the file)"
                                          : " (symbolic in the file; --batch)")
                  << "\n"
                  << "loading: " << onnx.folding_line() << "\n";
      }
      dgs::print_table(std::cout, ops ? "Operators (topological order)" : "Operators by type", t);
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
