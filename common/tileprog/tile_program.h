#pragma once
// A tile program: a flat description of one fused kernel, built from any group of graph operators
// (common/tileprog/tile_program_builder.h) and run by one generic interpreter
// (common/tileprog/tile_program_interpreter.h) on the host and on the GPU
// (common/cuda/tile_program_gpu.h), so that any group of operators a scheduler fuses runs as ONE
// kernel launch without a kernel written for it.
//
// The kernel computes the tiles of its root output one after another (on the GPU: a persistent
// grid of thread blocks, each looping over tiles). For one tile it runs its ops in topological
// order; op i computes every element of its output region for that tile (`regions`: the region
// the shared region propagation says the tile needs, common/graph/iteration_space.h), each
// element independently by index arithmetic from its inputs ("gather-compute"). An op output
// consumed inside the kernel lives in a per-block scratch buffer that holds exactly its region
// (row-major over the region); an op output the kernel writes to global memory is stored at its
// full-tensor position (elements recomputed by neighbouring tiles, e.g. convolution halos, get
// bit-identical values). Inputs are read from global tensors (row-major, full shape) or from the
// scratch buffers of earlier ops of the same tile.
//
// Plain C++ (no CUDA): the structs are trivially copyable so that the device launcher can copy
// them to the GPU as they are.
#include <cstdint>
#include <string>
#include <vector>

namespace dgs {

// Limits of the fixed-size blocks below (the zoo's transformer and image-restoration networks
// need rank <= 6 and Concat of <= 4 inputs; a program beyond them is refused when it is built).
inline constexpr int kTpMaxRank = 8;
inline constexpr int kTpMaxInputs = 8;
inline constexpr int kTpMaxAttrs = 24;

enum class TpKind : int32_t {
  // element-wise with ONNX (NumPy) broadcasting
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Sqrt,
  Erf,
  Relu,
  Sigmoid,
  Expand,  // broadcast of input 0 to the output shape
  // reductions
  ReduceMean,  // ia[d] = 1 if input dim d is reduced; ia[kMaxRank] = keepdims
  GlobalAveragePool,
  Softmax,  // ia[0] = axis (normalised)
  MatMul,   // batched, broadcast batch dims, both operands rank >= 2
  Gemm,     // ia[0] = transA, ia[1] = transB; fa[0] = alpha, fa[1] = beta; input 2 optional
  Conv,  // 2-D NCHW: ia = {stride_h, stride_w, pad_top, pad_left, dil_h, dil_w, groups}; bias opt.
  // data movement
  Reshape,    // also Flatten, Squeeze, Unsqueeze, Identity: same row-major order
  Transpose,  // ia[d] = perm[d]
  Slice,      // ia[d] = start of dim d, ia[kTpMaxRank + d] = step of dim d (normalised)
  Concat,     // ia[0] = axis
  Gather,     // ia[0] = axis, ia[1] = offset of the indices in TileProgram::int_pool, ia[2] = their
              // count, ia[3] = rank of the indices tensor; indices already normalised (>= 0)
  DepthToSpace,  // ia[0] = blocksize, ia[1] = 1 for CRD, 0 for DCR
};
inline const char* tp_kind_name(TpKind k) {
  switch (k) {
    case TpKind::Add:
      return "Add";
    case TpKind::Sub:
      return "Sub";
    case TpKind::Mul:
      return "Mul";
    case TpKind::Div:
      return "Div";
    case TpKind::Pow:
      return "Pow";
    case TpKind::Sqrt:
      return "Sqrt";
    case TpKind::Erf:
      return "Erf";
    case TpKind::Relu:
      return "Relu";
    case TpKind::Sigmoid:
      return "Sigmoid";
    case TpKind::Expand:
      return "Expand";
    case TpKind::ReduceMean:
      return "ReduceMean";
    case TpKind::GlobalAveragePool:
      return "GlobalAveragePool";
    case TpKind::Softmax:
      return "Softmax";
    case TpKind::MatMul:
      return "MatMul";
    case TpKind::Gemm:
      return "Gemm";
    case TpKind::Conv:
      return "Conv";
    case TpKind::Reshape:
      return "Reshape";
    case TpKind::Transpose:
      return "Transpose";
    case TpKind::Slice:
      return "Slice";
    case TpKind::Concat:
      return "Concat";
    case TpKind::Gather:
      return "Gather";
    case TpKind::DepthToSpace:
      return "DepthToSpace";
  }
  return "?";
}

// The order the host runs tiles in. Forward: in order, one scratch buffer. Adversarial (tests):
// in reverse order with the scratch refilled with NaN before each tile, as blocks of a GPU grid
// run tiles in any order on scratch left by other tiles: a tile that reads scratch it did not
// write, or depends on another tile running first, then gives NaN or a different value.
enum class HostTileOrder { Forward, Adversarial };

// Where an op reads an operand from.
struct TpOperand {
  int32_t local = 0;  // 1: the scratch buffer of op `index` of this program; 0: global `index`
  int32_t index = -1;
  int32_t rank = 0;
  int64_t shape[kTpMaxRank] = {};  // the full tensor's shape
};

struct TpOp {
  TpKind kind = TpKind::Add;
  int32_t num_inputs = 0;
  TpOperand in[kTpMaxInputs];
  int32_t rank = 0;
  int64_t shape[kTpMaxRank] = {};  // the full output tensor's shape
  int64_t ia[kTpMaxAttrs] = {};
  float fa[2] = {0, 0};
  int32_t out_global = -1;      // global tensor the output is written to, or -1
  int64_t scratch_offset = -1;  // floats into the block's scratch; -1: not consumed in the kernel
};

struct TileProgram {
  std::string name;       // for messages: the kernel's first and last op
  std::vector<TpOp> ops;  // topological order
  // The global tensors the program reads or writes (the launcher binds one float pointer each).
  std::vector<std::vector<int64_t>> global_shapes;
  std::vector<int> global_ids;  // what the caller calls them (e.g. dgs::Graph tensor indices)
  std::vector<bool> global_written;
  int64_t tiles = 0;
  // regions[(tile * ops.size() + op) * 2 * kTpMaxRank + ...]: lo of each output dim, then size
  // of each output dim, of op `op`'s output region for tile `tile` (dims past the op's rank:
  // lo 0, size 1; a size 0: nothing computed for that tile).
  std::vector<int64_t> regions;
  int64_t scratch_floats = 0;     // per block (or per host run)
  std::vector<int64_t> int_pool;  // Gather indices
  int64_t region_stride() const { return 2 * kTpMaxRank; }
  // Elements all ops compute, summed over all tiles (recomputation included).
  int64_t computed_elements() const {
    int64_t n = 0;
    const size_t stride = static_cast<size_t>(region_stride());
    for (size_t r = 0; r < regions.size(); r += stride) {
      int64_t e = 1;
      for (int d = 0; d < kTpMaxRank; ++d) e *= regions[r + kTpMaxRank + d];
      n += e;
    }
    return n;
  }
};

}  // namespace dgs
