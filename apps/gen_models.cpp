// gen_models OUTDIR [NAME ...]: writes every zoo model (or the named ones) at its default options
// as a weight-free ONNX file OUTDIR/<name>.onnx. The committed files in models/onnx/ are made with
// `gen_models models/onnx`; tests/zoo checks that regenerating them gives the same bytes.
#include <iostream>
#include <string>
#include <vector>

#include "common/onnx/onnx_io.h"
#include "models/zoo.h"

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    // Asked for: the usage on standard output; no arguments: on standard error, exit 2.
    (argc < 2 ? std::cerr : std::cout)
        << "usage: gen_models OUTDIR [NAME ...]\n"
           "writes OUTDIR/<name>.onnx for every zoo model (or the named ones) at its "
           "default options\n";
    return argc < 2 ? 2 : 0;
  }
  try {
    const std::string out_dir = argv[1];
    std::vector<std::string> names;
    for (int i = 2; i < argc; ++i) names.push_back(argv[i]);
    if (names.empty()) names = dgs::zoo_model_names();
    for (const std::string& name : names) {
      const dgs::Graph g = dgs::build_zoo_model(name);
      const std::string path = out_dir + "/" + name + ".onnx";
      const std::string bytes = dgs::graph_to_onnx_bytes(g);
      dgs::save_onnx_file(g, path);
      std::cout << path << ": " << g.num_ops() << " ops, " << bytes.size() << " bytes\n";
    }
  } catch (const dgs::UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
