// onnx_check_case DIR [--rtol R] [--atol A]: runs one ONNX backend test case (DIR/model.onnx,
// DIR/test_data_set_*/) on the CPU reference executor and compares every output with the expected
// .pb files (numpy.allclose; defaults rtol 1e-4, atol 1e-5, see common/exec/tensor_data.h).
//
// Prints one line and exits with:
//   PASS                                         0
//   FAIL <worst relative error> <output name>    1   (and a second line with the details;
//                                                     "FAIL inf -" if the executor failed)
//   UNSUPPORTED <op type or reason>              2   (also when the model loader rejects it)
//   INVALID <message>                            2   (the model contradicts itself: initializer
//                                                     data vs dims, ONNX's checker)
//   error: <message>                             2   (not a test case, malformed files)
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "common/onnxcheck/onnx_case_check.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const bool help = !args.empty() && (args[0] == "--help" || args[0] == "-h");
  if (args.empty() || help) {
    // Asked for: the usage on standard output, exit 0; no arguments: on standard error, exit 2.
    std::fprintf(help ? stdout : stderr,
                 "usage: onnx_check_case DIR [--rtol R] [--atol A]\n"
                 "  DIR: an ONNX backend test case (model.onnx and test_data_set_*/input_*.pb, "
                 "output_*.pb)\n"
                 "  an element passes when |actual - expected| <= A + R * |expected|;\n"
                 "  defaults R = 1e-4, A = 1e-5 (the suite's CPU-reference tolerance)\n");
    return help ? 0 : 2;
  }
  try {
    const dgs::OnnxCheckCaseArgs parsed = dgs::parse_onnx_check_case_args(args);
    const dgs::OnnxCaseResult r = dgs::check_onnx_case(parsed.dir, parsed.tol);
    switch (r.status) {
      case dgs::OnnxCaseResult::Status::Pass:
        std::printf("PASS\n");
        return 0;
      case dgs::OnnxCaseResult::Status::Fail:
        std::printf("FAIL %.6g %s\n%s\n", r.worst_error, r.worst_output.c_str(), r.detail.c_str());
        return 1;
      case dgs::OnnxCaseResult::Status::Unsupported:
      case dgs::OnnxCaseResult::Status::Rejected:
        std::printf("UNSUPPORTED %s\n", r.detail.c_str());
        return 2;
      case dgs::OnnxCaseResult::Status::Invalid:
        std::printf("INVALID %s\n", r.detail.c_str());
        return 2;
      case dgs::OnnxCaseResult::Status::Error:
        std::fprintf(stderr, "error: %s\n", r.detail.c_str());
        return 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 2;
}
