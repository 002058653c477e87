#include "common/exec/tensor_data.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

namespace dgs {

void check_tensor_data(const TensorData& t, const std::string& what) {
  if (t.size() != t.numel()) {
    throw Error(what + ": " + std::to_string(t.size()) + " values for " + tensor_data_str(t) +
                "; expected " + std::to_string(t.numel()));
  }
}

std::string tensor_data_str(const TensorData& t) {
  return std::string(dtype_name(t.dtype)) + shape_str(t.shape);
}

TensorData random_tensor(const Shape& shape, DType dtype, uint64_t seed, int64_t int_bound) {
  std::mt19937_64 rng(seed);
  TensorData t = TensorData::zeros(shape, dtype);
  if (t.is_float()) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& v : t.f) v = dist(rng);
    if (dtype == DType::F16) {
      for (float& v : t.f) v = round_to_half(v);
    }
  } else {
    const int64_t hi = dtype == DType::Bool ? 1 : std::max<int64_t>(int_bound, 1) - 1;
    std::uniform_int_distribution<int64_t> dist(0, hi);
    for (int64_t& v : t.i) v = dist(rng);
  }
  return t;
}

uint64_t tensor_seed(uint64_t seed, const std::string& name) {
  // FNV-1a of the name, then one splitmix64 round over (seed ^ hash).
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ull;
  }
  uint64_t z = seed ^ h;
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string Comparison::str() const {
  if (!shape_matches) return "shapes differ";
  char buf[256];
  std::snprintf(buf, sizeof buf, "max rel error %.3g at [%lld]: %.9g vs %.9g (%s, %lld failed)",
                max_error, static_cast<long long>(worst_index), worst_actual, worst_expected,
                passed ? "ok" : "FAIL", static_cast<long long>(num_failed));
  return buf;
}

Comparison compare_tensors(const TensorData& actual, const TensorData& expected, Tolerance tol) {
  Comparison c;
  if (actual.shape != expected.shape || actual.size() != expected.size() ||
      actual.size() != actual.numel()) {
    c.shape_matches = false;
    c.max_error = std::numeric_limits<double>::infinity();
    c.passed = false;
    return c;
  }
  const double floor = tol.atol / tol.rtol;
  const int64_t n = actual.size();
  for (int64_t k = 0; k < n; ++k) {
    const double a = actual.at(k);
    const double e = expected.at(k);
    double err;
    if (std::isnan(a) || std::isnan(e)) {
      err = (std::isnan(a) && std::isnan(e)) ? 0.0 : std::numeric_limits<double>::infinity();
    } else if (std::isinf(a) || std::isinf(e)) {
      err = a == e ? 0.0 : std::numeric_limits<double>::infinity();
    } else {
      err = std::fabs(a - e) / (std::fabs(e) + floor);
    }
    if (err > tol.rtol) ++c.num_failed;
    if (err > c.max_error || c.worst_index < 0) {
      c.max_error = std::max(c.max_error, err);
      c.worst_index = k;
      c.worst_actual = a;
      c.worst_expected = e;
    }
  }
  c.passed = c.num_failed == 0;
  return c;
}

float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: value = man * 2^-24
      const float v = std::ldexp(static_cast<float>(man), -24);
      return sign ? -v : v;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 112u) << 23) | (man << 13);
  }
  return std::bit_cast<float>(bits);
}

uint16_t float_to_half_bits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) {  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
  }
  if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (absx < 0x38800000u) {  // result is subnormal or zero: round |f| * 2^24 to an integer
    const float v = std::bit_cast<float>(absx) * 16777216.0f;
    const float r = std::nearbyint(v);  // default rounding mode: to nearest even
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(r));
  }
  // normal: drop 13 mantissa bits with round-to-nearest-even
  const uint32_t mant_lsb = (absx >> 13) & 1u;
  const uint32_t rounded = absx + 0xfffu + mant_lsb;
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

}  // namespace dgs
