#pragma once
// A random region of a tensor for the tests that check region computations against an oracle
// (tests/graph/affine_regions_oracle_test.cpp, tests/dsamodel/one_op_regions_test.cpp,
// tests/graph/region_index_test.cpp): per axis the whole extent, a prefix, a suffix or an
// inner range, each a quarter of the time, so that regions touch either edge (where padding
// clips a window) as often as they lie inside.
#include <cstdint>
#include <random>
#include <utility>

#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"

namespace dgs::test {

inline Region random_region(const Shape& s, std::mt19937_64& rng) {
  Region r;
  for (int64_t d : s) {
    std::uniform_int_distribution<int64_t> pick(0, d - 1);
    int64_t a = pick(rng), b = pick(rng);
    if (a > b) std::swap(a, b);
    switch (rng() % 4) {
      case 0:
        r.push_back({0, d});
        break;
      case 1:
        r.push_back({0, b + 1});
        break;
      case 2:
        r.push_back({a, d});
        break;
      default:
        r.push_back({a, b + 1});
    }
  }
  return r;
}

}  // namespace dgs::test
