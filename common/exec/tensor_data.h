#pragma once
// Host tensors with values: what the CPU reference executor computes on, what the ONNX test
// runner reads from `.pb` files, and what the CUDA executor's results are compared with.
//
// Values live in one of two vectors, chosen by dtype:
//   F32, F16   -> `f` (float16 values are widened to float; Cast to float16 rounds them)
//   I64, I32, Bool -> `i` (bool is 0/1)
//
// Comparison (one definition for the whole suite, see compare_tensors): an element passes when
//   |actual - expected| <= atol + rtol * |expected|          (numpy.allclose)
// and its error is reported as the "relative error"
//   err = |actual - expected| / (|expected| + atol / rtol),
// so that err <= rtol exactly when the element passes. Defaults: rtol = 1e-4, atol = 1e-5
// (kDefaultRtol, kDefaultAtol), i.e. a relative criterion for |expected| >> 0.1 and an absolute
// 1e-5 criterion near zero, where float32 round-off of sums makes relative error meaningless.
#include <cstdint>
#include <string>
#include <vector>

#include "common/graph/graph.h"

namespace dgs {

struct TensorData {
  Shape shape;
  DType dtype = DType::F32;
  std::vector<float> f;    // values when is_float()
  std::vector<int64_t> i;  // values when !is_float()

  bool is_float() const { return dtype == DType::F32 || dtype == DType::F16; }
  int64_t numel() const { return dgs::numel(shape); }
  // Number of stored values in the vector that the dtype selects.
  int64_t size() const {
    return is_float() ? static_cast<int64_t>(f.size()) : static_cast<int64_t>(i.size());
  }
  // True when no values are stored at all (a default-constructed TensorData). Note numel() of a
  // default TensorData is 1 (shape [] is a scalar), so numel() cannot tell "no tensor" apart.
  bool has_no_values() const { return f.empty() && i.empty(); }
  // Element `k` (row-major flat index) as a double, whatever the dtype.
  double at(int64_t k) const {
    return is_float() ? static_cast<double>(f[static_cast<size_t>(k)])
                      : static_cast<double>(i[static_cast<size_t>(k)]);
  }

  static TensorData floats(Shape s, std::vector<float> v) {
    TensorData t;
    t.shape = std::move(s);
    t.dtype = DType::F32;
    t.f = std::move(v);
    return t;
  }
  static TensorData ints(Shape s, std::vector<int64_t> v, DType dt = DType::I64) {
    TensorData t;
    t.shape = std::move(s);
    t.dtype = dt;
    t.i = std::move(v);
    return t;
  }
  // Zero-filled tensor of the given shape and dtype.
  static TensorData zeros(Shape s, DType dt = DType::F32) {
    TensorData t;
    t.dtype = dt;
    const auto n = static_cast<size_t>(dgs::numel(s));
    if (t.is_float()) {
      t.f.assign(n, 0.0f);
    } else {
      t.i.assign(n, 0);
    }
    t.shape = std::move(s);
    return t;
  }
};

// Throws dgs::Error naming `what` if the stored value count does not match the shape.
void check_tensor_data(const TensorData& t, const std::string& what);

// "float32[1,3,4,4]".
std::string tensor_data_str(const TensorData& t);

// --- random values ----------------------------------------------------------------------------
// Deterministic random values from `seed` (std::mt19937_64): floats uniform in [-1, 1]; integers
// uniform in [0, int_bound) (int_bound >= 1); bools 0/1.
TensorData random_tensor(const Shape& shape, DType dtype, uint64_t seed, int64_t int_bound = 2);

// A seed for tensor `name` derived from `seed`: random inputs are keyed by tensor name, so a
// transformed graph (merged convolutions, split instances) that keeps its input and weight names
// gets the same random values as the original graph.
uint64_t tensor_seed(uint64_t seed, const std::string& name);

// --- comparison -------------------------------------------------------------------------------
inline constexpr double kDefaultRtol = 1e-4;  // relative tolerance of every CPU-reference check
inline constexpr double kDefaultAtol = 1e-5;  // absolute tolerance near zero (float32 round-off)

struct Tolerance {
  double rtol = kDefaultRtol;
  double atol = kDefaultAtol;
};

// Whole networks whose operators were evaluated in another order (region by region, tile by tile:
// Eigen blocks each GEMM by its size, so sums round differently) compound float32 rounding over
// tens of layers: 1e-3 relative. Used only where a test runs a scheduled network end to end.
inline constexpr Tolerance kNetworkTolerance{1e-3, 1e-5};

struct Comparison {
  bool shape_matches = true;  // false: shapes or element counts differ (max_error is infinite)
  double max_error = 0.0;     // max over elements of |a - e| / (|e| + atol / rtol)
  int64_t worst_index = -1;   // flat index of the worst element (-1 when none)
  double worst_actual = 0.0;
  double worst_expected = 0.0;
  int64_t num_failed = 0;  // elements with error > rtol
  bool passed = true;      // shape_matches && num_failed == 0

  std::string str() const;  // one line: "max rel error 3.2e-06 at [17]: 0.51 vs 0.51 (ok)"
};

// Compares `actual` with `expected` elementwise as described at the top of this file. NaN equals
// NaN, +inf equals +inf; any other NaN or inf mismatch has infinite error.
Comparison compare_tensors(const TensorData& actual, const TensorData& expected,
                           Tolerance tol = {});

// --- float16 ----------------------------------------------------------------------------------
float half_bits_to_float(uint16_t h);
uint16_t float_to_half_bits(float f);  // round to nearest even
inline float round_to_half(float f) {
  return half_bits_to_float(float_to_half_bits(f));
}

}  // namespace dgs
