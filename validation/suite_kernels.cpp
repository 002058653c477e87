// The suite's CUDA kernels as the GPU model's suite-kernel families see them (suite_kernels.h).
#include "validation/suite_kernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "common/cuda/tile_program_gpu.h"
#include "common/util/error.h"

namespace dgs::validation {

namespace {

constexpr double kFloat = 4;  // bytes
constexpr int kWarp = 32;

int64_t cdiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

std::string dims(int64_t m, int64_t n, int64_t k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

// The shared main loop of gemm_mainloop.cuh for a bm x bn x bk tile of tm x tn per thread.
void main_loop(SuiteKernel& s, int bm, int bn, int bk, int tm, int tn, int64_t k) {
  const double threads = static_cast<double>((bm / tm) * (bn / tn));
  s.threads = (bm / tm) * (bn / tn);
  s.steps = cdiv(k, bk);
  s.fma_per_step = static_cast<double>(tm) * tn * bk;
  s.shared_loads_per_step = static_cast<double>(tm + tn) * bk;
  s.loads_a_per_step = static_cast<double>(bm) * bk / threads;
  s.loads_b_per_step = static_cast<double>(bk) * bn / threads;
  s.outputs_per_thread = static_cast<double>(tm) * tn;
}

// Executed FLOPs: every thread's multiply-adds of every step (partial tiles included).
double executed_flops(const SuiteKernel& s) {
  return 2.0 * static_cast<double>(s.grid_blocks) * s.threads * static_cast<double>(s.steps) *
         s.fma_per_step;
}

}  // namespace

int gemm_registers(const gpu::GemmTile& t, bool conv) {
  if (t == gpu::GemmTile{32, 64, 8, 2, 4}) return conv ? 78 : 62;
  if (t == gpu::GemmTile{64, 64, 8, 4, 4}) return conv ? 64 : 80;
  if (t == gpu::GemmTile{128, 64, 8, 8, 4}) return conv ? 90 : 110;
  throw Error("suite kernels: no register count for GEMM tile " + t.str());
}

int gemm_softmax_registers(const gpu::SoftmaxTile& t) {
  if (t == gpu::SoftmaxTile{8, 64, 8, 1, 4}) return 64;
  if (t == gpu::SoftmaxTile{16, 128, 8, 1, 8}) return 64;
  if (t == gpu::SoftmaxTile{32, 128, 8, 2, 8}) return 80;
  throw Error("suite kernels: no register count for gemm_softmax tile " + t.str());
}

int mlp_chain_registers(int rows_per_block) {
  return rows_per_block <= 16 ? 48 : 64;
}

SuiteKernel gemm_kernel(const gpu::GemmTile& t, int64_t batch, int64_t m, int64_t n, int64_t k,
                        bool b_batched) {
  SuiteKernel s;
  s.family = "suite_gemm";
  s.name = "gemm " + t.str() + " " + (batch > 1 ? std::to_string(batch) + "x" : "") + dims(m, n, k);
  main_loop(s, t.bm, t.bn, t.bk, t.tm, t.tn, k);
  s.grid_blocks = cdiv(m, t.bm) * cdiv(n, t.bn) * batch;
  s.registers = gemm_registers(t, false);
  s.shared_bytes = static_cast<int64_t>(kFloat) * (t.bk * (t.bm + 1) + t.bk * t.bn);
  s.flops = executed_flops(s);
  const double b = static_cast<double>(batch);
  s.dram_bytes = kFloat * (b * m * k + (b_batched ? b : 1.0) * k * n + b * m * n);
  s.l2_bytes = s.dram_bytes +
               kFloat * static_cast<double>(s.grid_blocks) * (t.bm + t.bn) * static_cast<double>(k);
  return s;
}

SuiteKernel conv_kernel(const gpu::GemmTile& t, const gpu::Conv2dShape& c) {
  const int64_t m = c.n * c.out_h * c.out_w, n = c.out_c / c.groups, k = c.c / c.groups * c.r * c.s;
  SuiteKernel s = gemm_kernel(t, c.groups, m, n, k, true);
  s.family = "suite_conv_implicit_gemm";
  s.name = "conv " + t.str() + " " + std::to_string(c.n) + "x" + std::to_string(c.c) + "x" +
           std::to_string(c.h) + "x" + std::to_string(c.w) + " k" + std::to_string(c.r) + "x" +
           std::to_string(c.s) + " -> " + std::to_string(c.out_c);
  s.registers = gemm_registers(t, true);
  s.dram_bytes = kFloat * static_cast<double>(c.n * c.c * c.h * c.w + c.out_c * k + c.out_c +
                                              c.n * c.out_c * c.out_h * c.out_w);
  s.l2_bytes = s.dram_bytes +
               kFloat * static_cast<double>(s.grid_blocks) * (t.bm + t.bn) * static_cast<double>(k);
  return s;
}

SuiteKernel gemm_softmax_kernel(const gpu::SoftmaxTile& t, int64_t batch, int64_t m, int64_t n,
                                int64_t k, bool b_batched, bool mask) {
  SuiteKernel s;
  s.family = "suite_gemm_softmax";
  s.name = "gemm_softmax " + t.str() + " " + (batch > 1 ? std::to_string(batch) + "x" : "") +
           dims(m, n, k) + (mask ? " masked" : "");
  main_loop(s, t.bm, t.n_max, t.bk, t.tm, t.tn, k);
  s.grid_blocks = cdiv(m, t.bm) * batch;
  s.registers = gemm_softmax_registers(t);
  s.shared_bytes =
      static_cast<int64_t>(kFloat) * (t.bk * (t.bm + 1) + t.bk * t.n_max + t.bm * (t.n_max + 1));
  s.flops = executed_flops(s);
  // The softmax of the block's rows: each warp takes rows/warps rows; per row and lane, n/32
  // elements in three passes (max; exp and sum; exp, scale and store: ~4 + 10 + 16 instructions,
  // +2 with a mask) and two 5-step shuffle reductions.
  const double warps = static_cast<double>(s.threads) / kWarp;
  const double rows_per_warp = t.bm / warps;
  s.other_instructions =
      rows_per_warp * (static_cast<double>(cdiv(n, kWarp)) * (30.0 + (mask ? 2.0 : 0.0)) + 20.0);
  const double b = static_cast<double>(batch);
  s.dram_bytes = kFloat * (b * m * k + (b_batched ? b : 1.0) * k * n + b * m * n);
  s.l2_bytes = s.dram_bytes + kFloat * static_cast<double>(s.grid_blocks) * (t.bm + t.n_max) *
                                  static_cast<double>(k);
  return s;
}

SuiteKernel row_softmax_kernel(int rows_per_block, int64_t rows, int64_t n, bool mask) {
  SuiteKernel s;
  s.family = "suite_row_softmax";
  s.name = "row_softmax " + std::to_string(rows_per_block) + " rows/block " + std::to_string(rows) +
           "x" + std::to_string(n) + (mask ? " masked" : "");
  s.threads = kWarp * rows_per_block;
  s.grid_blocks = cdiv(rows, rows_per_block);
  s.registers = 31;
  s.flops = 5.0 * static_cast<double>(rows) * n;  // scale, max, exp, sum, multiply
  s.dram_bytes = kFloat * 2.0 * static_cast<double>(rows) * n;
  // Passes 2 and 3 read the row again and a mask row is read per pass, all from L1 (a row is
  // 512 bytes, just read by the same warp; the mask is a few rows): L2 sees the DRAM traffic.
  (void)mask;
  s.l2_bytes = s.dram_bytes;
  return s;
}

SuiteKernel mlp_chain_kernel(int rows_per_block, int64_t rows, int layers, int64_t last_out) {
  constexpr int kWidth = 64, kThreads = 256;
  SuiteKernel s;
  s.family = "suite_mlp_chain";
  s.name = "mlp_chain " + std::to_string(rows_per_block) + " rows/block " + std::to_string(rows) +
           " rows x " + std::to_string(layers) + " layers";
  s.threads = kThreads;
  s.grid_blocks = cdiv(rows, rows_per_block);
  s.registers = mlp_chain_registers(rows_per_block);
  s.shared_bytes =
      static_cast<int64_t>(kFloat) * (2 * rows_per_block * (kWidth + 1) + kWidth * kWidth);
  // A step is a layer: every thread computes (rows/16) x 4 accumulators over 64 inputs (all 64
  // columns, also for a narrower last layer), after staging the layer's weights.
  s.steps = layers;
  const double rows_per_thread = rows_per_block / 16.0;
  s.fma_per_step = kWidth * rows_per_thread * 4;
  s.shared_loads_per_step = kWidth * (rows_per_thread + 4);
  s.loads_b_per_step = static_cast<double>(kWidth) * kWidth / kThreads;
  s.loads_a_per_step = static_cast<double>(rows_per_block) * kWidth / kThreads / layers;
  s.outputs_per_thread = layers * rows_per_thread * 4;
  s.flops = executed_flops(s);
  s.dram_bytes = kFloat * (static_cast<double>(rows) * (kWidth + last_out) +
                           static_cast<double>(layers) * kWidth * kWidth);
  s.l2_bytes =
      s.dram_bytes + kFloat * static_cast<double>(s.grid_blocks) * layers * kWidth * kWidth;
  return s;
}

SuiteKernel elementwise_kernel(int64_t count, int inputs) {
  SuiteKernel s;
  s.family = "suite_elementwise";
  s.name = std::string(inputs == 1 ? "elementwise unary " : "elementwise binary ") +
           std::to_string(count);
  s.threads = 256;
  s.grid_blocks = cdiv(count, 256);
  s.registers = 36;
  s.flops = static_cast<double>(count);
  s.dram_bytes = kFloat * static_cast<double>(count) * (inputs + 1);
  s.l2_bytes = s.dram_bytes;
  return s;
}

SuiteKernel pool2d_kernel(const gpu::Pool2dShape& p) {
  SuiteKernel s;
  s.family = "suite_pool2d";
  const int64_t outs = p.n * p.c * p.out_h * p.out_w;
  s.name = "pool2d " + std::to_string(p.kh) + "x" + std::to_string(p.kw) + "/" +
           std::to_string(p.sh) + " " + std::to_string(p.n) + "x" + std::to_string(p.c) + "x" +
           std::to_string(p.h) + "x" + std::to_string(p.w);
  s.threads = 256;
  s.grid_blocks = cdiv(outs, 256);
  s.registers = 44;
  s.flops = static_cast<double>(outs) * p.kh * p.kw;
  s.dram_bytes = kFloat * static_cast<double>(p.n * p.c * p.h * p.w + outs);
  s.l2_bytes = kFloat * static_cast<double>(outs) * (p.kh * p.kw + 1);
  // One output per thread; its window read one element per step (kernel_family.cpp).
  s.steps = p.kh * p.kw;
  s.loads_a_per_step = 1;
  s.outputs_per_thread = 1;
  return s;
}

namespace {

// What one computed element of op `op` costs the thread that computes it: memory waits,
// instructions and FP32 operations (counts of kTileProgramSource, kernel_family.cpp).
struct ElementCost {
  double waits = 0, instructions = 0, fp32 = 0;
};

ElementCost element_cost(const TpOp& op) {
  constexpr double kDispatch = 20, kPerDim = 30, kPerRead = 10, kPerReadDim = 6;
  ElementCost c;
  c.waits = 1;
  c.instructions = kDispatch + kPerDim * op.rank;
  c.fp32 = 1;
  for (int i = 0; i < op.num_inputs; ++i) c.instructions += kPerRead + kPerReadDim * op.in[i].rank;
  const TpOperand& x = op.in[0];
  auto reduced = [&]() {
    double n = 1;
    for (int d = 0; d < x.rank; ++d)
      if (op.ia[d]) n *= static_cast<double>(x.shape[d]);
    return n;
  };
  switch (op.kind) {
    case TpKind::MatMul:
    case TpKind::Gemm: {
      const bool ta = op.kind == TpKind::Gemm && op.ia[0] != 0;
      const double k = static_cast<double>(op.kind == TpKind::Gemm ? (ta ? x.shape[0] : x.shape[1])
                                                                   : x.shape[x.rank - 1]);
      c.waits += std::ceil(k / 4);
      c.instructions += 6 * k;
      c.fp32 = k;
      break;
    }
    case TpKind::Conv: {
      const TpOperand& w = op.in[1];
      const double macs = static_cast<double>(w.shape[1] * w.shape[2] * w.shape[3]);
      c.waits += std::ceil(macs / 4);
      c.instructions += 10 * macs;
      c.fp32 = macs;
      break;
    }
    case TpKind::ReduceMean:
    case TpKind::GlobalAveragePool: {
      double n = 1;
      if (op.kind == TpKind::ReduceMean) {
        n = reduced();
      } else {
        for (int d = 2; d < x.rank; ++d) n *= static_cast<double>(x.shape[d]);
      }
      c.waits += std::ceil(n / 4);
      c.instructions += 4 * n;
      c.fp32 = n;
      break;
    }
    case TpKind::Softmax: {
      const double n = static_cast<double>(x.shape[op.ia[0]]);
      c.waits += std::ceil(n / 4) + n;
      c.instructions += 8 * n + 29 * n;
      c.fp32 = 2 * n;
      break;
    }
    default:
      break;
  }
  return c;
}

}  // namespace

SuiteKernel tile_program_kernel(const TileProgram& p, int blocks) {
  SuiteKernel s;
  s.family = "suite_tile_program";
  s.name = "tile program " + p.name;
  s.threads = gpu::kTpThreadsPerBlock;
  s.registers = kTileProgramRegisters;
  s.grid_blocks = std::max(1, blocks);
  std::vector<ElementCost> per_op;
  for (const TpOp& op : p.ops) per_op.push_back(element_cost(op));
  // The busiest block's busiest thread: its waits, instructions and FP32 operations.
  const int64_t nops = static_cast<int64_t>(p.ops.size());
  double waits = 0, instructions = 0, fp32 = 0, total_fp32 = 0;
  for (int64_t b = 0; b < s.grid_blocks; ++b) {
    double w = 0, in = 0, f = 0;
    for (int64_t t = b; t < p.tiles; t += s.grid_blocks) {
      for (int64_t i = 0; i < nops; ++i) {
        const int64_t* reg = p.regions.data() + (t * nops + i) * p.region_stride();
        int64_t n = 1;
        for (int d = 0; d < kTpMaxRank; ++d) n *= reg[kTpMaxRank + d];
        const ElementCost& c = per_op[static_cast<size_t>(i)];
        const double e = static_cast<double>(cdiv(n, s.threads));
        w += e * c.waits;
        in += e * c.instructions;
        f += e * c.fp32;
        total_fp32 += static_cast<double>(n) * c.fp32;
      }
    }
    if (w > waits) waits = w, instructions = in, fp32 = f;
  }
  s.steps = std::max<int64_t>(1, static_cast<int64_t>(waits));
  s.fma_per_step = fp32 / static_cast<double>(s.steps);
  s.other_instructions = std::max(0.0, instructions - fp32);
  s.flops = 2 * total_fp32;
  // Compulsory traffic: every global tensor of the program read or written once.
  for (const std::vector<int64_t>& shape : p.global_shapes) {
    double n = 1;
    for (int64_t d : shape) n *= static_cast<double>(d);
    s.dram_bytes += kFloat * n;
  }
  s.l2_bytes = s.dram_bytes;
  return s;
}

SuiteKernel brick_chain_kernel(const std::vector<gpu::BrickConvLayer>& layers,
                               const std::array<int64_t, 3>& dims, int64_t edge, int blocks,
                               bool memoized) {
  if (layers.empty() || edge < 1) throw Error("brick chain kernel: no layers or no brick edge");
  SuiteKernel s;
  s.family = "suite_brick_direct";
  s.name = std::string(memoized ? "memoized" : "padded") + " brick chain of " +
           std::to_string(layers.size()) + " layers, edge " + std::to_string(edge);
  s.threads = 256;
  s.registers = memoized ? kMemoizedBrickRegisters : kPaddedBrickRegisters;
  s.grid_blocks = std::max(1, blocks);
  // Spatial extents of every tensor of the chain (the kernels' rule).
  const std::vector<std::array<int64_t, 3>> d = gpu::brick_chain_dims(layers, dims);
  auto bricks = [&](const std::array<int64_t, 3>& x) {
    return cdiv(x[0], edge) * cdiv(x[1], edge) * cdiv(x[2], edge);
  };
  const double roots = static_cast<double>(bricks(d.back()));
  // Multiply-adds and outputs one block computes (padded: its share of the root bricks, each
  // with its recomputed regions; memoized: its share of all bricks).
  double macs = 0, outputs = 0, total_macs = 0;
  if (memoized) {
    for (size_t l = 0; l < layers.size(); ++l) {
      const gpu::BrickConvLayer& L = layers[l];
      const double out = static_cast<double>(bricks(d[l + 1]) * edge * edge * edge) *
                         static_cast<double>(L.out_channels);
      outputs += out;
      total_macs += out * static_cast<double>(L.in_channels * L.kernel * L.kernel * L.kernel);
    }
    macs = total_macs / static_cast<double>(s.grid_blocks);
    outputs /= static_cast<double>(s.grid_blocks);
  } else {
    const double per_block = std::ceil(roots / static_cast<double>(s.grid_blocks));
    int64_t e = edge;
    for (size_t l = layers.size(); l-- > 0;) {
      const gpu::BrickConvLayer& L = layers[l];
      const double out = static_cast<double>(e * e * e) * static_cast<double>(L.out_channels);
      const double m = out * static_cast<double>(L.in_channels * L.kernel * L.kernel * L.kernel);
      macs += per_block * m;
      outputs += per_block * out;
      total_macs += roots * m;
      e = L.stride * (e - 1) + L.dilation * (L.kernel - 1) + 1;
    }
  }
  const double threads = static_cast<double>(s.threads);
  s.steps = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(macs / threads)));
  s.fma_per_step = 1;
  s.loads_a_per_step = 1;
  s.loads_b_per_step = 1;
  s.outputs_per_thread = std::ceil(outputs / threads);
  s.flops = 2 * total_macs;
  // Compulsory traffic: the input, the weights and the output once; memoized intermediates
  // written and read once.
  double bytes = static_cast<double>(layers.front().in_channels * d[0][0] * d[0][1] * d[0][2]);
  for (size_t l = 0; l < layers.size(); ++l) {
    const gpu::BrickConvLayer& L = layers[l];
    bytes += static_cast<double>(L.out_channels * L.in_channels * L.kernel * L.kernel * L.kernel +
                                 L.out_channels);
    const double out =
        static_cast<double>(L.out_channels * d[l + 1][0] * d[l + 1][1] * d[l + 1][2]);
    bytes += (l + 1 < layers.size() && memoized) ? 2 * out : (l + 1 == layers.size() ? out : 0);
  }
  s.dram_bytes = kFloat * bytes;
  s.l2_bytes = s.dram_bytes;
  return s;
}

}  // namespace dgs::validation
