// cuBLASLt GEMM and the cublasSgemm baseline (library_kernels.h).
#include <cublasLt.h>
#include <cublas_v2.h>

#include <map>
#include <string>
#include <tuple>

#include "common/cuda/cuda_check.cuh"
#include "common/cuda/library_kernels.h"

namespace dgs::gpu {

namespace {

void check_cublas(cublasStatus_t st, const char* call, const char* file, int line) {
  if (st == CUBLAS_STATUS_SUCCESS) return;
  throw Error(std::string(file) + ":" + std::to_string(line) + ": " + call +
              " failed: " + cublasGetStatusName(st) + " (" + cublasGetStatusString(st) + ")");
}

#define DGS_CUBLAS_CHECK(expr) check_cublas((expr), #expr, __FILE__, __LINE__)

// A cuBLASLt matmul plan: descriptors of one GEMM shape and the heuristic's algorithm.
struct LtPlan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;  // A' (= B), B' (= A), C/D
  cublasLtMatmulAlgo_t algo{};
  bool has_bias = false;
  float beta = 0;
  ~LtPlan() {
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (desc) cublasLtMatmulDescDestroy(desc);
  }
};

// Everything that decides a plan (pointers, alpha and the bias pointer are set per call; the
// pointers' alignments choose among algorithms): batch, m, n, k; A' (the memory of B) and B'
// (that of A) as transpose, ld, batch stride; ldc, C's batch stride, activation, bias, residual;
// the alignments of A', B', C and D.
using PlanKey =
    std::tuple<int64_t, int64_t, int64_t, int64_t, bool, int64_t, int64_t, bool, int64_t, int64_t,
               int64_t, int64_t, int, bool, bool, uint32_t, uint32_t, uint32_t, uint32_t>;

cublasLtMatrixLayout_t make_layout(uint64_t rows, uint64_t cols, int64_t ld, int64_t batch,
                                   int64_t batch_stride) {
  cublasLtMatrixLayout_t l = nullptr;
  DGS_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, rows, cols, ld));
  if (batch > 1) {
    const int32_t count = static_cast<int32_t>(batch);
    DGS_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                                      sizeof count));
    DGS_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
        l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &batch_stride, sizeof batch_stride));
  }
  return l;
}

}  // namespace

struct BlasContext::Impl {
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
  DeviceBuffer workspace{kBlasWorkspaceBytes};
  std::map<PlanKey, std::unique_ptr<LtPlan>> plans;
  ~Impl() {
    plans.clear();
    if (lt) cublasLtDestroy(lt);
    if (blas) cublasDestroy(blas);
  }
};

BlasContext::BlasContext(bool allow_tf32)
    : allow_tf32_(allow_tf32), impl_(std::make_unique<Impl>()) {
  DGS_CUBLAS_CHECK(cublasCreate(&impl_->blas));
  DGS_CUBLAS_CHECK(cublasLtCreate(&impl_->lt));
  DGS_CUBLAS_CHECK(cublasSetMathMode(
      impl_->blas, allow_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
}

BlasContext::~BlasContext() = default;

void blas_gemm(KernelLauncher& l, BlasContext& ctx, int64_t batch, int64_t m, int64_t n, int64_t k,
               const MatrixArg& a, const MatrixArg& b, const OutMatrixArg& c, const Epilogue& e) {
  if (std::string why = blas_gemm_unsupported(batch, m, n, k, a, b, c, e); !why.empty())
    throw Error("cuBLAS GEMM: " + why);
  const BlasOperand oa = blas_operand(a, m, k, "A"), ob = blas_operand(b, k, n, "B");
  const int64_t ldc = std::max(c.row_stride, n);
  const bool relu = e.act == Activation::Relu, bias = e.bias != nullptr;
  const bool residual = e.residual != nullptr;
  BlasContext::Impl& x = ctx.impl();
  const float* cin = e.residual ? e.residual : c.data;
  const uint32_t align[4] = {blas_alignment(b.data), blas_alignment(a.data), blas_alignment(cin),
                             blas_alignment(c.data)};
  const PlanKey key{batch,
                    m,
                    n,
                    k,
                    ob.transpose,
                    ob.ld,
                    b.batch_stride,
                    oa.transpose,
                    oa.ld,
                    a.batch_stride,
                    ldc,
                    c.batch_stride,
                    relu ? 1 : 0,
                    bias,
                    residual,
                    align[0],
                    align[1],
                    align[2],
                    align[3]};
  std::unique_ptr<LtPlan>& slot = x.plans[key];
  if (!slot) {
    auto p = std::make_unique<LtPlan>();
    DGS_CUBLAS_CHECK(cublasLtMatmulDescCreate(
        &p->desc, ctx.allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
        CUDA_R_32F));
    // Column-major C^T (n x m) = op(B') op(A') with A' the memory of B and B' that of A.
    const cublasOperation_t op_a = ob.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = oa.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
    DGS_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a));
    DGS_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b));
    cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_DEFAULT;
    if (bias)
      epi = relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
    else if (relu)
      epi = CUBLASLT_EPILOGUE_RELU;
    DGS_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    // A row-major [rows x cols] operand is the column-major [cols x rows] one (untransposed).
    p->a = ob.transpose ? make_layout(k, n, ob.ld, batch, b.batch_stride)
                        : make_layout(n, k, ob.ld, batch, b.batch_stride);
    p->b = oa.transpose ? make_layout(m, k, oa.ld, batch, a.batch_stride)
                        : make_layout(k, m, oa.ld, batch, a.batch_stride);
    p->c = make_layout(n, m, ldc, batch, c.batch_stride);
    p->has_bias = bias;
    p->beta = residual ? 1.0f : 0.0f;
    if (bias) {  // the pointer is set per call; the heuristic needs one set
      const void* bp = e.bias;
      DGS_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                      &bp, sizeof bp));
    }
    cublasLtMatmulPreference_t pref = nullptr;
    DGS_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    const uint64_t ws = x.workspace.bytes();
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    const cublasStatus_t st = [&] {
      cublasStatus_t s = cublasLtMatmulPreferenceSetAttribute(
          pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
      const cublasLtMatmulPreferenceAttributes_t kAlign[4] = {
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
      for (int i = 0; i < 4 && s == CUBLAS_STATUS_SUCCESS; ++i)
        s = cublasLtMatmulPreferenceSetAttribute(pref, kAlign[i], &align[i], sizeof align[i]);
      if (s != CUBLAS_STATUS_SUCCESS) return s;
      return cublasLtMatmulAlgoGetHeuristic(x.lt, p->desc, p->a, p->b, p->c, p->c, pref, 1, &result,
                                            &found);
    }();
    cublasLtMatmulPreferenceDestroy(pref);
    DGS_CUBLAS_CHECK(st);
    if (found < 1)
      throw Error("cuBLAS GEMM: cuBLASLt has no algorithm for batch " + std::to_string(batch) +
                  ", m " + std::to_string(m) + ", n " + std::to_string(n) + ", k " +
                  std::to_string(k));
    p->algo = result.algo;
    slot = std::move(p);
  }
  LtPlan& p = *slot;
  if (p.has_bias) {
    const void* bp = e.bias;
    DGS_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp));
  }
  const float alpha = e.alpha;
  DGS_CUBLAS_CHECK(cublasLtMatmul(x.lt, p.desc, &alpha, b.data, p.a, a.data, p.b, &p.beta, cin, p.c,
                                  c.data, p.c, &p.algo, x.workspace.data(), x.workspace.bytes(),
                                  static_cast<cudaStream_t>(l.stream_handle())));
  l.count_launch();
}

void cublas_sgemm(KernelLauncher& l, BlasContext& ctx, int64_t m, int64_t n, int64_t k,
                  const float* a, const float* b, float* c) {
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  if (m < 1 || n < 1 || k < 1 || m > kMax || n > kMax || k > kMax)
    throw Error("cublas_sgemm: sizes m " + std::to_string(m) + ", n " + std::to_string(n) + ", k " +
                std::to_string(k) + " must lie in [1, 2^31)");
  cublasHandle_t h = ctx.impl().blas;
  DGS_CUBLAS_CHECK(cublasSetStream(h, static_cast<cudaStream_t>(l.stream_handle())));
  const float alpha = 1.0f, beta = 0.0f;
  // Row-major C = A.B is column-major C^T = B^T . A^T.
  DGS_CUBLAS_CHECK(cublasSgemm(
      h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k),
      &alpha, b, static_cast<int>(n), a, static_cast<int>(k), &beta, c, static_cast<int>(n)));
  l.count_launch();
}

}  // namespace dgs::gpu
