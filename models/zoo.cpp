#include "models/zoo.h"

#include <cctype>
#include <charconv>
#include <filesystem>

#include "common/onnx/onnx_io.h"

namespace dgs {

// Declarations of the model functions listed in zoo_models.inc.
#define DGS_ZOO_MODEL(fn, name, description) Graph fn(const ZooOptions&);
#include "models/zoo_models.inc"
#undef DGS_ZOO_MODEL

const std::vector<ZooModel>& zoo_models() {
  static const std::vector<ZooModel> models = [] {
    std::vector<ZooModel> m = {
#define DGS_ZOO_MODEL(fn, name, description) ZooModel{name, description, &fn},
#include "models/zoo_models.inc"
#undef DGS_ZOO_MODEL
    };
    for (size_t i = 0; i < m.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (m[i].name == m[j].name) {
          throw Error("models/zoo_models.inc: model name '" + m[i].name + "' is listed twice");
        }
      }
    }
    return m;
  }();
  return models;
}

std::vector<std::string> zoo_model_names() {
  std::vector<std::string> names;
  for (const ZooModel& m : zoo_models()) names.push_back(m.name);
  return names;
}

bool is_zoo_model(const std::string& name) {
  for (const ZooModel& m : zoo_models()) {
    if (m.name == name) return true;
  }
  return false;
}

void add_dim_flag(const std::string& spec, std::map<std::string, int64_t>* dims) {
  const size_t eq = spec.find('=');
  int64_t value = 0;
  const char* end = spec.data() + spec.size();
  const bool number =
      eq != std::string::npos && std::from_chars(spec.data() + eq + 1, end, value).ptr == end;
  if (eq == 0 || !number || value < 1) {
    throw UsageError("--dim " + spec + ": expected NAME=N with N >= 1");
  }
  (*dims)[spec.substr(0, eq)] = value;
}

void check_zoo_options(const ZooOptions& opts, const std::string& model) {
  if (opts.batch < 1) {
    throw UsageError("model '" + model + "': batch size " + std::to_string(opts.batch) +
                     " is invalid; expected >= 1");
  }
  if (opts.image_size < 0) {
    throw UsageError("model '" + model + "': image size " + std::to_string(opts.image_size) +
                     " is invalid; expected > 0 (or 0 for the model's default)");
  }
  if (opts.seq_len < 0) {
    throw UsageError("model '" + model + "': sequence length " + std::to_string(opts.seq_len) +
                     " is invalid; expected > 0 (or 0 for the model's default)");
  }
  if (opts.dtype != DType::F32 && opts.dtype != DType::F16) {
    throw UsageError("model '" + model + "': dtype " + std::string(dtype_name(opts.dtype)) +
                     " is not supported; expected float32 or float16");
  }
}

int64_t zoo_image_size(const ZooOptions& opts, int64_t def) {
  return opts.image_size > 0 ? opts.image_size : def;
}
int64_t zoo_seq_len(const ZooOptions& opts, int64_t def) {
  return opts.seq_len > 0 ? opts.seq_len : def;
}

namespace {
std::string known_names() {
  std::string s;
  for (const ZooModel& m : zoo_models()) s += (s.empty() ? "" : ", ") + m.name;
  return s;
}
}  // namespace

Graph build_zoo_model(const std::string& name, const ZooOptions& opts) {
  for (const ZooModel& m : zoo_models()) {
    if (m.name == name) {
      check_zoo_options(opts, name);
      return m.build(opts);
    }
  }
  throw UsageError("unknown model '" + name + "'; expected one of: " + known_names() +
                   ", or a path to an .onnx file");
}

Graph load_model(const std::string& name_or_path, const ZooOptions& opts) {
  const bool looks_like_file =
      (name_or_path.size() > 5 && name_or_path.ends_with(".onnx")) ||
      (!is_zoo_model(name_or_path) && std::filesystem::is_regular_file(name_or_path));
  if (!looks_like_file) return build_zoo_model(name_or_path, opts);
  check_zoo_options(opts, name_or_path);
  OnnxLoadOptions lo;
  lo.batch = opts.batch;
  lo.dim_values = opts.dim_values;
  lo.summary = opts.onnx_summary;
  return load_onnx_file(name_or_path, lo);
}

Graph load_model_at_batch(const std::string& name_or_path, const ZooOptions& opts) {
  OnnxLoadSummary summary;
  ZooOptions o = opts;
  o.onnx_summary = opts.onnx_summary ? opts.onnx_summary : &summary;
  Graph g = load_model(name_or_path, o);
  const OnnxLoadSummary& s = *o.onnx_summary;
  if (s.file_batch > 0 && s.file_batch != opts.batch) {
    throw Error(name_or_path + ": the file fixes batch " + std::to_string(s.file_batch) +
                "; this experiment needs batch " + std::to_string(opts.batch) +
                " (export with a symbolic batch dimension)");
  }
  return g;
}

std::string model_display_name(const std::string& name_or_path) {
  if (is_zoo_model(name_or_path)) return name_or_path;
  std::string name = std::filesystem::path(name_or_path).filename().string();
  if (name.size() > 5 && name.ends_with(".onnx")) name.resize(name.size() - 5);
  for (char& c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    if (!ok) c = '_';
  }
  return name.empty() ? std::string("model") : name;
}

}  // namespace dgs
