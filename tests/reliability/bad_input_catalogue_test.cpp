// The catalogue of bad inputs, through the real executables (repro_welder, model_info,
// plan_eval): each case asserts the exit code (2: bad flag or input), that stderr is exactly one
// line "error: ..." naming what is wrong and where, and that nothing was written under --out.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "common/util/resources.h"
#include "reproductions/papers.h"
#include "tests/reliability/onnx_model_builder.h"
#include "tests/reliability/subprocess_run.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

// Asserts a refusal: exit code `code`, one line "error: ..." containing every one of `parts`.
void expect_refusal(const ProcessRun& r, int code, const std::vector<std::string>& parts) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  for (const std::string& p : parts)
    EXPECT_NE(r.err.find(p), std::string::npos) << p << " in " << r.err;
}

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* p : {"repro_welder", "model_info", "plan_eval"}) {
      if (!fs::exists(std::string(DGS_BINARY_DIR) + "/" + p)) GTEST_SKIP() << p << " not built";
    }
  }
  // repro_welder <args> --out <fresh folder>: the refusal, and nothing under the folder.
  ProcessRun welder(const std::string& args) {
    const fs::path out = dir_.path() / ("out" + std::to_string(runs_++));
    const ProcessRun r = run_program("repro_welder", args + " --out " + out.string());
    EXPECT_TRUE(files_under(out).empty()) << "files left under --out by: " << args;
    return r;
  }
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_.file(name);
    write_file_atomic(path, bytes);
    return path;
  }
  // The ONNX cases: model_info and repro_welder --model both refuse the file in the same line.
  void expect_onnx_refused(const std::string& path, const std::vector<std::string>& parts) {
    std::vector<std::string> with_file = parts;
    with_file.push_back(path + ": ");
    expect_refusal(run_program("model_info", path), 2, with_file);
    expect_refusal(welder("--fig 9 --model " + path), 2, with_file);
  }
  ScratchDir dir_{"bad_input"};
  int runs_ = 0;
};

onnx::ModelProto relu_model(const std::vector<int64_t>& dims) {
  return model_of({{"x", dims}}, {{"y", dims}}, {{"r", "Relu", {"x"}, {"y"}}});
}

TEST_F(BadInput, TruncatedProtobuf) {
  const std::string bytes = relu_model({1, 4}).SerializeAsString();
  const std::string path = write("truncated.onnx", bytes.substr(0, bytes.size() / 2));
  expect_onnx_refused(path, {"not a valid ONNX model (protobuf parsing failed)"});
}

TEST_F(BadInput, RandomBytes) {
  std::mt19937 rng(7);
  std::string bytes(300, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
  expect_onnx_refused(write("random.onnx", bytes), {"not a valid ONNX model"});
}

TEST_F(BadInput, ValidProtobufThatIsNotAModel) {
  onnx::TensorProto t;  // a tensor, not a model
  t.set_name("t");
  t.set_data_type(onnx::TensorProto_DataType_FLOAT);
  t.add_dims(2);
  t.add_float_data(1);
  t.add_float_data(2);
  expect_onnx_refused(write("tensor.onnx", t.SerializeAsString()), {"not a valid ONNX model"});
}

TEST_F(BadInput, GraphWithACycle) {
  const auto m = model_of({{"x", {1, 4}}}, {{"y", {1, 4}}},
                          {{"a", "Relu", {"x2"}, {"x1"}},
                           {"b", "Relu", {"x1"}, {"x2"}},
                           {"c", "Add", {"x", "x1"}, {"y"}}});
  expect_onnx_refused(write("cycle.onnx", m.SerializeAsString()),
                      {"topologically sorted", "input 'x2'", "name: a"});
}

TEST_F(BadInput, InputThatNothingProduces) {
  const auto m = model_of({{"x", {1, 4}}}, {{"y", {1, 4}}}, {{"c", "Add", {"x", "ghost"}, {"y"}}});
  expect_onnx_refused(write("dangling.onnx", m.SerializeAsString()),
                      {"input 'ghost'", "name: c", "is not output of any previous nodes"});
}

TEST_F(BadInput, MismatchedShapes) {
  const auto m = model_of({{"x", {1, 4}}, {"w", {5, 3}}}, {{"y", {1, 3}}},
                          {{"mm", "MatMul", {"x", "w"}, {"y"}}});
  expect_onnx_refused(write("mismatch.onnx", m.SerializeAsString()),
                      {"op 'mm' (MatMul)", "inner dimensions differ", "[1,4]", "[5,3]"});
}

TEST_F(BadInput, UnsupportedOperatorIsNamed) {
  const auto m = model_of({{"x", {1, 4}}}, {{"y", {1, 4}}}, {{"foo", "FooBar", {"x"}, {"y"}}});
  expect_onnx_refused(write("foobar.onnx", m.SerializeAsString()),
                      {"node 'foo' has unsupported operator 'FooBar'"});
}

TEST_F(BadInput, ZeroDimension) {
  expect_onnx_refused(write("zero.onnx", relu_model({1, 0}).SerializeAsString()),
                      {"graph input 'x' has shape [1,0]", "zero dimension"});
}

TEST_F(BadInput, NegativeDimension) {
  expect_onnx_refused(write("negative.onnx", relu_model({1, -3}).SerializeAsString()),
                      {"graph input 'x' declares shape [1,-3] with a negative dimension"});
}

TEST_F(BadInput, DimensionsOverflowing64Bits) {
  const int64_t big = int64_t{1} << 62;
  expect_onnx_refused(write("overflow.onnx", relu_model({big, 8}).SerializeAsString()),
                      {"graph input 'x' declares shape [4611686018427387904,8]",
                       "over the memory budget", "1024 GiB per tensor"});
}

TEST_F(BadInput, TensorOverTheMemoryBudgetIsRefusedBeforeAllocating) {
  // An initializer declaring 2^40 floats (4 TiB) without data.
  onnx::ModelProto m =
      model_of({{"x", {1, 4}}}, {{"y", {1, 4}}}, {{"a", "Add", {"x", "w"}, {"y"}}});
  auto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto_DataType_FLOAT);
  w->add_dims(int64_t{1} << 20);
  w->add_dims(int64_t{1} << 20);
  expect_onnx_refused(
      write("budget.onnx", m.SerializeAsString()),
      {"initializer 'w' declares shape [1048576,1048576]", "over the memory budget"});
}

TEST_F(BadInput, AbsurdRank) {
  expect_onnx_refused(
      write("rank.onnx", relu_model(std::vector<int64_t>(40, 1)).SerializeAsString()),
      {"graph input 'x' declares rank 40", "at most rank 32"});
}

TEST_F(BadInput, HugeAttributeList) {
  onnx::ModelProto m =
      model_of({{"x", {1, 4}}}, {{"y", {4, 1}}}, {{"t", "Transpose", {"x"}, {"y"}}});
  auto* a = m.mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("perm");
  a->set_type(onnx::AttributeProto_AttributeType_INTS);
  for (int i = 0; i < 100000; ++i) a->add_ints(i);
  expect_onnx_refused(
      write("attr.onnx", m.SerializeAsString()),
      {"node 't' (Transpose): attribute 'perm' lists 100000 values", "at most 65536"});
}

// Hardware configs: a built-in one with one field broken.
std::string broken_config(const std::string& name, const std::function<void(nlohmann::json&)>& f) {
  std::ifstream in(std::string(DGS_SOURCE_DIR) + "/hw_configs/" + name + ".json");
  nlohmann::json j = nlohmann::json::parse(in);
  f(j["fields"]);
  return j.dump(1);
}

TEST_F(BadInput, HardwareConfigs) {
  struct Case {
    std::string config, file;
    std::function<void(nlohmann::json&)> breaks;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"v100", "gpu_missing.json", [](auto& f) { f.erase("sm_count"); },
       "field 'sm_count': missing"},
      {"v100", "gpu_unit.json", [](auto& f) { f["core_clock_mhz"]["unit"] = "GHz"; },
       "field 'core_clock_mhz': unit 'GHz' is wrong (expected MHz)"},
      {"v100", "gpu_string.json", [](auto& f) { f["sm_count"]["value"] = "eighty"; },
       "field 'sm_count': expected an integer, got string \"eighty\""},
      {"v100", "gpu_negative.json", [](auto& f) { f["dram_bandwidth_gbs"]["value"] = -900; },
       "field 'dram_bandwidth_gbs': value -900 out of range (expected a positive number)"},
      {"stcp920", "dsa_missing.json", [](auto& f) { f.erase("clusters"); },
       "field 'clusters': missing"},
      {"stcp920", "dsa_unit.json", [](auto& f) { f["dram_bandwidth"]["unit"] = "furlongs"; },
       "field 'dram_bandwidth': unit 'furlongs' is wrong (expected GB/s)"},
      {"stcp920", "dsa_string.json", [](auto& f) { f["clusters"]["value"] = "four"; },
       "field 'clusters': expected an integer, got string \"four\""},
      {"stcp920", "dsa_negative.json", [](auto& f) { f["dram_bandwidth"]["value"] = -1; },
       "field 'dram_bandwidth': value -1 out of range (expected a positive number)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string path = write(c.file, broken_config(c.config, c.breaks));
    expect_refusal(welder("--fig 2 --hw " + path), 2, {"--hw: " + path + ": " + c.message});
    // The same refusal from plan_eval, and for the accelerator configs from repro_atomic, the
    // executable that uses them.
    expect_refusal(run_program("plan_eval", "--model test_diamond --write-sequential " +
                                                dir_.file("unused.json") + " --hw " + path),
                   2, {"--hw: " + path + ": " + c.message});
    EXPECT_FALSE(fs::exists(dir_.file("unused.json")));
    if (c.config == "stcp920" && fs::exists(std::string(DGS_BINARY_DIR) + "/repro_atomic")) {
      const fs::path out = dir_.path() / ("atomic" + std::to_string(runs_++));
      expect_refusal(run_program("repro_atomic", "--all --hw " + path + " --out " + out.string()),
                     2, {"--hw: " + path + ": " + c.message});
      EXPECT_TRUE(files_under(out).empty());
    }
  }
}

// Plans of test_diamond (plan_eval --write-sequential), with one thing broken.
TEST_F(BadInput, Plans) {
  const std::string seq_path = dir_.file("sequential.json");
  ASSERT_EQ(
      run_program("plan_eval", "--model test_diamond --write-sequential " + seq_path).exit_code, 0);
  std::ifstream in(seq_path);
  const nlohmann::json seq = nlohmann::json::parse(in);
  struct Case {
    std::string file;
    std::function<void(nlohmann::json&)> breaks;
    std::vector<std::string> message;
  };
  const std::vector<Case> cases = {
      {"unknown_op.json",
       [](auto& p) { p["stages"][1]["tasks"][0]["ops"] = {"nosuchop"}; },
       {"unknown_op.json: stages[1].tasks[0].ops: unknown op 'nosuchop'"}},
      {"twice.json",
       [](auto& p) {
         nlohmann::json stage = p["stages"][0];  // op 'a' again, in a last stage
         p["stages"].push_back(stage);
       },
       {"of 'a:0' (op 'a', stage 6 task 0) overlaps", "(op 'a', stage 0 task 0)",
        "expected every element written exactly once"}},
      {"read_before_write.json",
       [](auto& p) { std::swap(p["stages"][0], p["stages"][1]); },
       {"op 'a.relu' (stage 0 task 0) reads region", "of 'a:0' before stage 1 task 0 writes"}},
      {"truncated.json",
       [](auto& p) { p = nlohmann::json("cut"); },
       {"truncated.json: not valid JSON"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    nlohmann::json p = seq;
    c.breaks(p);
    std::string text = p.dump(1);
    if (c.file == "truncated.json") text = seq.dump(1).substr(0, 100);
    const std::string path = write(c.file, text);
    expect_refusal(run_program("plan_eval", "--model test_diamond --plan " + path), 2, c.message);
  }
}

TEST_F(BadInput, Flags) {
  expect_refusal(welder("--bogus"), 2, {"unrecognised option '--bogus'"});
  expect_refusal(welder("--fig 999"), 2, {"--fig 999: no such figure in repro_welder"});
  expect_refusal(welder("--table 99"), 2, {"--table 99"});
  expect_refusal(welder("--fig 9 --model nosuchmodel"), 2,
                 {"--model: 'nosuchmodel' is neither a zoo model nor an .onnx file"});
  expect_refusal(welder("--fig 2 --hw nosuchgpu"), 2, {"--hw", "nosuchgpu"});
  expect_refusal(welder("--fig 2 --seed abc"), 2, {"--seed: 'abc' is not a non-negative integer"});
  expect_refusal(welder("--fig 2 --seed -1"), 2, {"--seed: '-1' is not a non-negative integer"});
  expect_refusal(welder("--fig 2 --seed 99999999999999999999999"), 2,
                 {"--seed: '99999999999999999999999' is not a non-negative integer"});
  expect_refusal(welder("--fig 2 --mode fast"), 2, {"--mode: 'fast' is not a mode"});
  expect_refusal(run_program("model_info", "nosuchmodel"), 2, {"nosuchmodel"});
  expect_refusal(run_program("plan_eval", "--model test_diamond --plan " + dir_.file("none.json")),
                 2, {"none.json"});
}

// The command-line cases for the repro_* executable of every paper of the paper list
// (reproductions/papers.inc; they share cli/, and each must keep refusing in the same words): an
// unknown flag, figure, table, model and hardware config, a --seed that is not a non-negative
// integer, an --out that is a file, a bad --shard, a
// --merge without shards.
TEST_F(BadInput, FlagsOfEveryReproExecutable) {
  const std::string file = write("not_a_folder", "x");
  for (const PaperEntry& paper : paper_list()) {
    const std::string program = "repro_" + paper.key;
    if (!fs::exists(std::string(DGS_BINARY_DIR) + "/" + program)) continue;
    SCOPED_TRACE(program);
    auto run = [&](const std::string& args) {
      const fs::path out = dir_.path() / ("out" + std::to_string(runs_++));
      const ProcessRun r = run_program(program, args + " --out " + out.string());
      EXPECT_TRUE(files_under(out).empty()) << "files left under --out by: " << args;
      return r;
    };
    expect_refusal(run("--bogus"), 2, {"unrecognised option '--bogus'"});
    expect_refusal(run("--fig 999"), 2, {"--fig 999: no such figure in " + program});
    expect_refusal(run("--table 99"), 2, {"--table 99: no such table in " + program});
    expect_refusal(run("--all --model nosuchmodel"), 2,
                   {"--model: 'nosuchmodel' is neither a zoo model nor an .onnx file"});
    expect_refusal(run("--all --hw nosuchgpu"), 2,
                   {"--hw: no built-in hardware config 'nosuchgpu'"});
    for (const char* seed : {"abc", "-1", "1.5", "99999999999999999999999"}) {
      expect_refusal(run(std::string("--all --seed ") + seed), 2,
                     {std::string("--seed: '") + seed + "' is not a non-negative integer"});
    }
    expect_refusal(run_program(program, "--all --out " + file), 2,
                   {"--out: '" + file + "' is a file, not a folder"});
    // Sweeps: a shard spec out of range or malformed; a merge of a folder that is not there or
    // holds no shard.
    expect_refusal(run("--all --shard 3/2"), 2,
                   {"--shard 3/2: shard index 3 is out of range (0 <= I < 2)"});
    expect_refusal(run("--all --shard x"), 2, {"--shard 'x': expected I/N"});
    expect_refusal(run("--merge " + (dir_.path() / "no_such_shards").string()), 2,
                   {"--merge: no folder " + (dir_.path() / "no_such_shards").string()});
    expect_refusal(run("--merge " + dir_.path().string()), 2,
                   {"--merge: " + dir_.path().string() + " holds no shard record of " + paper.key});
  }
  EXPECT_EQ(read_file(file), "x");  // the file given as --out is left as it was
}

// The tools' flags: the same words as the repro_* executables for a bad --seed, the flag named
// for a bad --model or --hw.
TEST_F(BadInput, FlagsOfTheTools) {
  const std::string seq = dir_.file("seq.json");
  ASSERT_EQ(run_program("plan_eval", "--model test_diamond --write-sequential " + seq).exit_code,
            0);
  const std::string plan = "--model test_diamond --plan " + seq;
  expect_refusal(run_program("plan_eval", "--bogus"), 2, {"unrecognised option '--bogus'"});
  for (const char* seed : {"abc", "-1", "99999999999999999999999"}) {
    expect_refusal(run_program("plan_eval", plan + " --check --seed " + seed), 2,
                   {std::string("--seed: '") + seed + "' is not a non-negative integer"});
  }
  expect_refusal(run_program("plan_eval", "--model nosuchmodel --plan " + seq), 2,
                 {"--model: unknown model 'nosuchmodel'"});
  expect_refusal(run_program("plan_eval", plan + " --hw nosuchgpu"), 2,
                 {"--hw: no built-in hardware config 'nosuchgpu'"});
  expect_refusal(run_program("model_info", "resnet18 --bogus"), 2,
                 {"unrecognised option '--bogus'"});
  expect_refusal(run_program("model_info", "resnet18 --batch abc"), 2,
                 {"the argument ('abc') for option '--batch' is invalid"});
}

// --help is not bad input: every program answers it on standard output with exit 0 (two of them
// once answered "--help needs a value" and the usage with exit 2).
TEST_F(BadInput, EveryProgramAnswersHelpWithExitZero) {
  for (const char* p :
       {"plan_eval", "model_info", "wavefront_scheduler", "onnx_check_case", "gpu_validate",
        "repro_compare", "repro_report", "gen_models", "repro_welder", "repro_ios",
        "repro_graphturbo", "repro_atomic", "repro_brickdl"}) {
    if (!fs::exists(std::string(DGS_BINARY_DIR) + "/" + p)) continue;
    const ProcessRun r = run_program(p, "--help");
    EXPECT_EQ(r.exit_code, 0) << p << ": " << r.err;
    EXPECT_EQ(r.err, "") << p;
  }
}

TEST_F(BadInput, OutThatIsAFileOrUnwritable) {
  const std::string file = write("a_file", "x");
  expect_refusal(run_program("repro_welder", "--fig 2 --out " + file), 2,
                 {"--out: '" + file + "' is a file, not a folder"});
  expect_refusal(run_program("repro_welder", "--fig 2 --out " + file + "/below"), 2,
                 {"--out: '" + file + "' is a file, not a folder"});
  EXPECT_EQ(files_under(dir_.path()).size(), 1u);  // only the file itself
  // /proc refuses new folders even to root.
  expect_refusal(run_program("repro_welder", "--fig 2 --out /proc/dgs_reports"), 2,
                 {"--out: cannot write in '/proc'"});
}

}  // namespace
}  // namespace dgs
