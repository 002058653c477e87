// Tile-level execution on the CPU reference executor (see executor.h, "Regions").
#include <cmath>
#include <limits>

#include "common/exec/executor.h"
#include "common/exec/region_eval.h"

namespace dgs {

namespace {

void check_region(const Shape& s, const Region& r, const std::string& what) {
  bool ok = r.size() == s.size();
  for (size_t d = 0; ok && d < r.size(); ++d) {
    ok = r[d].lo >= 0 && r[d].hi <= s[d] && r[d].lo <= r[d].hi;
  }
  if (!ok) {
    throw Error(what + ": region " + region_str(r) + " does not fit shape " + shape_str(s));
  }
}

// Calls fn(tile_flat, tensor_flat) for every element of region r of a tensor of shape s.
template <class F>
void for_each_in_region(const Shape& s, const Region& r, F fn) {
  const Shape rs = region_shape(r);
  const int64_t n = numel(rs);
  if (n == 0) return;
  std::vector<int64_t> st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  std::vector<int64_t> idx(s.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (size_t d = 0; d < s.size(); ++d) off += (r[d].lo + idx[d]) * st[d];
    fn(k, off);
    for (size_t d = s.size(); d-- > 0;) {
      if (++idx[d] < rs[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace

TensorData extract_region(const TensorData& t, const Region& r) {
  check_tensor_data(t, "extract_region: tensor");
  check_region(t.shape, r, "extract_region");
  TensorData tile = TensorData::zeros(region_shape(r), t.dtype);
  for_each_in_region(t.shape, r, [&](int64_t k, int64_t off) {
    if (t.is_float()) {
      tile.f[k] = t.f[off];
    } else {
      tile.i[k] = t.i[off];
    }
  });
  return tile;
}

void insert_region(TensorData& t, const Region& r, const TensorData& tile) {
  // Every check before the first write: a tile whose rank, shape, dtype class or stored value
  // count disagrees with the region (e.g. a default TensorData, shape [] with no values, for a
  // rank-0 region) must throw, not index past the tile's values.
  check_tensor_data(t, "insert_region: tensor");
  check_region(t.shape, r, "insert_region");
  if (tile.shape.size() != r.size()) {
    throw Error("insert_region: tile " + tensor_data_str(tile) + " has rank " +
                std::to_string(tile.shape.size()) + " but region " + region_str(r) + " has rank " +
                std::to_string(r.size()));
  }
  if (tile.shape != region_shape(r) || tile.is_float() != t.is_float()) {
    throw Error("insert_region: tile " + tensor_data_str(tile) + " does not fit region " +
                region_str(r) + " of " + tensor_data_str(t));
  }
  check_tensor_data(tile, "insert_region: tile");
  for_each_in_region(t.shape, r, [&](int64_t k, int64_t off) {
    if (t.is_float()) {
      t.f[off] = tile.f[k];
    } else {
      t.i[off] = tile.i[k];
    }
  });
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
