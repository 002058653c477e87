// The host-side half of library_kernels.h: FP16 rounding, and the argument checks that decide
// which library kernel runs what. CUDA-free: compiled in every build (the CPU tests run it).
#include "common/cuda/library_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/graph/window.h"
#include "common/util/error.h"

namespace dgs::gpu {

uint16_t f32_to_f16_bits(float x) {
  uint32_t f = 0;
  std::memcpy(&f, &x, sizeof f);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t exp = (f >> 23) & 0xFFu;
  const uint32_t mant = f & 0x7FFFFFu;
  if (exp == 0xFFu) return static_cast<uint16_t>(sign | 0x7C00u | (mant ? 0x200u : 0u));
  const int e = static_cast<int>(exp) - 127 + 15;  // the biased FP16 exponent
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7C00u);
  // The value in units of the last kept bit, and the bits dropped below it.
  uint32_t kept = 0, rem = 0, half = 0;
  if (e >= 1) {  // normal: keep 10 of the 23 mantissa bits
    kept = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
    rem = mant & 0x1FFFu;
    half = 0x1000u;
  } else {  // subnormal (or zero): units of 2^-24, the implicit bit made explicit
    const int shift = 14 - e;
    if (shift > 24) return static_cast<uint16_t>(sign);
    const uint32_t full = mant | (exp ? 0x800000u : 0u);
    kept = full >> shift;
    rem = full & ((1u << shift) - 1u);
    half = 1u << (shift - 1);
  }
  if (rem > half || (rem == half && (kept & 1u))) ++kept;  // nearest, ties to even; may carry
  return static_cast<uint16_t>(sign | kept);
}

float f16_bits_to_f32(uint16_t h) {
  const uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  uint32_t f = 0;
  if (exp == 0) {
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) {
    f = sign | 0x7F800000u | (mant << 13);
  } else {
    f = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float x = 0;
  std::memcpy(&x, &f, sizeof x);
  return x;
}

TensorValues round_values_to_f16(const TensorValues& values) {
  TensorValues out = values;
  for (auto& [t, d] : out) {
    if (d.dtype != DType::F32) continue;
    for (float& v : d.f) v = round_to_f16(v);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

BlasOperand blas_operand(const MatrixArg& m, int64_t rows, int64_t cols, const std::string& name) {
  if (m.col_stride == 1 && (rows == 1 || m.row_stride >= cols))
    return {false, std::max(m.row_stride, cols)};
  if (m.row_stride == 1 && (cols == 1 || m.col_stride >= rows))
    return {true, std::max(m.col_stride, rows)};
  throw Error("cuBLAS GEMM: operand " + name + " [" + std::to_string(rows) + " x " +
              std::to_string(cols) + "] has strides (" + std::to_string(m.row_stride) + ", " +
              std::to_string(m.col_stride) +
              "): cuBLAS needs a unit stride along one dimension and a leading dimension at "
              "least the other extent");
}

uint32_t blas_alignment(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  uint32_t al = 256;
  while (al > 1 && a % al != 0) al /= 2;
  return al;
}

std::string blas_gemm_unsupported(int64_t batch, int64_t m, int64_t n, int64_t k,
                                  const MatrixArg& a, const MatrixArg& b, const OutMatrixArg& c,
                                  const Epilogue& e) {
  if (batch < 1 || m < 1 || n < 1 || k < 1)
    return "sizes batch " + std::to_string(batch) + ", m " + std::to_string(m) + ", n " +
           std::to_string(n) + ", k " + std::to_string(k) + " must be positive";
  try {
    (void)blas_operand(a, m, k, "A");
    (void)blas_operand(b, k, n, "B");
  } catch (const Error& err) {
    return err.what();
  }
  if (c.col_stride != 1 || (m > 1 && c.row_stride < n))
    return "the output must be row-major with unit column stride (strides " +
           std::to_string(c.row_stride) + ", " + std::to_string(c.col_stride) + ")";
  const int64_t ldc = std::max(c.row_stride, n);
  if (batch > 1 && c.batch_stride < (m - 1) * ldc + n)
    return "output batch stride " + std::to_string(c.batch_stride) +
           " overlaps the batch's matrices";
  if (e.act == Activation::Gelu)
    return "GELU epilogue: cuBLASLt's GELU epilogue does not state its formula, the suite's Gelu "
           "is the erf form (run it as its own kernel)";
  if (e.bias && e.bias_batch_stride != 0)
    return "a per-batch bias (bias batch stride " + std::to_string(e.bias_batch_stride) + ")";
  return "";
}

// ---------------------------------------------------------------------------------------------

namespace {

constexpr int64_t kMaxInt32Elements = std::numeric_limits<int32_t>::max();

std::string dims(int64_t a, int64_t b, int64_t c, int64_t d) {
  std::string s = "[";  // appended, not "[" + ...: GCC 12's -Wrestrict misfires on the latter
  for (int64_t v : {a, b, c, d}) {
    if (s.size() > 1) s += ", ";
    s += std::to_string(v);
  }
  return s + "]";
}

}  // namespace

Conv2dShape conv2d_shape_of(const Graph& g, int op) {
  const Op& o = g.op(op);
  if (o.kind != OpKind::Conv || o.inputs.size() < 2)
    throw Error("op '" + o.name + "' is not a convolution");
  const Shape& x = g.tensor(o.inputs[0]).shape;
  const Shape& w = g.tensor(o.inputs[1]).shape;
  const Shape& y = g.tensor(o.outputs.at(0)).shape;
  if (x.size() != 4 || w.size() != 4 || y.size() != 4)
    throw Error("convolution '" + o.name + "' is not 2-D (NCHW)");
  const Window win = resolve_window(g, op);
  Conv2dShape s;
  s.n = x[0], s.c = x[1], s.h = x[2], s.w = x[3];
  s.out_c = w[0], s.r = w[2], s.s = w[3];
  s.out_h = y[2], s.out_w = y[3];
  s.stride_h = win.strides[0], s.stride_w = win.strides[1];
  s.pad_top = win.pads_begin[0], s.pad_left = win.pads_begin[1];
  s.dil_h = win.dilations[0], s.dil_w = win.dilations[1];
  s.groups = o.attrs.get_int("group", 1);
  return s;
}

std::string cutlass_conv2d_f16_unsupported(const Conv2dShape& s) {
  if (s.n < 1 || s.c < 1 || s.h < 1 || s.w < 1 || s.out_c < 1 || s.r < 1 || s.s < 1 ||
      s.out_h < 1 || s.out_w < 1 || s.stride_h < 1 || s.stride_w < 1 || s.pad_top < 0 ||
      s.pad_left < 0)
    return "sizes, strides and padding must be positive (padding non-negative)";
  if (s.groups != 1) return "grouped convolution (" + std::to_string(s.groups) + " groups)";
  if (s.dil_h != 1 || s.dil_w != 1) return "dilated convolution";
  const int64_t oh = (s.h + 2 * s.pad_top - s.r) / s.stride_h + 1;
  const int64_t ow = (s.w + 2 * s.pad_left - s.s) / s.stride_w + 1;
  if (s.h + 2 * s.pad_top < s.r || s.w + 2 * s.pad_left < s.s || oh != s.out_h || ow != s.out_w)
    return "output " + std::to_string(s.out_h) + "x" + std::to_string(s.out_w) +
           " is not the symmetric padding's " + std::to_string(oh) + "x" + std::to_string(ow);
  if (s.c % kF16ChannelAlignment != 0 || s.out_c % kF16ChannelAlignment != 0)
    return "channels " + std::to_string(s.c) + " -> " + std::to_string(s.out_c) +
           " are not multiples of " + std::to_string(kF16ChannelAlignment) +
           " (128-bit FP16 accesses)";
  for (int64_t e :
       {s.n * s.h * s.w * s.c, s.out_c * s.r * s.s * s.c, s.n * s.out_h * s.out_w * s.out_c})
    if (e > kMaxInt32Elements) return "a tensor of " + std::to_string(e) + " elements (over 2^31)";
  return "";
}

std::string cutlass_conv2d_f16_kernel(const Conv2dShape& s) {
  // common/cuda/cutlass/cutlass_conv_f16.cu instantiates exactly these two tiles.
  return s.out_c <= 64 ? "fprop 128x64x64" : "fprop 128x128x64";
}

std::string B2bConvConfig::str() const {
  return "b2b " + std::to_string(width) + "ch " + (smem_resident ? "smem" : "rf") + " " +
         std::to_string(tile_m) + "px " + std::to_string(warps) + "w";
}

std::vector<B2bConvConfig> cutlass_b2b_configs() {
  // common/cuda/cutlass/cutlass_b2b_conv.cu instantiates exactly these (a test checks the
  // list against it on a GPU). 64 channels: conv0's accumulators stay in registers (each warp
  // spans all 64 channels); wider: stitched through shared memory, each warp a 64-channel slice.
  return {{64, false, 64, 2}, {128, true, 64, 4}, {256, true, 64, 4}, {512, true, 64, 8}};
}

std::string cutlass_b2b_unsupported(const Conv2dShape& c0, const Conv2dShape& c1) {
  if (std::string why = cutlass_conv2d_f16_unsupported(c0); !why.empty()) return "conv0: " + why;
  if (std::string why = cutlass_conv2d_f16_unsupported(c1); !why.empty()) return "conv1: " + why;
  if (c1.r != 1 || c1.s != 1 || c1.stride_h != 1 || c1.stride_w != 1 || c1.pad_top != 0 ||
      c1.pad_left != 0)
    return "conv1 is " + std::to_string(c1.r) + "x" + std::to_string(c1.s) +
           ": the fusion needs a 1x1, stride-1, unpadded second convolution (no halo)";
  if (c1.n != c0.n || c1.h != c0.out_h || c1.w != c0.out_w || c1.c != c0.out_c)
    return "conv1's input " + dims(c1.n, c1.h, c1.w, c1.c) + " is not conv0's output " +
           dims(c0.n, c0.out_h, c0.out_w, c0.out_c);
  std::string widths;
  for (const B2bConvConfig& cfg : cutlass_b2b_configs()) {
    if (cfg.width == c0.out_c && cfg.width == c1.out_c) return "";
    widths += (widths.empty() ? "" : ", ") + std::to_string(cfg.width);
  }
  return "output channels " + std::to_string(c0.out_c) + " -> " + std::to_string(c1.out_c) +
         ": the fusion is instantiated for equal widths " + widths;
}

B2bConvConfig cutlass_b2b_config(const Conv2dShape& c0, const Conv2dShape& c1) {
  if (std::string why = cutlass_b2b_unsupported(c0, c1); !why.empty())
    throw Error("CUTLASS back-to-back convolution: " + why);
  for (const B2bConvConfig& cfg : cutlass_b2b_configs())
    if (cfg.width == c0.out_c) return cfg;
  throw Error("CUTLASS back-to-back convolution: no instantiation");  // unreachable
}

// ---------------------------------------------------------------------------------------------

std::string CutlassSoftmaxTile::str() const {
  return "cutlass " + std::to_string(bm) + "x" + std::to_string(n_max);
}

std::vector<CutlassSoftmaxTile> cutlass_gemm_softmax_tiles() {
  // common/cuda/cutlass/cutlass_gemm_softmax.cu instantiates exactly these.
  return {{32, 128}, {64, 128}};
}

std::string cutlass_gemm_softmax_unsupported(const CutlassSoftmaxTile& t, int64_t m, int64_t n,
                                             int64_t k) {
  const std::vector<CutlassSoftmaxTile> tiles = cutlass_gemm_softmax_tiles();
  if (std::find(tiles.begin(), tiles.end(), t) == tiles.end())
    return "tile " + t.str() + " is not instantiated";
  if (m < 1 || n < 1 || k < 1)
    return "sizes m " + std::to_string(m) + ", n " + std::to_string(n) + ", k " +
           std::to_string(k) + " must be positive";
  if (n > t.n_max)
    return "rows of " + std::to_string(n) + " columns exceed the tile's " +
           std::to_string(t.n_max) + " (a row's softmax stays in one threadblock)";
  for (int64_t e : {m * k, k * n, m * n})
    if (e > kMaxInt32Elements) return "a matrix of " + std::to_string(e) + " elements (over 2^31)";
  return "";
}

}  // namespace dgs::gpu
