// common/util/inline_vector.h: elements inline up to the capacity, on the heap beyond, with
// std::vector's values through copies, moves, growth and resizes.
#include "common/util/inline_vector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace dgs {
namespace {

struct Pair {
  int64_t a = 7;
  int64_t b = 9;
  bool operator==(const Pair&) const = default;
};
using V = InlineVector<Pair, 3>;

// True when the elements live inside the vector object itself.
bool is_inline(const V& v) {
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  const auto* self = reinterpret_cast<const unsigned char*>(&v);
  return p >= self && p < self + sizeof(V);
}

std::vector<Pair> as_std(const V& v) {
  return {v.begin(), v.end()};
}

TEST(InlineVector, KeepsUpToItsCapacityInlineAndMovesToTheHeapBeyond) {
  V v;
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.capacity(), 3u);
  for (int64_t i = 0; i < 3; ++i) v.push_back({i, -i});
  EXPECT_TRUE(is_inline(v));
  EXPECT_EQ(v.capacity(), 3u);
  v.emplace_back(3, -3);
  EXPECT_FALSE(is_inline(v));
  EXPECT_EQ(v.capacity(), 6u);
  EXPECT_EQ(as_std(v), (std::vector<Pair>{{0, 0}, {1, -1}, {2, -2}, {3, -3}}));
  EXPECT_EQ(v.front(), (Pair{0, 0}));
  EXPECT_EQ(v.back(), (Pair{3, -3}));
  v.pop_back();
  EXPECT_EQ(v.size(), 3u);
  v.clear();
  EXPECT_TRUE(v.empty());
}

TEST(InlineVector, PushingItsOwnElementWhileGrowingCopiesTheOldValue) {
  V v = {{1, 2}, {3, 4}, {5, 6}};
  v.push_back(v[0]);  // reallocates: the reference dies with the inline storage
  v.push_back(v[3]);
  v.push_back(v[1]);
  v.push_back(v[5]);  // grows again (6 -> 12)
  EXPECT_EQ(as_std(v), (std::vector<Pair>{{1, 2}, {3, 4}, {5, 6}, {1, 2}, {1, 2}, {3, 4}, {3, 4}}));
}

TEST(InlineVector, ConstructorsResizeAndAssignMatchStdVector) {
  EXPECT_EQ(as_std(V(2)), (std::vector<Pair>(2)));  // value-initialized: {7, 9}
  EXPECT_EQ(as_std(V(5, Pair{1, 1})), (std::vector<Pair>(5, Pair{1, 1})));
  const std::vector<Pair> src = {{1, 1}, {2, 2}, {3, 3}, {4, 4}};
  EXPECT_EQ(as_std(V(src.begin(), src.end())), src);
  V v = {{0, 1}};
  v.resize(4, Pair{5, 5});
  EXPECT_EQ(as_std(v), (std::vector<Pair>{{0, 1}, {5, 5}, {5, 5}, {5, 5}}));
  v.resize(1);
  EXPECT_EQ(as_std(v), (std::vector<Pair>{{0, 1}}));
  v.resize(2);
  EXPECT_EQ(v[1], Pair{});
  v.assign(3, v[0]);
  EXPECT_EQ(as_std(v), (std::vector<Pair>(3, Pair{0, 1})));
  v.assign(src.begin(), src.end());
  EXPECT_EQ(as_std(v), src);
  v = {{8, 8}};
  EXPECT_EQ(as_std(v), (std::vector<Pair>{{8, 8}}));
}

TEST(InlineVector, CopiesAndMovesKeepTheValuesAndEmptyTheSource) {
  for (int n : {0, 2, 3, 4, 9}) {
    SCOPED_TRACE(n);
    V a;
    for (int i = 0; i < n; ++i) a.push_back({i, i * i});
    const std::vector<Pair> want = as_std(a);
    V copy = a;
    EXPECT_EQ(copy, a);
    EXPECT_EQ(as_std(copy), want);
    EXPECT_NE(copy.data(), a.data());
    const Pair* heap = a.data();
    V moved = std::move(a);
    EXPECT_EQ(as_std(moved), want);
    EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
    if (n > 3) {
      EXPECT_EQ(moved.data(), heap);  // the heap block changes hands
    }
    a = moved;  // a moved-from vector is reusable
    EXPECT_EQ(as_std(a), want);
    V target = {{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}};
    target = std::move(moved);
    EXPECT_EQ(as_std(target), want);
    EXPECT_TRUE(moved.empty());  // NOLINT(bugprone-use-after-move)
    const V& same = target;
    target = same;  // self-assignment keeps the values
    EXPECT_EQ(as_std(target), want);
  }
  EXPECT_FALSE((V{{1, 2}} == V{{1, 2}, {1, 2}}));
  EXPECT_FALSE((V{{1, 2}} == V{{1, 3}}));
}

}  // namespace
}  // namespace dgs
