// The sub-graph of a set of ops (common/graph/subgraph.h): tensors produced outside become
// inputs, tensors read outside become outputs, weights stay weights.
#include "common/graph/subgraph.h"

#include <gtest/gtest.h>

#include "tests/error_of.h"
#include "tests/plan/plan_test_graphs.h"

namespace dgs {
namespace {

TEST(InducedSubgraph, BoundaryTensorsBecomeInputsAndOutputs) {
  const Graph g = chain_graph();
  const InducedSubgraph s = induced_subgraph(g, {g.find_op("b"), g.find_op("c")});
  ASSERT_EQ(s.graph.num_ops(), 2);
  validate(s.graph);
  // a's output, produced outside, is an input; c's output stays an output; b's is internal.
  EXPECT_EQ(s.graph.tensor(s.tensor_index[size_t(g.find_tensor("a:0"))]).role, TensorRole::Input);
  EXPECT_EQ(s.graph.tensor(s.graph.find_tensor("b:0")).role, TensorRole::Activation);
  EXPECT_EQ(s.graph.tensor(s.graph.find_tensor("c:0")).role, TensorRole::Output);
  EXPECT_EQ(s.op_index[size_t(g.find_op("a"))], -1);
  EXPECT_EQ(s.op_index[size_t(g.find_op("b"))], 0);
  EXPECT_EQ(s.op_index[size_t(g.find_op("c"))], 1);
  EXPECT_EQ(s.tensor_index[size_t(g.find_tensor("d:0"))], -1);
}

TEST(InducedSubgraph, ATensorReadOutsideIsAnOutputAndWeightsStayWeights) {
  const Graph g = conv_relu_graph();
  const InducedSubgraph s = induced_subgraph(g, {g.find_op("conv")});
  EXPECT_EQ(s.graph.tensor(s.graph.find_tensor("w")).role, TensorRole::Weight);
  EXPECT_EQ(s.graph.tensor(s.graph.find_tensor("conv:0")).role, TensorRole::Output);
  EXPECT_EQ(s.graph.tensor(s.graph.find_tensor("x")).role, TensorRole::Input);
}

TEST(InducedSubgraph, BadOpListsAreOneLine) {
  const Graph g = chain_graph();
  EXPECT_EQ(error_of([&] {
              induced_subgraph(g, {0, 0});
            }),
            "graph 'chain': sub-graph lists op 'a' twice");
  EXPECT_EQ(error_of([&] { induced_subgraph(g, {7}); }),
            "graph 'chain': sub-graph op index 7 does not exist");
}

}  // namespace
}  // namespace dgs
