#pragma once
// The interpreter of tile programs (common/tileprog/tile_program.h), written once for host and
// device: every function is marked DGS_TP_HD (__host__ __device__ under nvcc, nothing
// otherwise), so the host build runs exactly the code the GPU kernel (common/cuda/
// tile_program.cu) runs, sequentially. That makes the interpreter testable without a GPU
// (tests/tileprog).
//
// Arithmetic is float32, except the sums of ReduceMean, GlobalAveragePool and Softmax, which are
// accumulated in double as the CPU reference executor accumulates them (a normalisation over
// statistics of up to 256x256 elements drifts by ~1e-4 in float sums, and deep layers amplify it
// past the checks' tolerance); products (MatMul, Gemm, Conv) accumulate in float, in another
// order than the reference's Eigen GEMMs, so results agree to float rounding (checked with a
// tolerance).
#include <math.h>
#include <stdint.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "common/tileprog/tile_program.h"
#include "common/util/error.h"

#if defined(__CUDACC__)
#define DGS_TP_HD __host__ __device__
#else
#define DGS_TP_HD
#endif

namespace dgs {

// What the interpreter sees while it computes one tile.
struct TpTileView {
  const TpOp* ops = nullptr;
  const int64_t* regions = nullptr;  // this tile's rows: ops x 2*kTpMaxRank
  float* scratch = nullptr;          // this block's scratch
  float* const* globals = nullptr;
  const int64_t* int_pool = nullptr;
};

// Element c of an operand is at base[bias + sum_d c[d] * st[d]] (c in full-tensor coordinates;
// for a scratch buffer the bias subtracts the region's origin).
struct TpAccess {
  const float* base = nullptr;
  int64_t bias = 0;
  int64_t st[kTpMaxRank] = {};
};

DGS_TP_HD inline TpAccess tp_access(const TpTileView& v, const TpOperand& x) {
  TpAccess a;
  int64_t s = 1;
  if (x.local) {
    const int64_t* reg = v.regions + static_cast<int64_t>(x.index) * 2 * kTpMaxRank;
    for (int d = x.rank - 1; d >= 0; --d) {
      a.st[d] = s;
      a.bias -= reg[d] * s;
      s *= reg[kTpMaxRank + d];
    }
    a.base = v.scratch + v.ops[x.index].scratch_offset;
  } else {
    for (int d = x.rank - 1; d >= 0; --d) {
      a.st[d] = s;
      s *= x.shape[d];
    }
    a.base = v.globals[x.index];
  }
  return a;
}

DGS_TP_HD inline int64_t tp_offset(const TpAccess& a, int rank, const int64_t* c) {
  int64_t off = a.bias;
  for (int d = 0; d < rank; ++d) off += c[d] * a.st[d];
  return off;
}

DGS_TP_HD inline float tp_read(const TpTileView& v, const TpOperand& x, const int64_t* c) {
  const TpAccess a = tp_access(v, x);
  return a.base[tp_offset(a, x.rank, c)];
}

// ONNX (NumPy) broadcasting: the coordinate of operand x read for output coordinate o.
DGS_TP_HD inline void tp_broadcast(const TpOperand& x, int out_rank, const int64_t* o, int64_t* c) {
  const int shift = out_rank - x.rank;
  for (int d = 0; d < x.rank; ++d) c[d] = x.shape[d] == 1 ? 0 : o[d + shift];
}

DGS_TP_HD inline float tp_reduce_mean(const TpTileView& v, const TpOp& op, const int64_t* o) {
  const TpOperand& x = op.in[0];
  const bool keep = op.ia[kTpMaxRank] != 0;
  int64_t c[kTpMaxRank] = {};
  int64_t count = 1;
  int od = 0;
  for (int d = 0; d < x.rank; ++d) {
    if (op.ia[d]) {
      c[d] = 0;
      count *= x.shape[d];
      if (keep) ++od;
    } else {
      c[d] = o[od++];
    }
  }
  const TpAccess a = tp_access(v, x);
  double acc = 0;
  for (int64_t k = 0; k < count; ++k) {
    acc += a.base[tp_offset(a, x.rank, c)];
    for (int d = x.rank - 1; d >= 0; --d) {
      if (!op.ia[d]) continue;
      if (++c[d] < x.shape[d]) break;
      c[d] = 0;
    }
  }
  return static_cast<float>(acc / static_cast<double>(count));
}

DGS_TP_HD inline float tp_global_average_pool(const TpTileView& v, const TpOp& op,
                                              const int64_t* o) {
  const TpOperand& x = op.in[0];
  int64_t c[kTpMaxRank] = {};
  c[0] = o[0];
  c[1] = o[1];
  int64_t count = 1;
  for (int d = 2; d < x.rank; ++d) {
    c[d] = 0;
    count *= x.shape[d];
  }
  const TpAccess a = tp_access(v, x);
  double acc = 0;
  for (int64_t k = 0; k < count; ++k) {
    acc += a.base[tp_offset(a, x.rank, c)];
    for (int d = x.rank - 1; d >= 2; --d) {
      if (++c[d] < x.shape[d]) break;
      c[d] = 0;
    }
  }
  return static_cast<float>(acc / static_cast<double>(count));
}

DGS_TP_HD inline float tp_softmax(const TpTileView& v, const TpOp& op, const int64_t* o) {
  const TpOperand& x = op.in[0];
  const int axis = static_cast<int>(op.ia[0]);
  const TpAccess a = tp_access(v, x);
  int64_t c[kTpMaxRank] = {};
  for (int d = 0; d < x.rank; ++d) c[d] = o[d];
  c[axis] = 0;
  const int64_t first = tp_offset(a, x.rank, c);
  const int64_t step = a.st[axis];
  const int64_t n = x.shape[axis];
  float m = -INFINITY;
  for (int64_t k = 0; k < n; ++k) m = fmaxf(m, a.base[first + k * step]);
  double s = 0;
  for (int64_t k = 0; k < n; ++k) s += expf(a.base[first + k * step] - m);
  return expf(a.base[first + o[axis] * step] - m) * static_cast<float>(1.0 / s);
}

DGS_TP_HD inline float tp_matmul(const TpTileView& v, const TpOp& op, const int64_t* o) {
  const TpOperand& x = op.in[0];
  const TpOperand& y = op.in[1];
  const int r = op.rank;
  int64_t ca[kTpMaxRank] = {}, cb[kTpMaxRank] = {};
  for (int d = 0; d + 2 < x.rank; ++d) ca[d] = x.shape[d] == 1 ? 0 : o[d + r - x.rank];
  for (int d = 0; d + 2 < y.rank; ++d) cb[d] = y.shape[d] == 1 ? 0 : o[d + r - y.rank];
  ca[x.rank - 2] = o[r - 2];
  ca[x.rank - 1] = 0;
  cb[y.rank - 2] = 0;
  cb[y.rank - 1] = o[r - 1];
  const TpAccess a = tp_access(v, x);
  const TpAccess b = tp_access(v, y);
  const float* pa = a.base + tp_offset(a, x.rank, ca);
  const float* pb = b.base + tp_offset(b, y.rank, cb);
  const int64_t sa = a.st[x.rank - 1], sb = b.st[y.rank - 2];
  const int64_t k_extent = x.shape[x.rank - 1];
  float acc = 0;
  for (int64_t k = 0; k < k_extent; ++k) acc += pa[k * sa] * pb[k * sb];
  return acc;
}

DGS_TP_HD inline float tp_gemm(const TpTileView& v, const TpOp& op, const int64_t* o) {
  const TpOperand& x = op.in[0];
  const TpOperand& y = op.in[1];
  const bool ta = op.ia[0] != 0, tb = op.ia[1] != 0;
  const TpAccess a = tp_access(v, x);
  const TpAccess b = tp_access(v, y);
  const int64_t m = o[0], n = o[1];
  // A(m, k) and B(k, n) through the transposition flags.
  const int64_t a0 = a.bias + (ta ? m * a.st[1] : m * a.st[0]);
  const int64_t sa = ta ? a.st[0] : a.st[1];
  const int64_t b0 = b.bias + (tb ? n * b.st[0] : n * b.st[1]);
  const int64_t sb = tb ? b.st[1] : b.st[0];
  const int64_t k_extent = ta ? x.shape[0] : x.shape[1];
  float acc = 0;
  for (int64_t k = 0; k < k_extent; ++k) acc += a.base[a0 + k * sa] * b.base[b0 + k * sb];
  float r = op.fa[0] * acc;
  if (op.num_inputs > 2) {
    int64_t c[kTpMaxRank] = {};
    tp_broadcast(op.in[2], 2, o, c);
    r += op.fa[1] * tp_read(v, op.in[2], c);
  }
  return r;
}

DGS_TP_HD inline float tp_conv(const TpTileView& v, const TpOp& op, const int64_t* o) {
  const TpOperand& x = op.in[0];
  const TpOperand& w = op.in[1];
  const int64_t sh = op.ia[0], sw = op.ia[1], pt = op.ia[2], pl = op.ia[3], dh = op.ia[4],
                dw = op.ia[5], groups = op.ia[6];
  const int64_t h = x.shape[2], wd = x.shape[3];
  const int64_t icg = w.shape[1], kr = w.shape[2], ks = w.shape[3];
  const int64_t ocg = op.shape[1] / groups;
  const int64_t g = o[1] / ocg;
  const TpAccess a = tp_access(v, x);
  const TpAccess b = tp_access(v, w);
  float acc = 0;
  for (int64_t ic = 0; ic < icg; ++ic) {
    const int64_t xc = a.bias + o[0] * a.st[0] + (g * icg + ic) * a.st[1];
    const int64_t wc = b.bias + o[1] * b.st[0] + ic * b.st[1];
    for (int64_t r = 0; r < kr; ++r) {
      const int64_t iy = o[2] * sh - pt + r * dh;
      if (iy < 0 || iy >= h) continue;
      for (int64_t s = 0; s < ks; ++s) {
        const int64_t ix = o[3] * sw - pl + s * dw;
        if (ix < 0 || ix >= wd) continue;
        acc += a.base[xc + iy * a.st[2] + ix * a.st[3]] * b.base[wc + r * b.st[2] + s * b.st[3]];
      }
    }
  }
  if (op.num_inputs > 2) {
    const int64_t c[1] = {o[1]};
    acc += tp_read(v, op.in[2], c);
  }
  return acc;
}

// One output element of `op` at full-tensor coordinate o.
DGS_TP_HD inline float tp_eval(const TpTileView& v, const TpOp& op, const int64_t* o) {
  int64_t c[kTpMaxRank] = {};
  switch (op.kind) {
    case TpKind::Add:
    case TpKind::Sub:
    case TpKind::Mul:
    case TpKind::Div:
    case TpKind::Pow: {
      tp_broadcast(op.in[0], op.rank, o, c);
      const float p = tp_read(v, op.in[0], c);
      tp_broadcast(op.in[1], op.rank, o, c);
      const float q = tp_read(v, op.in[1], c);
      switch (op.kind) {
        case TpKind::Add:
          return p + q;
        case TpKind::Sub:
          return p - q;
        case TpKind::Mul:
          return p * q;
        case TpKind::Div:
          return p / q;
        default:
          return powf(p, q);
      }
    }
    case TpKind::Sqrt:
    case TpKind::Erf:
    case TpKind::Relu:
    case TpKind::Sigmoid:
    case TpKind::Expand: {
      tp_broadcast(op.in[0], op.rank, o, c);
      const float p = tp_read(v, op.in[0], c);
      switch (op.kind) {
        case TpKind::Sqrt:
          return sqrtf(p);
        case TpKind::Erf:
          return erff(p);
        case TpKind::Relu:
          return p < 0.0f ? 0.0f : p;
        case TpKind::Sigmoid:
          return 1.0f / (1.0f + expf(-p));
        default:
          return p;
      }
    }
    case TpKind::ReduceMean:
      return tp_reduce_mean(v, op, o);
    case TpKind::GlobalAveragePool:
      return tp_global_average_pool(v, op, o);
    case TpKind::Softmax:
      return tp_softmax(v, op, o);
    case TpKind::MatMul:
      return tp_matmul(v, op, o);
    case TpKind::Gemm:
      return tp_gemm(v, op, o);
    case TpKind::Conv:
      return tp_conv(v, op, o);
    case TpKind::Reshape: {
      int64_t lin = 0;
      for (int d = 0; d < op.rank; ++d) lin = lin * op.shape[d] + o[d];
      const TpOperand& x = op.in[0];
      for (int d = x.rank - 1; d >= 0; --d) {
        c[d] = lin % x.shape[d];
        lin /= x.shape[d];
      }
      return tp_read(v, x, c);
    }
    case TpKind::Transpose:
      for (int d = 0; d < op.rank; ++d) c[op.ia[d]] = o[d];
      return tp_read(v, op.in[0], c);
    case TpKind::Slice:
      for (int d = 0; d < op.rank; ++d) c[d] = op.ia[d] + o[d] * op.ia[kTpMaxRank + d];
      return tp_read(v, op.in[0], c);
    case TpKind::Concat: {
      const int axis = static_cast<int>(op.ia[0]);
      int64_t start = 0;
      for (int k = 0; k < op.num_inputs; ++k) {
        const int64_t len = op.in[k].shape[axis];
        if (o[axis] < start + len || k + 1 == op.num_inputs) {
          for (int d = 0; d < op.rank; ++d) c[d] = o[d];
          c[axis] -= start;
          return tp_read(v, op.in[k], c);
        }
        start += len;
      }
      return 0.0f;
    }
    case TpKind::Gather: {
      const int axis = static_cast<int>(op.ia[0]);
      const int q = static_cast<int>(op.ia[3]);
      const TpOperand& x = op.in[0];
      int64_t lin = 0;
      for (int d = axis; d < axis + q; ++d) lin = lin * op.shape[d] + o[d];
      for (int d = 0; d < axis; ++d) c[d] = o[d];
      c[axis] = v.int_pool[op.ia[1] + lin];
      for (int d = axis + 1; d < x.rank; ++d) c[d] = o[d + q - 1];
      return tp_read(v, x, c);
    }
    case TpKind::DepthToSpace: {
      const int64_t b = op.ia[0];
      const int64_t co = op.shape[1];
      const int64_t dy = o[2] % b, dx = o[3] % b;
      c[0] = o[0];
      c[1] = op.ia[1] ? o[1] * b * b + dy * b + dx : (dy * b + dx) * co + o[1];
      c[2] = o[2] / b;
      c[3] = o[3] / b;
      return tp_read(v, op.in[0], c);
    }
  }
  return 0.0f;
}

// Elements first, first + step, ... of op i's output region of the view's tile: computed, then
// stored into the op's scratch buffer and/or its global tensor.
DGS_TP_HD inline void tp_run_op(const TpTileView& v, int i, int64_t first, int64_t step) {
  const TpOp& op = v.ops[i];
  const int64_t* reg = v.regions + static_cast<int64_t>(i) * 2 * kTpMaxRank;
  int64_t n = 1;
  for (int d = 0; d < op.rank; ++d) n *= reg[kTpMaxRank + d];
  for (int64_t e = first; e < n; e += step) {
    int64_t o[kTpMaxRank] = {};
    int64_t r = e;
    for (int d = op.rank - 1; d >= 0; --d) {
      o[d] = reg[d] + r % reg[kTpMaxRank + d];
      r /= reg[kTpMaxRank + d];
    }
    const float val = tp_eval(v, op, o);
    if (op.scratch_offset >= 0) v.scratch[op.scratch_offset + e] = val;
    if (op.out_global >= 0) {
      int64_t off = 0;
      for (int d = 0; d < op.rank; ++d) off = off * op.shape[d] + o[d];
      v.globals[op.out_global][off] = val;
    }
  }
}

// The view of tile t of program arrays (host or device copies of the same layout).
DGS_TP_HD inline TpTileView tp_tile_view(const TpOp* ops, int num_ops, const int64_t* regions,
                                         int64_t tile, float* scratch, float* const* globals,
                                         const int64_t* int_pool) {
  TpTileView v;
  v.ops = ops;
  v.regions = regions + tile * num_ops * 2 * kTpMaxRank;
  v.scratch = scratch;
  v.globals = globals;
  v.int_pool = int_pool;
  return v;
}

// Runs `p` on the host, sequentially, tile by tile: globals[i] points at global tensor i of the
// program (row-major, p.global_shapes[i]). The GPU kernel runs the same functions.
inline void run_tile_program_host(const TileProgram& p, const std::vector<float*>& globals,
                                  HostTileOrder order = HostTileOrder::Forward) {
  if (globals.size() != p.global_shapes.size())
    throw Error("tile program '" + p.name + "': " + std::to_string(globals.size()) +
                " global pointers for " + std::to_string(p.global_shapes.size()) + " tensors");
  std::vector<float> scratch(static_cast<size_t>(p.scratch_floats > 0 ? p.scratch_floats : 1));
  const int num_ops = static_cast<int>(p.ops.size());
  const bool adversarial = order == HostTileOrder::Adversarial;
  for (int64_t k = 0; k < p.tiles; ++k) {
    const int64_t t = adversarial ? p.tiles - 1 - k : k;
    if (adversarial)
      std::fill(scratch.begin(), scratch.end(), std::numeric_limits<float>::quiet_NaN());
    const TpTileView v = tp_tile_view(p.ops.data(), num_ops, p.regions.data(), t, scratch.data(),
                                      globals.data(), p.int_pool.data());
    for (int i = 0; i < num_ops; ++i) tp_run_op(v, i, 0, 1);
  }
}

}  // namespace dgs
