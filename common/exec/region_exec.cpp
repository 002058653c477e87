// Tile-level execution on the CPU reference executor (see executor.h, "Regions").
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/exec/executor.h"
#include "common/exec/region_eval.h"

namespace dgs {

namespace {

void check_region(const Shape& s, const Region& r, const char* what) {
  bool ok = r.size() == s.size();
  for (size_t d = 0; ok && d < r.size(); ++d) {
    ok = r[d].lo >= 0 && r[d].hi <= s[d] && r[d].lo <= r[d].hi;
  }
  if (!ok) {
    throw Error(std::string(what) + ": region " + region_str(r) + " does not fit shape " +
                shape_str(s));
  }
}

// Copies the box `from` of `src` into the box `to` of `dst` (boxes of equal sizes, both inside
// their tensors), one contiguous run at a time: the innermost dim, merged with the dims above it
// while the box spans them whole in both tensors. An element-by-element walk that recomputed
// every offset was most of the CPU reference's time on large halo cuts.
template <class T>
void copy_box(const std::vector<T>& src, const Shape& src_shape, const Region& from,
              std::vector<T>& dst, const Shape& dst_shape, const Region& to) {
  const size_t rank = from.size();
  if (rank == 0) {
    dst[0] = src[0];
    return;
  }
  if (region_empty(from)) return;
  InlineVector<int64_t, kRegionInlineRank> src_st(rank, 1), dst_st(rank, 1), idx(rank, 0);
  for (size_t d = rank; d-- > 1;) {
    src_st[d - 1] = src_st[d] * src_shape[d];
    dst_st[d - 1] = dst_st[d] * dst_shape[d];
  }
  // Dims [inner, rank) form one run.
  size_t inner = rank - 1;
  int64_t run = from[inner].size();
  while (inner > 0 && from[inner].size() == src_shape[inner] &&
         to[inner].size() == dst_shape[inner]) {
    --inner;
    run *= from[inner].size();
  }
  int64_t s = 0, t = 0;
  for (size_t d = 0; d < rank; ++d) {
    s += from[d].lo * src_st[d];
    t += to[d].lo * dst_st[d];
  }
  while (true) {
    std::copy_n(src.begin() + s, run, dst.begin() + t);
    size_t d = inner;
    while (true) {
      if (d == 0) return;
      --d;
      s += src_st[d];
      t += dst_st[d];
      if (++idx[d] < from[d].size()) break;
      s -= from[d].size() * src_st[d];
      t -= from[d].size() * dst_st[d];
      idx[d] = 0;
    }
  }
}

// check_tensor_data without building its message unless it fails (these run once per tile).
void check_values(const TensorData& t, const char* what) {
  if (t.size() != t.numel()) check_tensor_data(t, what);
}

bool same_sizes(const Region& a, const Region& b) {
  if (a.size() != b.size()) return false;
  for (size_t d = 0; d < a.size(); ++d)
    if (a[d].size() != b[d].size()) return false;
  return true;
}

void copy_values(const TensorData& src, const Region& from, TensorData& dst, const Region& to) {
  if (src.is_float()) {
    copy_box(src.f, src.shape, from, dst.f, dst.shape, to);
  } else {
    copy_box(src.i, src.shape, from, dst.i, dst.shape, to);
  }
}

}  // namespace

void copy_region(const TensorData& src, const Region& from, TensorData& dst, const Region& to) {
  check_values(src, "copy_region: source");
  check_values(dst, "copy_region: destination");
  check_region(src.shape, from, "copy_region: source");
  check_region(dst.shape, to, "copy_region: destination");
  if (!same_sizes(from, to) || src.is_float() != dst.is_float()) {
    throw Error("copy_region: box " + region_str(from) + " of " + tensor_data_str(src) +
                " does not fit box " + region_str(to) + " of " + tensor_data_str(dst));
  }
  copy_values(src, from, dst, to);
}

TensorData extract_region(const TensorData& t, const Region& r) {
  check_values(t, "extract_region: tensor");
  check_region(t.shape, r, "extract_region");
  TensorData tile = TensorData::zeros(region_shape(r), t.dtype);
  copy_values(t, r, tile, region_relative(r, r));
  return tile;
}

void insert_region(TensorData& t, const Region& r, const TensorData& tile) {
  // Every check before the first write: a tile whose rank, shape, dtype class or stored value
  // count disagrees with the region (e.g. a default TensorData, shape [] with no values, for a
  // rank-0 region) must throw, not index past the tile's values.
  check_values(t, "insert_region: tensor");
  check_region(t.shape, r, "insert_region");
  if (tile.shape.size() != r.size()) {
    throw Error("insert_region: tile " + tensor_data_str(tile) + " has rank " +
                std::to_string(tile.shape.size()) + " but region " + region_str(r) + " has rank " +
                std::to_string(r.size()));
  }
  bool fits = tile.is_float() == t.is_float();
  for (size_t d = 0; fits && d < r.size(); ++d) fits = tile.shape[d] == r[d].size();
  if (!fits) {
    throw Error("insert_region: tile " + tensor_data_str(tile) + " does not fit region " +
                region_str(r) + " of " + tensor_data_str(t));
  }
  check_values(tile, "insert_region: tile");
  copy_values(tile, region_relative(r, r), t, r);
}

TensorData run_op_region(const Graph& g, int o, const std::vector<Region>& input_regions,
                         const std::vector<TensorData>& input_tiles, const Region& output_tile,
                         int output_index) {
  const Op& op = g.op(o);
  const std::string where = "run_op_region(op '" + op.name + "')";
  if (input_regions.size() != op.inputs.size() || input_tiles.size() != op.inputs.size()) {
    throw Error(where + ": " + std::to_string(input_tiles.size()) + " input tiles for " +
                std::to_string(op.inputs.size()) + " inputs");
  }
  if (output_index < 0 || output_index >= static_cast<int>(op.outputs.size())) {
    throw Error(where + ": no output " + std::to_string(output_index));
  }
  std::vector<TensorPiece> pieces(op.inputs.size());
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const int t = op.inputs[i];
    if (t < 0) continue;
    const Tensor& ten = g.tensor(t);
    if (ten.role == TensorRole::Constant && input_tiles[i].has_no_values() &&
        input_regions[i].empty()) {
      continue;  // the graph data is used
    }
    if (input_regions[i].size() != ten.shape.size()) {
      throw Error(where + ": input " + std::to_string(i) + " '" + ten.name + "' region " +
                  region_str(input_regions[i]) + " has rank " +
                  std::to_string(input_regions[i].size()) + "; the tensor has rank " +
                  std::to_string(ten.shape.size()));
    }
    if (!input_tiles[i].is_float() && input_regions[i] != full_region(ten.shape)) {
      throw Error(where + ": integer input '" + ten.name + "' must be given whole, not " +
                  region_str(input_regions[i]));
    }
    pieces[i] = {input_regions[i], &input_tiles[i]};
  }
  return compute_op_region(g, o, output_tile, pieces, output_index);
}

}  // namespace dgs
