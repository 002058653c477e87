#include "common/brick/brick_layout.h"

#include <algorithm>

#include "common/util/error.h"

namespace dgs {

namespace {

// Calls f(index) for every index of the box `r` except along its last dim (index[last] = lo):
// runs along the last dim are contiguous both row-major and inside a brick.
template <typename F>
void for_each_row(const Region& r, F&& f) {
  if (region_empty(r)) return;
  const size_t rank = r.size();
  std::vector<int64_t> idx(rank);
  for (size_t d = 0; d < rank; ++d) idx[d] = r[d].lo;
  while (true) {
    f(idx);
    if (rank < 2) return;
    size_t d = rank - 2;
    while (true) {
      if (++idx[d] < r[d].hi) break;
      idx[d] = r[d].lo;
      if (d == 0) return;
      --d;
    }
  }
}

int64_t row_major_offset(const Shape& s, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  for (size_t d = 0; d < s.size(); ++d) off = off * s[d] + idx[d];
  return off;
}

}  // namespace

BrickLayout::BrickLayout(Shape shape, std::vector<int64_t> brick_extent,
                         std::vector<int64_t> brick_map)
    : shape_(std::move(shape)), extent_(std::move(brick_extent)) {
  if (extent_.size() != shape_.size())
    throw Error("brick layout: brick extent has rank " + std::to_string(extent_.size()) +
                ", tensor " + shape_str(shape_) + " has rank " + std::to_string(shape_.size()));
  for (size_t d = 0; d < shape_.size(); ++d) {
    if (shape_[d] < 1)
      throw Error("brick layout: tensor " + shape_str(shape_) + " has an empty dim");
    if (extent_[d] < 1)
      throw Error("brick layout: brick extent " + shape_str(extent_) +
                  " must be >= 1 in every dim");
    grid_.push_back((shape_[d] + extent_[d] - 1) / extent_[d]);
    volume_ *= extent_[d];
  }
  const int64_t n = numel(grid_);
  if (brick_map.empty()) {
    map_.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) map_[static_cast<size_t>(i)] = i;
  } else {
    if (static_cast<int64_t>(brick_map.size()) != n)
      throw Error("brick layout: brick map has " + std::to_string(brick_map.size()) +
                  " entries for " + std::to_string(n) + " bricks");
    map_ = std::move(brick_map);
  }
  inverse_.assign(static_cast<size_t>(n), kNoBrick);
  for (int64_t l = 0; l < n; ++l) {
    const int64_t p = map_[static_cast<size_t>(l)];
    if (p < 0 || p >= n || inverse_[static_cast<size_t>(p)] != kNoBrick)
      throw Error("brick layout: brick map is not a permutation of 0.." + std::to_string(n - 1) +
                  " (entry " + std::to_string(l) + " = " + std::to_string(p) + ")");
    inverse_[static_cast<size_t>(p)] = l;
  }
  for (size_t d = 0; d < shape_.size(); ++d)
    if (extent_[d] > 1 && grid_[d] > 1) neighbour_dims_.push_back(static_cast<int>(d));
  for (size_t i = 0; i < neighbour_dims_.size(); ++i) num_directions_ *= 3;
  adjacency_.assign(static_cast<size_t>(n * num_directions_), kNoBrick);
  // The neighbour's logical index is the brick's plus step * the grid's row-major stride per
  // stepped dim; the coordinates advance row-major with l (no vector per brick and direction:
  // the layouts of a network's tensors are built for every priced plan).
  const size_t nd = neighbour_dims_.size();
  std::vector<int64_t> stride(grid_.size(), 1), c(grid_.size(), 0);
  for (size_t d = grid_.size(); d-- > 1;) stride[d - 1] = stride[d] * grid_[d];
  for (int64_t l = 0; l < n; ++l) {
    const int64_t p = physical(l);
    for (int dir = 0; dir < num_directions_; ++dir) {
      int rest = dir;
      bool inside = true;
      int64_t neighbour = l;
      for (size_t k = nd; k-- > 0;) {
        const int step = rest % 3 - 1;
        rest /= 3;
        const auto d = static_cast<size_t>(neighbour_dims_[k]);
        const int64_t x = c[d] + step;
        if (x < 0 || x >= grid_[d]) inside = false;
        neighbour += step * stride[d];
      }
      if (inside) adjacency_[static_cast<size_t>(p * num_directions_ + dir)] = physical(neighbour);
    }
    for (size_t d = grid_.size(); d-- > 0;) {
      if (++c[d] < grid_[d]) break;
      c[d] = 0;
    }
  }
}

std::vector<int64_t> BrickLayout::brick_coords(int64_t logical) const {
  std::vector<int64_t> c(grid_.size());
  for (size_t d = grid_.size(); d-- > 0;) {
    c[d] = logical % grid_[d];
    logical /= grid_[d];
  }
  return c;
}

int64_t BrickLayout::logical_index(const std::vector<int64_t>& coords) const {
  return row_major_offset(grid_, coords);
}

Region BrickLayout::brick_region(int64_t logical) const {
  const std::vector<int64_t> c = brick_coords(logical);
  Region r(shape_.size());
  for (size_t d = 0; d < shape_.size(); ++d)
    r[d] = {c[d] * extent_[d], std::min(shape_[d], (c[d] + 1) * extent_[d])};
  return r;
}

std::vector<int64_t> BrickLayout::bricks_overlapping(const Region& r) const {
  if (r.size() != shape_.size())
    throw Error("brick layout: region " + region_str(r) + " has the wrong rank for tensor " +
                shape_str(shape_));
  std::vector<int64_t> out;
  const Region clamped = clamp_region(r, shape_);
  if (region_empty(clamped)) return out;
  Region grid_box(shape_.size());
  for (size_t d = 0; d < shape_.size(); ++d)
    grid_box[d] = {clamped[d].lo / extent_[d], (clamped[d].hi - 1) / extent_[d] + 1};
  // Enumerate the grid box row-major (all dims, including the last).
  Region outer = grid_box;
  outer.push_back({0, 1});
  for_each_row(outer, [&](const std::vector<int64_t>& idx) {
    out.push_back(logical_index(std::vector<int64_t>(idx.begin(), idx.end() - 1)));
  });
  return out;
}

int BrickLayout::direction_index(const std::vector<int>& steps) const {
  if (steps.size() != neighbour_dims_.size())
    throw Error("brick layout: a direction needs " + std::to_string(neighbour_dims_.size()) +
                " steps, got " + std::to_string(steps.size()));
  int dir = 0;
  for (int s : steps) {
    if (s < -1 || s > 1) throw Error("brick layout: direction steps must be -1, 0 or +1");
    dir = dir * 3 + (s + 1);
  }
  return dir;
}

int64_t BrickLayout::offset(const std::vector<int64_t>& index) const {
  std::vector<int64_t> brick(shape_.size()), inner(shape_.size());
  for (size_t d = 0; d < shape_.size(); ++d) {
    brick[d] = index[d] / extent_[d];
    inner[d] = index[d] % extent_[d];
  }
  return physical(logical_index(brick)) * volume_ + row_major_offset(extent_, inner);
}

BrickLayout spatial_brick_layout(const Shape& shape, int64_t edge, bool block_batch) {
  if (shape.size() < 3)
    throw Error("brick layout: " + shape_str(shape) + " is not an (N, C, spatial...) activation");
  std::vector<int64_t> ext(shape.size(), edge);
  ext[0] = block_batch ? edge : 1;
  ext[1] = shape[1];
  return BrickLayout(shape, ext);
}

std::vector<float> to_bricks(const std::vector<float>& row_major, const BrickLayout& layout) {
  if (static_cast<int64_t>(row_major.size()) != numel(layout.shape()))
    throw Error("to_bricks: " + std::to_string(row_major.size()) + " values for tensor " +
                shape_str(layout.shape()));
  std::vector<float> out(static_cast<size_t>(layout.storage_size()), 0.0f);
  for (int64_t b = 0; b < layout.num_bricks(); ++b) {
    const Region r = layout.brick_region(b);
    const int64_t run = r.back().size();
    for_each_row(r, [&](const std::vector<int64_t>& idx) {
      std::copy_n(row_major.begin() + row_major_offset(layout.shape(), idx), run,
                  out.begin() + layout.offset(idx));
    });
  }
  return out;
}

std::vector<float> from_bricks(const std::vector<float>& bricked, const BrickLayout& layout) {
  if (static_cast<int64_t>(bricked.size()) != layout.storage_size())
    throw Error("from_bricks: " + std::to_string(bricked.size()) + " values for " +
                std::to_string(layout.num_bricks()) + " bricks of " +
                std::to_string(layout.brick_volume()));
  std::vector<float> out(static_cast<size_t>(numel(layout.shape())));
  for (int64_t b = 0; b < layout.num_bricks(); ++b) {
    const Region r = layout.brick_region(b);
    const int64_t run = r.back().size();
    for_each_row(r, [&](const std::vector<int64_t>& idx) {
      std::copy_n(bricked.begin() + layout.offset(idx), run,
                  out.begin() + row_major_offset(layout.shape(), idx));
    });
  }
  return out;
}

}  // namespace dgs
