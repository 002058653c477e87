// The outer-loop orders the array nest search prices (array_nest_orders.h).
#include "common/dsamodel/array_nest_orders.h"

#include <algorithm>

namespace dgs::array_nest_internal {

namespace {

// Per set of loops of other than one trip (bit j: loop j): the orders, in next_permutation's
// order, that are the first of their sequence of those loops.
std::array<OuterOrderList, 16> first_orders_by_set() {
  std::array<OuterOrderList, 16> r;
  for (uint32_t multi = 0; multi < 16; ++multi) {
    OuterOrderList& list = r[multi];
    std::array<uint32_t, 24> seen{};  // each order's sequence of its loops of other than one trip
    size_t n_seen = 0;
    std::array<int, 4> perm{0, 1, 2, 3};
    do {
      uint32_t sequence = 1;  // the leading 1 marks the length
      for (int j : perm)
        if (multi & (1u << j)) sequence = sequence * 4 + static_cast<uint32_t>(j);
      const auto end = seen.begin() + static_cast<std::ptrdiff_t>(n_seen);
      if (std::find(seen.begin(), end, sequence) != end) continue;
      seen[n_seen++] = sequence;
      list.orders[list.size++] = perm;
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
  return r;
}

const std::array<OuterOrderList, 16>& first_orders() {
  static const std::array<OuterOrderList, 16> lists = first_orders_by_set();
  return lists;
}

}  // namespace

const OuterOrderList& first_outer_orders(uint32_t multi) {
  return first_orders().at(multi);
}

const OuterOrderList& every_outer_order() {
  return first_orders()[15];  // every loop of other than one trip: every order is a first
}

std::vector<std::array<int, 4>> priced_outer_orders(uint32_t multi) {
  const OuterOrderList& list = first_outer_orders(multi);
  return {list.orders.begin(), list.orders.begin() + static_cast<std::ptrdiff_t>(list.size)};
}

}  // namespace dgs::array_nest_internal
