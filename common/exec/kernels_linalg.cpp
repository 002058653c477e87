// Eigen-backed kernels of the CPU reference executor (the only translation unit with Eigen).
#include <Eigen/Core>
#include <algorithm>
#include <cstring>

#include "common/exec/kernels.h"

namespace dgs {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMap = Eigen::Map<RowMatrix>;
using ConstRowMap = Eigen::Map<const RowMatrix>;

// Geometry padded to 3 spatial dims (leading dims of size 1), so one loop nest serves 1-D/2-D/3-D.
struct Geo3 {
  int64_t in[3], out[3], k[3], s[3], d[3], pb[3];
};

Geo3 to_geo3(const Shape& in_spatial, const Window& g) {
  Geo3 r{};
  const size_t nd = in_spatial.size();
  const size_t off = 3 - nd;
  for (size_t i = 0; i < 3; ++i) {
    r.in[i] = r.out[i] = r.k[i] = r.s[i] = r.d[i] = 1;
    r.pb[i] = 0;
  }
  for (size_t i = 0; i < nd; ++i) {
    r.in[off + i] = in_spatial[i];
    r.out[off + i] = g.out_spatial[i];
    r.k[off + i] = g.kernel[i];
    r.s[off + i] = g.strides[i];
    r.d[off + i] = g.dilations[i];
    r.pb[off + i] = g.pads_begin[i];
  }
  return r;
}

int64_t prod3(const int64_t v[3]) {
  return v[0] * v[1] * v[2];
}

// Columns of one image and group: col[(c, ka, kb, kc), (od, oh, ow)] = x[c, id, ih, iw] or 0.
void im2col(const float* x, int64_t channels, const Geo3& g, float* col) {
  const int64_t ow_n = g.out[2];
  const int64_t p = prod3(g.out);
  const int64_t in_plane = g.in[1] * g.in[2];
  const int64_t in_chan = g.in[0] * in_plane;
  int64_t row = 0;
  for (int64_t c = 0; c < channels; ++c) {
    const float* xc = x + c * in_chan;
    for (int64_t ka = 0; ka < g.k[0]; ++ka) {
      for (int64_t kb = 0; kb < g.k[1]; ++kb) {
        for (int64_t kc = 0; kc < g.k[2]; ++kc, ++row) {
          float* dst = col + row * p;
          // Output columns ow whose input column iw = ow*s - pb + kc*d lies in [0, W).
          const int64_t base = kc * g.d[2] - g.pb[2];
          int64_t lo = base >= 0 ? 0 : (-base + g.s[2] - 1) / g.s[2];
          int64_t hi = g.in[2] - base <= 0 ? 0 : (g.in[2] - base + g.s[2] - 1) / g.s[2];
          lo = std::min(lo, ow_n);
          hi = std::clamp(hi, lo, ow_n);
          for (int64_t od = 0; od < g.out[0]; ++od) {
            const int64_t id = od * g.s[0] - g.pb[0] + ka * g.d[0];
            for (int64_t oh = 0; oh < g.out[1]; ++oh, dst += ow_n) {
              const int64_t ih = oh * g.s[1] - g.pb[1] + kb * g.d[1];
              if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
                std::fill(dst, dst + ow_n, 0.0f);
                continue;
              }
              const float* src = xc + id * in_plane + ih * g.in[2] + base;
              std::fill(dst, dst + lo, 0.0f);
              if (g.s[2] == 1) {
                std::memcpy(dst + lo, src + lo, static_cast<size_t>(hi - lo) * sizeof(float));
              } else {
                for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = src[ow * g.s[2]];
              }
              std::fill(dst + hi, dst + ow_n, 0.0f);
            }
          }
        }
      }
    }
  }
}

// Accumulates columns into an image: y[c, od*s - pb + ka*d, ...] += col[(c, ka, kb, kc), (od..)],
// where (od, oh, ow) range over the *input* positions of the transposed convolution.
void col2im(const float* col, int64_t channels, const Geo3& g, float* y) {
  // Here g.in is the transposed conv's input (the GEMM's columns), g.out its output image.
  const int64_t p = prod3(g.in);
  const int64_t out_plane = g.out[1] * g.out[2];
  const int64_t out_chan = g.out[0] * out_plane;
  int64_t row = 0;
  for (int64_t c = 0; c < channels; ++c) {
    float* yc = y + c * out_chan;
    for (int64_t ka = 0; ka < g.k[0]; ++ka) {
      for (int64_t kb = 0; kb < g.k[1]; ++kb) {
        for (int64_t kc = 0; kc < g.k[2]; ++kc, ++row) {
          const float* src = col + row * p;
          for (int64_t id = 0; id < g.in[0]; ++id) {
            const int64_t od = id * g.s[0] - g.pb[0] + ka * g.d[0];
            for (int64_t ih = 0; ih < g.in[1]; ++ih, src += g.in[2]) {
              const int64_t oh = ih * g.s[1] - g.pb[1] + kb * g.d[1];
              if (od < 0 || od >= g.out[0] || oh < 0 || oh >= g.out[1]) continue;
              float* dst = yc + od * out_plane + oh * g.out[2];
              for (int64_t iw = 0; iw < g.in[2]; ++iw) {
                const int64_t ow = iw * g.s[2] - g.pb[2] + kc * g.d[2];
                if (ow >= 0 && ow < g.out[2]) dst[ow] += src[iw];
              }
            }
          }
        }
      }
    }
  }
}

void add_bias(float* y, const TensorData* bias, int64_t n, int64_t m, int64_t p) {
  if (!bias) return;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t c = 0; c < m; ++c) {
      float* row = y + (b * m + c) * p;
      const float v = bias->f[static_cast<size_t>(c)];
      for (int64_t j = 0; j < p; ++j) row[j] += v;
    }
  }
}

}  // namespace

TensorData conv_forward(const TensorData& x, const TensorData& w, const TensorData* bias,
                        const Window& geo) {
  const int64_t n = x.shape[0], c = x.shape[1], m = w.shape[0];
  const int64_t groups = geo.group;
  const int64_t cg = c / groups, mg = m / groups;
  const Shape in_spatial(x.shape.begin() + 2, x.shape.end());
  const Geo3 g = to_geo3(in_spatial, geo);
  const int64_t kprod = prod3(g.k);
  const int64_t krows = cg * kprod;
  const int64_t p = prod3(g.out);
  const int64_t in_img = c * prod3(g.in);

  Shape out_shape = {n, m};
  out_shape.insert(out_shape.end(), geo.out_spatial.begin(), geo.out_spatial.end());
  TensorData y = TensorData::zeros(out_shape);

  // A 1x1 convolution with unit stride and no padding reads the image itself as its columns.
  bool direct = kprod == 1;
  for (int i = 0; i < 3; ++i) direct = direct && g.s[i] == 1 && g.pb[i] == 0 && g.out[i] == g.in[i];
  std::vector<float> col(direct ? 0 : static_cast<size_t>(krows * p));

  for (int64_t b = 0; b < n; ++b) {
    for (int64_t gi = 0; gi < groups; ++gi) {
      const float* xg = x.f.data() + b * in_img + gi * cg * prod3(g.in);
      const float* cols = xg;
      if (!direct) {
        im2col(xg, cg, g, col.data());
        cols = col.data();
      }
      ConstRowMap wg(w.f.data() + gi * mg * krows, mg, krows);
      ConstRowMap cm(cols, krows, p);
      RowMap yg(y.f.data() + (b * m + gi * mg) * p, mg, p);
      yg.noalias() = wg * cm;
    }
  }
  add_bias(y.f.data(), bias, n, m, p);
  return y;
}

TensorData conv_transpose_forward(const TensorData& x, const TensorData& w, const TensorData* bias,
                                  const Window& geo) {
  const int64_t n = x.shape[0], c = x.shape[1];
  const int64_t groups = geo.group;
  const int64_t cg = c / groups;
  const int64_t mg = w.shape[1];
  const int64_t m = mg * groups;
  const Shape in_spatial(x.shape.begin() + 2, x.shape.end());
  const Geo3 g = to_geo3(in_spatial, geo);
  const int64_t kprod = prod3(g.k);
  const int64_t rows = mg * kprod;
  const int64_t p_in = prod3(g.in);
  const int64_t p_out = prod3(g.out);

  Shape out_shape = {n, m};
  out_shape.insert(out_shape.end(), geo.out_spatial.begin(), geo.out_spatial.end());
  TensorData y = TensorData::zeros(out_shape);
  RowMatrix col(rows, p_in);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t gi = 0; gi < groups; ++gi) {
      ConstRowMap wg(w.f.data() + gi * cg * rows, cg, rows);
      ConstRowMap xg(x.f.data() + (b * c + gi * cg) * p_in, cg, p_in);
      col.noalias() = wg.transpose() * xg;
      col2im(col.data(), mg, g, y.f.data() + (b * m + gi * mg) * p_out);
    }
  }
  add_bias(y.f.data(), bias, n, m, p_out);
  return y;
}

TensorData matmul_forward(const TensorData& a, const TensorData& b) {
  Shape sa = a.shape, sb = b.shape;
  const bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  if (a_vec) sa.insert(sa.begin(), 1);
  if (b_vec) sb.push_back(1);
  if (sa.size() < 2 || sb.size() < 2) throw Error("MatMul: scalar operands; expected rank >= 1");
  const int64_t mrows = sa[sa.size() - 2], k = sa.back();
  const int64_t k2 = sb[sb.size() - 2], ncols = sb.back();
  if (k != k2) {
    throw Error("MatMul: inner dimensions differ (" + shape_str(a.shape) + " x " +
                shape_str(b.shape) + ")");
  }
  const Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  const Shape batch = broadcast_shapes(ba, bb, "MatMul batch dimensions");
  Shape out = batch;
  if (!a_vec) out.push_back(mrows);
  if (!b_vec) out.push_back(ncols);
  TensorData y = TensorData::zeros(out);
  const int64_t nb = numel(batch);
  // Batch offsets of a and b for each broadcast batch index.
  const size_t r = batch.size();
  std::vector<int64_t> idx(r, 0);
  for (int64_t t = 0; t < nb; ++t) {
    int64_t oa = 0, ob = 0, sa_stride = 1, sb_stride = 1;
    for (size_t i = r; i-- > 0;) {
      const size_t ia = i + ba.size() - r, ib = i + bb.size() - r;
      if (i + ba.size() >= r) {
        const int64_t dim = ba[ia];
        oa += (dim == 1 ? 0 : idx[i]) * sa_stride;
        sa_stride *= dim;
      }
      if (i + bb.size() >= r) {
        const int64_t dim = bb[ib];
        ob += (dim == 1 ? 0 : idx[i]) * sb_stride;
        sb_stride *= dim;
      }
    }
    ConstRowMap am(a.f.data() + oa * mrows * k, mrows, k);
    ConstRowMap bm(b.f.data() + ob * k * ncols, k, ncols);
    RowMap ym(y.f.data() + t * mrows * ncols, mrows, ncols);
    ym.noalias() = am * bm;
    for (size_t i = r; i-- > 0;) {
      if (++idx[i] < batch[i]) break;
      idx[i] = 0;
    }
  }
  return y;
}

TensorData gemm_forward(const TensorData& a, const TensorData& b, const TensorData* c, double alpha,
                        double beta, bool trans_a, bool trans_b) {
  if (a.shape.size() != 2 || b.shape.size() != 2) {
    throw Error("Gemm: operands " + shape_str(a.shape) + " and " + shape_str(b.shape) +
                "; expected matrices");
  }
  ConstRowMap am(a.f.data(), a.shape[0], a.shape[1]);
  ConstRowMap bm(b.f.data(), b.shape[0], b.shape[1]);
  const int64_t mrows = trans_a ? a.shape[1] : a.shape[0];
  const int64_t ncols = trans_b ? b.shape[0] : b.shape[1];
  TensorData y = TensorData::zeros({mrows, ncols});
  RowMap ym(y.f.data(), mrows, ncols);
  const float al = static_cast<float>(alpha);
  if (trans_a && trans_b) {
    ym.noalias() = al * (am.transpose() * bm.transpose());
  } else if (trans_a) {
    ym.noalias() = al * (am.transpose() * bm);
  } else if (trans_b) {
    ym.noalias() = al * (am * bm.transpose());
  } else {
    ym.noalias() = al * (am * bm);
  }
  if (c && beta != 0.0) {
    // Unidirectional broadcast of C to [M, N].
    const Shape& cs = c->shape;
    const int64_t cr = cs.size() >= 2 ? cs[cs.size() - 2] : 1;
    const int64_t cc = cs.empty() ? 1 : cs.back();
    const float be = static_cast<float>(beta);
    for (int64_t i = 0; i < mrows; ++i) {
      for (int64_t j = 0; j < ncols; ++j) {
        const int64_t ci = (cr == 1 ? 0 : i) * cc + (cc == 1 ? 0 : j);
        ym(i, j) += be * c->f[static_cast<size_t>(ci)];
      }
    }
  }
  return y;
}

}  // namespace dgs
