// The outer-loop orders the array nest search prices per split (array_nest_orders.h):
// for every set of loops of other than one trip, one order per sequence of those loops, the
// least in next_permutation's (lexicographic) order of its sequence's orders, listed in that
// order. Checked against its definition: every order grouped by its sequence, by brute force.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "common/dsamodel/array_nest_orders.h"

namespace dgs {
namespace {

using Order = std::array<int, 4>;

// The loops of `multi` in the order `o` runs them (inner to outer).
std::vector<int> sequence_of(const Order& o, uint32_t multi) {
  std::vector<int> s;
  for (int j : o)
    if (multi & (1u << j)) s.push_back(j);
  return s;
}

TEST(ArrayNestOrders, OneOrderPerSequenceTheLeastListedInOrder) {
  for (uint32_t multi = 0; multi < 16; ++multi) {
    SCOPED_TRACE(multi);
    // Every order, grouped by its sequence: the least of each group.
    std::map<std::vector<int>, Order> least;
    Order o{0, 1, 2, 3};
    do {
      const auto it = least.find(sequence_of(o, multi));
      if (it == least.end() || o < it->second) least[sequence_of(o, multi)] = o;
    } while (std::next_permutation(o.begin(), o.end()));
    std::vector<Order> expected;
    for (const auto& entry : least) expected.push_back(entry.second);
    std::sort(expected.begin(), expected.end());

    const std::vector<Order> priced = array_nest_internal::priced_outer_orders(multi);
    EXPECT_EQ(priced, expected);
    // k loops of other than one trip: k! sequences (1 when none or one).
    const int k = std::popcount(multi);
    EXPECT_EQ(priced.size(), static_cast<size_t>(k == 4 ? 24 : k == 3 ? 6 : k == 2 ? 2 : 1));
  }
}

TEST(ArrayNestOrders, TwoLoopsOfOtherThanOneTrip) {
  // K and T (bits 1 and 3): K inside T first, at its least order (0 1 2 3), then T inside K,
  // whose least order puts P and C, the loops of one trip, as far in as they go (0 2 3 1).
  EXPECT_EQ(array_nest_internal::priced_outer_orders(0b1010),
            (std::vector<Order>{{0, 1, 2, 3}, {0, 2, 3, 1}}));
}

}  // namespace
}  // namespace dgs
