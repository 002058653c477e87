#pragma once
// The orders of the outer loops that the array nest search (array_nest.cpp) prices per split of
// its inner loops. A loop of exactly one trip changes nothing wherever it lies (it neither ends a
// run, nor fills registers, nor makes an operand come back) while every operand's registers hold
// at least one combination: two orders of the outer loops that differ only in where such loops
// lie give the same bytes, bits, energy and cycles, and the search keeps the first of equals (in
// next_permutation's order). So it prices, of the 24 orders in next_permutation's order, only the
// first of each sequence of its loops of other than one trip. Which those are depends only on
// which of the 4 outer loops have one trip: the lists are made once per such set.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dgs::array_nest_internal {

// Orders of the outer loops 0..3 (P, K, C, T); order[j] is the j-th loop from the inside.
struct OuterOrderList {
  std::array<std::array<int, 4>, 24> orders{};
  size_t size = 0;
};

// The orders priced for a split whose outer loops of other than one trip are the set bits of
// `multi` (< 16), in the order the search prices them.
const OuterOrderList& first_outer_orders(uint32_t multi);
// All 24 orders in next_permutation's order (for a search that cannot skip any: some operand's
// registers hold less than one combination).
const OuterOrderList& every_outer_order();
// first_outer_orders(multi) as a vector (for tests).
std::vector<std::array<int, 4>> priced_outer_orders(uint32_t multi);

}  // namespace dgs::array_nest_internal
