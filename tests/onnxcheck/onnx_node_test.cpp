// Runs ONNX's own backend node test data (Debian libonnx-testdata) on the CPU reference executor.
// Every case whose operators, element types and features the suite supports must match the
// expected outputs within rtol 1e-4 / atol 1e-5 (tensor_data.h). Cases are skipped only for a
// reason in the explicit list below; any other load error or mismatch fails the test.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "common/onnxcheck/onnx_case_check.h"
#include "common/onnxcheck/onnx_test_case.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

constexpr const char* kNodeDataDir = "/usr/share/libonnx-testdata/data/node";

// Reasons for which a case may be skipped. Each is a substring of the UNSUPPORTED message:
// operators outside OpKind are reported by name and always allowed; these are the features of
// supported operators that the suite deliberately does not implement.
const std::vector<std::string> kKnownUnsupported = {
    "element type",                 // uint8/int8/bfloat16/string/double tensors
    "non-tensor value",             // sequences and optionals
    "operator domain",              // training and ML domains
    "in training mode",             // BatchNormalization / Dropout training outputs
    "tf_crop_and_resize",           // Resize with a region of interest
    "attribute 'to' is 11",         // Cast to double (the loader has no double dtype)
    "is not produced by any node",  // a graph output that is a Constant node's value
    "(Slice): 1 inputs",            // opset < 10 Slice (starts/ends as attributes)
};

bool known_unsupported(const OnnxCaseResult& r) {
  if (r.status == OnnxCaseResult::Status::Error) return false;  // malformed data
  if (r.status == OnnxCaseResult::Status::Unsupported &&
      r.detail.find("unsupported:") == std::string::npos) {
    return true;  // an operator outside OpKind (or a domain / element type, listed below)
  }
  for (const std::string& k : kKnownUnsupported) {
    if (r.detail.find(k) != std::string::npos) return true;
  }
  return false;
}

// Runs every case under `folder`; returns the number of cases that ran.
int run_case_folder(const std::string& folder) {
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(folder)) {
    if (e.is_directory()) cases.push_back(e.path());
  }
  std::sort(cases.begin(), cases.end());
  int ran = 0, passed = 0, unsupported = 0;
  std::map<std::string, int> unsupported_reasons;
  std::string ran_list;
  for (const fs::path& dir : cases) {
    const std::string name = dir.filename().string();
    if (!fs::exists(dir / "model.onnx")) continue;
    const OnnxCaseResult r = check_onnx_case(dir.string());
    if (r.status == OnnxCaseResult::Status::Pass || r.status == OnnxCaseResult::Status::Fail) {
      ++ran;
      ran_list += " " + name;
      if (r.status == OnnxCaseResult::Status::Pass) {
        ++passed;
      } else {
        ADD_FAILURE() << name << ": FAIL " << r.worst_error << " " << r.worst_output << ": "
                      << r.detail;
      }
      continue;
    }
    if (!known_unsupported(r)) {
      ADD_FAILURE() << name << ": not in the known-unsupported list: " << r.detail;
      continue;
    }
    ++unsupported;
    // Group reasons by their text after the file name ("Acos", "element type uint8", ...).
    std::string reason = r.detail;
    if (const auto p = reason.find("model.onnx: "); p != std::string::npos) {
      reason = reason.substr(p + 12);
    }
    ++unsupported_reasons[reason];
  }
  std::printf("%s: cases ran:%s\n", folder.c_str(), ran_list.c_str());
  std::printf("%s: unsupported, by reason:", folder.c_str());
  for (const auto& [reason, n] : unsupported_reasons) std::printf(" [%s x%d]", reason.c_str(), n);
  std::printf("\n%s: ran %d, passed %d, unsupported %d\n", folder.c_str(), ran, passed,
              unsupported);
  return ran;
}

TEST(OnnxNodeData, SupportedCasesMatchReference) {
  if (!fs::is_directory(kNodeDataDir)) {
    GTEST_SKIP() << kNodeDataDir << " is missing (Debian package libonnx-testdata)";
  }
  // The suite's operator set covers about 300 of ONNX 1.12's node cases; a sudden drop means the
  // loader or the case runner broke, not that the data changed.
  EXPECT_GE(run_case_folder(kNodeDataDir), 250);
}

// PyTorch-exported single-layer models of the same package (Conv with groups and dilation,
// ConvTranspose, pooling with ceil_mode, ...), checked the same way.
TEST(OnnxNodeData, PytorchConvertedCasesMatchReference) {
  for (const char* sub : {"pytorch-converted", "pytorch-operator"}) {
    const std::string dir = std::string(kNodeDataDir) + "/../" + sub;
    if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " is missing";
    EXPECT_GE(run_case_folder(dir), 20) << dir;
  }
}

TEST(OnnxNodeData, MismatchingOutputFails) {
  // test_relu's model with test_sigmoid's expected output: loads and runs, and must FAIL.
  const fs::path relu = fs::path(kNodeDataDir) / "test_relu";
  const fs::path sigmoid = fs::path(kNodeDataDir) / "test_sigmoid" / "test_data_set_0";
  if (!fs::is_directory(relu) || !fs::is_directory(sigmoid)) GTEST_SKIP() << "no test data";
  const fs::path dir =
      fs::temp_directory_path() / ("dgs_exec_mismatch_case_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "test_data_set_0");
  fs::copy_file(relu / "model.onnx", dir / "model.onnx");
  fs::copy_file(relu / "test_data_set_0" / "input_0.pb", dir / "test_data_set_0" / "input_0.pb");
  fs::copy_file(sigmoid / "output_0.pb", dir / "test_data_set_0" / "output_0.pb");
  const OnnxCaseResult r = check_onnx_case(dir.string());
  EXPECT_EQ(r.status, OnnxCaseResult::Status::Fail) << r.detail;
  EXPECT_GT(r.worst_error, kDefaultRtol);
  EXPECT_EQ(r.worst_output, "y");
  // The right expected output passes.
  fs::copy_file(relu / "test_data_set_0" / "output_0.pb", dir / "test_data_set_0" / "output_0.pb",
                fs::copy_options::overwrite_existing);
  EXPECT_EQ(check_onnx_case(dir.string()).status, OnnxCaseResult::Status::Pass);
  fs::remove_all(dir);
}

TEST(OnnxNodeData, InitializerShorterThanItsDimsIsInvalid) {
  // test_add with its second input as an initializer holding half the values its dims need.
  const fs::path add = fs::path(kNodeDataDir) / "test_add";
  if (!fs::is_directory(add)) GTEST_SKIP() << "no test data";
  onnx::ModelProto m;
  {
    std::ifstream in(add / "model.onnx", std::ios::binary);
    ASSERT_TRUE(m.ParseFromIstream(&in));
  }
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("y");
  init->set_data_type(onnx::TensorProto_DataType_FLOAT);
  for (int64_t d : {3, 4, 5}) init->add_dims(d);
  init->set_raw_data(std::string(30 * sizeof(float), '\0'));
  m.mutable_graph()->mutable_input()->DeleteSubrange(1, 1);
  const fs::path dir =
      fs::temp_directory_path() / ("dgs_invalid_initializer_case_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "test_data_set_0");
  {
    std::ofstream out(dir / "model.onnx", std::ios::binary);
    ASSERT_TRUE(m.SerializeToOstream(&out));
  }
  fs::copy_file(add / "test_data_set_0" / "input_0.pb", dir / "test_data_set_0" / "input_0.pb");
  fs::copy_file(add / "test_data_set_0" / "output_0.pb", dir / "test_data_set_0" / "output_0.pb");
  const OnnxCaseResult r = check_onnx_case(dir.string());
  EXPECT_EQ(r.status, OnnxCaseResult::Status::Invalid) << r.detail;
  EXPECT_EQ(r.detail, (dir / "model.onnx").string() +
                          ": initializer 'y': raw_data holds 120 bytes; dims [3,4,5] of float "
                          "need 240");
  fs::remove_all(dir);
}

TEST(OnnxNodeData, NotATestCaseIsAUsageError) {
  EXPECT_THROW(check_onnx_case(fs::temp_directory_path().string()), UsageError);
}

TEST(OnnxNodeData, ReadsTensorProtoFiles) {
  const fs::path dir =
      fs::path(kNodeDataDir) / "test_conv_with_strides_padding" / "test_data_set_0";
  if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " is missing";
  const NamedTensorData x = read_tensor_proto_file((dir / "input_0.pb").string());
  EXPECT_EQ(x.value.shape, (Shape{1, 1, 7, 5}));
  EXPECT_EQ(x.value.dtype, DType::F32);
  ASSERT_EQ(x.value.f.size(), 35u);
  EXPECT_EQ(x.value.f[34], 34.0f);  // the ONNX example input is 0..34
  EXPECT_THROW(read_tensor_proto_file((dir / "missing.pb").string()), Error);
}

TEST(OnnxCheckCaseArgs, DefaultsAndFlags) {
  const OnnxCheckCaseArgs d = parse_onnx_check_case_args({"case"});
  EXPECT_EQ(d.dir, "case");
  EXPECT_EQ(d.tol.rtol, kDefaultRtol);
  EXPECT_EQ(d.tol.atol, kDefaultAtol);
  const OnnxCheckCaseArgs f = parse_onnx_check_case_args({"--rtol", "2e-4", "case", "--atol", "0"});
  EXPECT_EQ(f.dir, "case");
  EXPECT_EQ(f.tol.rtol, 2e-4);
  EXPECT_EQ(f.tol.atol, 0.0);
}

TEST(OnnxCheckCaseArgs, BadFlagsAreOneLineNamingTheFlag) {
  auto msg = [](const std::vector<std::string>& a) {
    try {
      parse_onnx_check_case_args(a);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(msg({"case", "--rtol", "0"}), "--rtol 0: expected a number in (0, 1)");
  EXPECT_EQ(msg({"case", "--rtol", "1e-4x"}), "--rtol 1e-4x: expected a number in (0, 1)");
  EXPECT_EQ(msg({"case", "--atol", "-1"}), "--atol -1: expected a number in [0, 1)");
  EXPECT_EQ(msg({"case", "--atol", "nan"}), "--atol nan: expected a number in [0, 1)");
  EXPECT_EQ(msg({"case", "--rtol"}), "--rtol: expected a value");
  EXPECT_EQ(msg({"case", "--tol", "1"}), "--tol: unknown option; expected --rtol R or --atol A");
  EXPECT_EQ(msg({"a", "b"}), "b: a second test case folder; expected one DIR");
  EXPECT_EQ(msg({"--rtol", "1e-3"}), "expected a test case folder DIR");
}

}  // namespace
}  // namespace dgs
