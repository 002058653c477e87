#pragma once
// Rounding-up division, shared by the models that count whole tiles, folds and cycles.
#include <cmath>
#include <cstdint>

namespace dgs {

// ceil(a / b) of integers (a >= 0, b > 0).
inline int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// ceil(a / b) of reals: the whole steps (cycles, folds) that an amount `a` takes at `b` a step.
inline double ceil_div_real(double a, double b) {
  return std::ceil(a / b);
}

}  // namespace dgs
