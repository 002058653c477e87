// libFuzzer target: the ONNX loader from bytes through ONNX's checker, shape inference, load-time
// folding, our shape inference and Graph validation (graph_from_onnx). Every input must either
// load or be refused with a dgs::Error (one line); anything else (a crash, another exception, a
// sanitizer report, an allocation over libFuzzer's -malloc_limit_mb) is a finding.
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/onnx/onnx_io.h"
#include "common/util/error.h"
#include "fuzz/fuzz_one_line.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size))) return 0;
  try {
    const dgs::Graph g = dgs::graph_from_onnx(model, "fuzz.onnx");
    (void)g;
  } catch (const dgs::Error& e) {
    dgs::require_one_line(e.what());
  }
  return 0;
}
