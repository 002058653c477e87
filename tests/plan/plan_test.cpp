// Plans: names, check() and the JSON round trip.
#include "common/plan/plan.h"

#include <gtest/gtest.h>

namespace dgs {
namespace {

// a -> b -> c, a -> d
Graph chain_graph() {
  Graph g;
  g.name = "chain";
  const int x = g.add_input("x", {1, 8});
  const int a = g.add_op(OpKind::Relu, "a", {x});
  const int b = g.add_op(OpKind::Sigmoid, "b", {g.op(a).outputs[0]});
  const int c = g.add_op(OpKind::Tanh, "c", {g.op(b).outputs[0]});
  const int d = g.add_op(OpKind::Neg, "d", {g.op(a).outputs[0]});
  g.mark_output(g.op(c).outputs[0]);
  g.mark_output(g.op(d).outputs[0]);
  return g;
}

Plan fused_plan(const Graph& g) {
  Plan p;
  p.scheduler = "test";
  p.graph = g.name;
  Task t0;
  t0.ops = {g.find_op("a")};
  Task t1;
  t1.kind = TaskKind::Fused;
  t1.ops = {g.find_op("b"), g.find_op("c")};
  t1.kept[g.find_tensor("b:0")] = MemLevel::Shared;
  t1.tile = {1, 4};
  t1.placement = 0;
  t1.params["batch_splits"] = 2;
  Task t2;
  t2.kind = TaskKind::Merged;
  t2.ops = {g.find_op("d")};
  t2.placement = 1;
  p.stages.push_back(Stage{{t0}});
  p.stages.push_back(Stage{{t1, t2}});
  return p;
}

TEST(Plan, NamesRoundTrip) {
  for (MemLevel m :
       {MemLevel::Host, MemLevel::DRAM, MemLevel::L2, MemLevel::Shared, MemLevel::Register})
    EXPECT_EQ(mem_level_from_name(mem_level_name(m)), m);
  for (TaskKind k : {TaskKind::Sequential, TaskKind::Merged, TaskKind::Fused})
    EXPECT_EQ(task_kind_from_name(task_kind_name(k)), k);
  EXPECT_EQ(mem_level_name(MemLevel::Shared), "shared");
  EXPECT_EQ(task_kind_name(TaskKind::Fused), "fused");
  EXPECT_THROW(mem_level_from_name("smem"), Error);
  EXPECT_THROW(task_kind_from_name("parallel"), Error);
}

TEST(Plan, JsonRoundTripKeepsEverything) {
  const Graph g = chain_graph();
  const Plan p = fused_plan(g);
  p.check(g);
  EXPECT_EQ(p.num_tasks(), 3);
  const std::string text = plan_to_json(p, g);
  EXPECT_NE(text.find("\"b:0\": \"shared\""), std::string::npos) << text;
  const Plan q = plan_from_json(text, g, "mem");
  EXPECT_EQ(q.scheduler, "test");
  EXPECT_EQ(q.graph, "chain");
  ASSERT_EQ(q.stages.size(), 2u);
  ASSERT_EQ(q.stages[1].tasks.size(), 2u);
  const Task& t = q.stages[1].tasks[0];
  EXPECT_EQ(t.kind, TaskKind::Fused);
  EXPECT_EQ(t.ops, p.stages[1].tasks[0].ops);
  EXPECT_EQ(t.kept, p.stages[1].tasks[0].kept);
  EXPECT_EQ(t.tile, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(t.placement, 0);
  EXPECT_EQ(t.params.at("batch_splits"), 2);
  EXPECT_EQ(q.stages[1].tasks[1].kind, TaskKind::Merged);
  EXPECT_EQ(q.stages[0].tasks[0].placement, -1);
  EXPECT_EQ(plan_to_json(q, g), text);  // byte-identical second round
}

TEST(Plan, CheckFindsMissingDuplicateAndOrderViolations) {
  const Graph g = chain_graph();
  Plan p = fused_plan(g);
  p.stages[1].tasks.pop_back();  // drop d
  try {
    p.check(g);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'d' is in no stage"), std::string::npos) << e.what();
  }
  Plan dup = fused_plan(g);
  dup.stages[0].tasks[0].ops.push_back(g.find_op("d"));
  dup.stages[0].tasks[0].ops.push_back(g.find_op("d"));
  EXPECT_THROW(dup.check(g), Error);
  // b and its producer a in the same stage, different tasks: not allowed.
  Plan side = fused_plan(g);
  side.stages[0].tasks.push_back(side.stages[1].tasks[0]);
  side.stages[1].tasks.erase(side.stages[1].tasks.begin());
  try {
    side.check(g);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("producer 'a'"), std::string::npos) << e.what();
  }
  // c before b inside one task: not allowed; b before c: fine.
  Plan order = fused_plan(g);
  std::swap(order.stages[1].tasks[0].ops[0], order.stages[1].tasks[0].ops[1]);
  EXPECT_THROW(order.check(g), Error);
  Plan bad_index = fused_plan(g);
  bad_index.stages[0].tasks[0].ops = {99};
  EXPECT_THROW(bad_index.check(g), Error);
}

TEST(Plan, BadJsonGivesOneLineNamingTheField) {
  const Graph g = chain_graph();
  auto message = [&](const std::string& text) {
    try {
      plan_from_json(text, g, "plan.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("{").find("plan.json: not valid JSON"), std::string::npos);
  EXPECT_NE(message(R"({"stages": 3})").find("stages"), std::string::npos);
  const std::string unknown = message(R"({"stages": [{"tasks": [{"ops": ["zz"]}]}]})");
  EXPECT_NE(unknown.find("stages[0].tasks[0].ops: unknown op 'zz'"), std::string::npos) << unknown;
  const std::string kind =
      message(R"({"stages": [{"tasks": [{"kind": "parallel", "ops": ["a"]}]}]})");
  EXPECT_NE(kind.find("stages[0].tasks[0].kind"), std::string::npos) << kind;
  const std::string level =
      message(R"({"stages": [{"tasks": [{"ops": ["a"], "kept": {"a:0": "hbm"}}]}]})");
  EXPECT_NE(level.find("unknown memory level 'hbm'"), std::string::npos) << level;
  for (const std::string& m : {unknown, kind, level}) EXPECT_EQ(m.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace dgs
