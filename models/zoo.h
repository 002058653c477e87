#pragma once
// The model zoo: every network of the five papers, built in C++ with ModelBuilder (builder.h).
//
// HOW TO ADD A MODEL (no registration magic, so nothing is lost when linking static libraries):
//   1. Write `Graph build_<yours>(const ZooOptions& opts)` in your own file models/<yours>.cpp
//      (namespace dgs), using ModelBuilder; honour opts.batch, opts.dtype and, where they apply,
//      opts.image_size / opts.seq_len (0 means "the model's default").
//   2. Add ONE line to models/zoo_models.inc, in your paper's marked section:
//        DGS_ZOO_MODEL(build_<yours>, "<name>", "<one-line description, with the source>")
//      That line both declares your function and puts it in the table that build_zoo_model,
//      zoo_model_names and load_model read.
//   3. Run `gen_models models/onnx` and add models/onnx/<name>.onnx (tests/zoo checks that the
//      committed file equals a fresh export, byte for byte).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/graph/graph.h"

namespace dgs {

struct OnnxLoadSummary;  // common/onnx/onnx_io.h

struct ZooOptions {
  int64_t batch = 1;
  int64_t image_size = 0;    // input height = width; 0 = the model's default (e.g. 224, 299)
  int64_t seq_len = 0;       // sequence length of language models; 0 = the model's default
  DType dtype = DType::F32;  // F32 or F16: inputs, weights and activations
  // .onnx files: values of symbolic dimensions other than the batch, by dim_param name.
  std::map<std::string, int64_t> dim_values = {};
  // .onnx files: where to report what loading did (folding, the batch); nullptr: nowhere.
  OnnxLoadSummary* onnx_summary = nullptr;
};

// Adds the value of a `--dim NAME=N` flag (N >= 1) to `dims`; throws dgs::UsageError
// "--dim X: expected NAME=N with N >= 1" otherwise.
void add_dim_flag(const std::string& spec, std::map<std::string, int64_t>* dims);

// Throws dgs::UsageError if an option is out of range (batch < 1, negative sizes, dtype that is
// not F32/F16). Every model function calls it.
void check_zoo_options(const ZooOptions& opts, const std::string& model);

// The image size / sequence length to use: opts' value, or `def` when it is 0.
int64_t zoo_image_size(const ZooOptions& opts, int64_t def);
int64_t zoo_seq_len(const ZooOptions& opts, int64_t def);

using ZooBuildFn = Graph (*)(const ZooOptions&);

struct ZooModel {
  std::string name;
  std::string description;
  ZooBuildFn build;
};

// Every model, in the order of models/zoo_models.inc.
const std::vector<ZooModel>& zoo_models();
std::vector<std::string> zoo_model_names();
bool is_zoo_model(const std::string& name);

// Builds a zoo model. Unknown name: dgs::UsageError listing the known names.
Graph build_zoo_model(const std::string& name, const ZooOptions& opts = {});

// A zoo name, or a path to an .onnx file (anything ending in ".onnx" or naming an existing file),
// loaded with load_onnx_file; a symbolic (dim_param) first dimension of the file's inputs takes
// opts.batch, other symbolic dimensions the values of opts.dim_values (a file's fixed
// dimensions, dtype, image size and sequence length are its own: opts.image_size, seq_len and
// dtype apply to zoo models only; a batch fixed in the file wins over opts.batch).
Graph load_model(const std::string& name_or_path, const ZooOptions& opts = {});

// load_model for an experiment that needs batch opts.batch: zoo models are built at it and files
// with a symbolic batch are rebatched; a file that fixes another batch is refused in one line
// ("F.onnx: the file fixes batch 1; this experiment needs batch 64 (export with a symbolic
// batch dimension)").
Graph load_model_at_batch(const std::string& name_or_path, const ZooOptions& opts);

// The name a model goes by in tables, notes and output file names: a zoo name as it is, a file's
// name without its folders and ".onnx", with characters other than letters, digits, '_', '-'
// and '.' replaced by '_' ("/home/me/my net.onnx" -> "my_net").
std::string model_display_name(const std::string& name_or_path);

}  // namespace dgs
