// CUTLASS GEMM with a row-softmax epilogue, FP32 on CUDA cores (library_kernels.h:
// cutlass_gemm_softmax): a GEMM and the softmax of its rows in one kernel.
//
// The main loop is CUTLASS's Ampere SIMT GEMM (multistage cp.async pipeline); the epilogue is
// CUTLASS's EpilogueWithVisitor (accumulators exchanged through shared memory, then handed to a
// visitor fragment by fragment, row by row) with the suite's visitor, RowSoftmaxVisitor, which
// keeps a step's values in registers and, at the end of each row, reduces the row's max and sum
// of exponentials across the lanes that hold it (warp shuffles) and normalises before the one
// store. The threadblock's N is the widest row (n_max): every row lies in one threadblock, and
// static_asserts check that one group of lanes of one warp holds a whole row in each step, so a
// row never needs a second pass or a second kernel. (CUTLASS's own example 35_gemm_softmax
// writes the unnormalised product and normalises it in further kernels; this one keeps the
// product on chip.)
//
// Instantiated tiles (cutlass_gemm_softmax_tiles()): 32 or 64 rows x 128 columns per
// threadblock, k-step 8, 32x64 warps (two or four), 3 stages.
#include <cmath>

#include "common/cuda/cutlass/cutlass_common.cuh"
#include "common/cuda/library_kernels.h"
#include "cutlass/array.h"
#include "cutlass/epilogue/thread/linear_combination.h"
#include "cutlass/epilogue/threadblock/epilogue_with_visitor.h"
#include "cutlass/gemm/kernel/default_gemm.h"
#include "cutlass/gemm/threadblock/threadblock_swizzle.h"
#include "cutlass/matrix_coord.h"

namespace dgs::gpu {

namespace {

// The visitor (CUTLASS's EpilogueFusedVisitorConcept): D = softmax over each row of scale * acc,
// columns at or beyond the problem's n excluded.
template <typename OutputTileIterator_, int ThreadblockN>
class RowSoftmaxVisitor {
 public:
  using OutputTileIterator = OutputTileIterator_;
  using ThreadMap = typename OutputTileIterator::ThreadMap;
  static int const kIterations = OutputTileIterator::kIterations;
  static int const kElementsPerAccess = OutputTileIterator::kElementsPerAccess;
  using ElementOutput = float;
  using ElementAccumulator = float;
  using AccumulatorFragment = cutlass::Array<float, kElementsPerAccess>;
  using Fragment = typename OutputTileIterator::Fragment;
  static int const kThreadsPerRow = ThreadMap::Detail::kAccessWidth;
  static int const kColumnIterations = ThreadMap::Iterations::kColumn;
  static int const kStepElements = Fragment::kElements;

  static_assert(kThreadsPerRow >= 1 && kThreadsPerRow <= 32 &&
                    (kThreadsPerRow & (kThreadsPerRow - 1)) == 0,
                "the lanes of a row must be a power-of-two group within a warp");
  static_assert(kThreadsPerRow * kElementsPerAccess * kColumnIterations == ThreadblockN,
                "one group of lanes must hold a whole row of the threadblock tile in each step");

  struct Arguments {
    float scale = 1.0f;
  };
  struct Params {
    float scale = 1.0f;
    CUTLASS_HOST_DEVICE Params() {}
    CUTLASS_HOST_DEVICE Params(Arguments const& a) : scale(a.scale) {}
  };
  struct SharedStorage {};

  CUTLASS_DEVICE
  RowSoftmaxVisitor(Params const& params, cutlass::MatrixCoord const& extent, int thread_idx,
                    typename OutputTileIterator::Params const& params_d, float* ptr_d,
                    cutlass::MatrixCoord const& threadblock_offset)
      : scale_(params.scale),
        extent_(extent),
        iterator_d_(params_d, ptr_d, extent, thread_idx, threadblock_offset) {}

  CUTLASS_DEVICE void set_k_partition(int, int) {}
  CUTLASS_DEVICE void set_batch_index(int) {}
  CUTLASS_DEVICE void begin_epilogue() {}
  CUTLASS_DEVICE void begin_step(int) {}
  CUTLASS_DEVICE void begin_row(int) {}

  CUTLASS_DEVICE
  void visit(int, int, int, int frag_idx, AccumulatorFragment const& accum) {
    const cutlass::MatrixCoord at =
        iterator_d_.thread_start() + ThreadMap::iteration_offset(frag_idx);
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kElementsPerAccess; ++i) {
      const bool inside = at.column() + i < extent_.column();
      values_[frag_idx * kElementsPerAccess + i] = inside ? scale_ * accum[i] : -INFINITY;
    }
  }

  // The row's fragments of this thread are row_idx * kColumnIterations + 0..kColumnIterations-1.
  CUTLASS_DEVICE
  void end_row(int row_idx) {
    const int first = row_idx * kColumnIterations * kElementsPerAccess;
    constexpr int kCount = kColumnIterations * kElementsPerAccess;
    float mx = -INFINITY;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kCount; ++i) mx = fmaxf(mx, values_[first + i]);
    CUTLASS_PRAGMA_UNROLL
    for (int o = kThreadsPerRow / 2; o > 0; o /= 2)
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    float sum = 0.0f;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kCount; ++i) {
      const float e = expf(values_[first + i] - mx);  // exp(-inf) = 0 outside the row
      values_[first + i] = e;
      sum += e;
    }
    CUTLASS_PRAGMA_UNROLL
    for (int o = kThreadsPerRow / 2; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    const float inv = 1.0f / sum;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kCount; ++i) fragment_d_[first + i] = values_[first + i] * inv;
  }

  CUTLASS_DEVICE
  void end_step(int) {
    iterator_d_.store(fragment_d_);
    ++iterator_d_;
  }
  CUTLASS_DEVICE void end_epilogue() {}

 private:
  float scale_;
  cutlass::MatrixCoord extent_;
  OutputTileIterator iterator_d_;
  Fragment fragment_d_;
  float values_[kStepElements];
};

// The kernel: one threadblock per bm rows (all n columns); CUTLASS's main loop, then the
// epilogue with the visitor (shared memory reused, as in CUTLASS's GEMM kernels).
template <typename Mma_, typename Epilogue_, typename Visitor_>
struct GemmRowSoftmaxKernel {
  using Mma = Mma_;
  using Epilogue = Epilogue_;
  using Visitor = Visitor_;
  static int const kThreadCount = 32 * Mma::WarpCount::kCount;

  struct Params {
    cutlass::gemm::GemmCoord problem;
    typename Mma::IteratorA::Params params_a;
    float* a = nullptr;
    typename Mma::IteratorB::Params params_b;
    float* b = nullptr;
    typename Visitor::OutputTileIterator::Params params_d;
    float* d = nullptr;
    typename Visitor::Params visitor;
  };
  union SharedStorage {
    typename Mma::SharedStorage main_loop;
    struct {
      typename Epilogue::SharedStorage epilogue;
      typename Visitor::SharedStorage visitor;
    } epilogue;
  };

  CUTLASS_DEVICE
  void operator()(Params const& p, SharedStorage& smem) {
    const int m0 = static_cast<int>(blockIdx.x) * Mma::Shape::kM;
    if (m0 >= p.problem.m()) return;
    const int thread_idx = threadIdx.x;
    const int warp_idx = __shfl_sync(0xffffffffu, threadIdx.x / 32, 0);
    const int lane_idx = threadIdx.x % 32;
    typename Mma::IteratorA it_a(p.params_a, p.a, {p.problem.m(), p.problem.k()}, thread_idx,
                                 cutlass::MatrixCoord{m0, 0});
    typename Mma::IteratorB it_b(p.params_b, p.b, {p.problem.k(), p.problem.n()}, thread_idx,
                                 cutlass::MatrixCoord{0, 0});
    Mma mma(smem.main_loop, thread_idx, warp_idx, lane_idx);
    typename Mma::FragmentC acc;
    acc.clear();
    const int k_iterations = (p.problem.k() + Mma::Shape::kK - 1) / Mma::Shape::kK;
    mma(k_iterations, acc, it_a, it_b, acc);
    __syncthreads();  // the epilogue reuses the main loop's shared memory
    Visitor visitor(p.visitor, p.problem.mn(), thread_idx, p.params_d, p.d,
                    cutlass::MatrixCoord{m0, 0});
    Epilogue epilogue(smem.epilogue.epilogue, thread_idx, warp_idx, lane_idx);
    epilogue(visitor, acc);
  }
};

template <int Bm, int N>
struct SoftmaxGemm {
  using Tb = cutlass::gemm::GemmShape<Bm, N, 8>;
  using Warp = cutlass::gemm::GemmShape<32, 64, 8>;
  using Default = cutlass::gemm::kernel::DefaultGemm<
      float, cutlass::layout::RowMajor, 1, float, cutlass::layout::RowMajor, 1, float,
      cutlass::layout::RowMajor, float, cutlass::arch::OpClassSimt, cutlass::arch::Sm80, Tb, Warp,
      cutlass::gemm::GemmShape<1, 1, 1>,
      cutlass::epilogue::thread::LinearCombination<float, 1, float, float>,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<1>, 3, false,
      cutlass::arch::OpMultiplyAdd>;
  using Visitor = RowSoftmaxVisitor<typename Default::Epilogue::OutputTileIterator, N>;
  using Epilogue = typename cutlass::epilogue::threadblock::EpilogueWithVisitorFromExistingEpilogue<
      Visitor, typename Default::Epilogue>::Epilogue;
  using Kernel = GemmRowSoftmaxKernel<typename Default::Mma, Epilogue, Visitor>;
  // The epilogue hands fragments to the visitor row by row with the shared-memory load
  // iterator's column count; the visitor groups them with the output iterator's.
  static_assert(Epilogue::SharedLoadIterator::ThreadMap::Iterations::kColumn ==
                    Visitor::kColumnIterations,
                "the epilogue's and the visitor's rows differ");
};

template <typename Kernel>
__global__ void __launch_bounds__(Kernel::kThreadCount)
    gemm_row_softmax_kernel(typename Kernel::Params p) {
  extern __shared__ int smem_raw[];
  Kernel op;
  op(p, *reinterpret_cast<typename Kernel::SharedStorage*>(smem_raw));
}

template <typename G>
void run(KernelLauncher& l, int64_t m, int64_t n, int64_t k, const float* a, const float* b,
         float* d, float scale) {
  using Kernel = typename G::Kernel;
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  typename Kernel::Params p;
  p.problem = cutlass::gemm::GemmCoord(mi, ni, ki);
  p.params_a = typename Kernel::Mma::IteratorA::Params(cutlass::layout::RowMajor(ki));
  p.a = const_cast<float*>(a);
  p.params_b = typename Kernel::Mma::IteratorB::Params(cutlass::layout::RowMajor(ni));
  p.b = const_cast<float*>(b);
  p.params_d = typename Kernel::Visitor::OutputTileIterator::Params(cutlass::layout::RowMajor(ni));
  p.d = d;
  p.visitor = typename Kernel::Visitor::Params(typename Kernel::Visitor::Arguments{scale});
  const int smem = static_cast<int>(sizeof(typename Kernel::SharedStorage));
  if (smem >= (48 << 10))
    DGS_CUDA_CHECK(cudaFuncSetAttribute(gemm_row_softmax_kernel<Kernel>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const unsigned blocks = static_cast<unsigned>((m + G::Tb::kM - 1) / G::Tb::kM);
  gemm_row_softmax_kernel<Kernel>
      <<<blocks, Kernel::kThreadCount, smem, cutlass_detail::stream_of(l)>>>(p);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

}  // namespace

void cutlass_gemm_softmax(KernelLauncher& l, const CutlassSoftmaxTile& t, int64_t m, int64_t n,
                          int64_t k, const float* a, const float* b, float* d, float scale) {
  if (std::string why = cutlass_gemm_softmax_unsupported(t, m, n, k); !why.empty())
    throw Error("CUTLASS GEMM + softmax: " + why);
  if (t == CutlassSoftmaxTile{32, 128})
    return run<SoftmaxGemm<32, 128>>(l, m, n, k, a, b, d, scale);
  if (t == CutlassSoftmaxTile{64, 128})
    return run<SoftmaxGemm<64, 128>>(l, m, n, k, a, b, d, scale);
  throw Error("CUTLASS GEMM + softmax: tile " + t.str() +
              " is listed by cutlass_gemm_softmax_tiles() but not instantiated");
}

}  // namespace dgs::gpu
