#pragma once
// The brick data layout: a tensor cut into small fixed-size boxes ("bricks"), each stored
// contiguously (row-major inside the brick), with three pieces of bookkeeping:
//   * the brick grid: bricks per dim = ceil(dim / brick extent); a brick at the tensor's upper
//     edge is partial, and its elements beyond the edge are zero (masked) in the bricked storage;
//   * the brick map (logical -> physical): the logical brick coordinate (its position in the
//     grid) maps to the physical slot that holds its data; any permutation is allowed (the
//     default is row-major order of the grid), so neighbours are found through the adjacency
//     list, never by address arithmetic;
//   * the adjacency list ("brick info"): for each physical brick, the physical index of its
//     neighbour in each direction {-1, 0, +1}^n over the neighbour dims (kNoBrick beyond the
//     tensor's edge; direction 0...0 is the brick itself).
// A brick covers a box in every dim of the tensor. For activations (N, C, spatial...) the usual
// layout blocks the spatial dims by an edge B, keeps all channels in every brick, and puts one
// sample per brick (or B samples, when the batch is blocked too): spatial_brick_layout.
// Neighbour dims are the dims with a brick extent > 1 and more than one brick along them (so the
// channel dim, whole in every brick, and an unblocked batch, one sample per brick, are not).
#include <cstdint>
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"

namespace dgs {

inline constexpr int64_t kNoBrick = -1;

class BrickLayout {
 public:
  // `brick_extent`: the brick's extent per dim of `shape` (same rank, each >= 1; an extent larger
  // than the dim is allowed and gives one partial brick). `brick_map`: physical slot of each
  // logical brick (a permutation of 0..num_bricks-1); empty = row-major (identity). Throws
  // dgs::Error naming the bad argument.
  BrickLayout(Shape shape, std::vector<int64_t> brick_extent, std::vector<int64_t> brick_map = {});

  const Shape& shape() const { return shape_; }
  const std::vector<int64_t>& brick_extent() const { return extent_; }
  const std::vector<int64_t>& grid() const { return grid_; }  // bricks per dim
  int64_t num_bricks() const { return static_cast<int64_t>(map_.size()); }
  int64_t brick_volume() const { return volume_; }  // elements of a brick, padding included
  int64_t storage_size() const { return num_bricks() * volume_; }

  // Logical index <-> grid coordinates (row-major over the grid).
  std::vector<int64_t> brick_coords(int64_t logical) const;
  int64_t logical_index(const std::vector<int64_t>& coords) const;
  // The brick map and its inverse.
  int64_t physical(int64_t logical) const { return map_[static_cast<size_t>(logical)]; }
  int64_t logical(int64_t physical) const { return inverse_[static_cast<size_t>(physical)]; }
  const std::vector<int64_t>& brick_map() const { return map_; }

  // The part of the tensor a logical brick holds (clipped at the tensor's edge), and how many of
  // its elements are real (the rest are the zero mask).
  Region brick_region(int64_t logical) const;
  int64_t valid_elements(int64_t logical) const { return region_numel(brick_region(logical)); }
  // The logical bricks that overlap `r` (a region of the tensor), in row-major grid order.
  std::vector<int64_t> bricks_overlapping(const Region& r) const;

  // Neighbour dims and the adjacency list.
  const std::vector<int>& neighbour_dims() const { return neighbour_dims_; }
  int num_directions() const { return num_directions_; }  // 3^(neighbour dims)
  // The direction index of per-neighbour-dim steps in {-1, 0, +1} (row-major over {-1,0,1}^n).
  int direction_index(const std::vector<int>& steps) const;
  int self_direction() const { return num_directions_ / 2; }
  // Physical index of the neighbour of physical brick `physical` in direction `dir`, or kNoBrick.
  int64_t neighbour(int64_t physical, int dir) const {
    return adjacency_[static_cast<size_t>(physical * num_directions_ + dir)];
  }

  // Offset in the bricked storage of tensor element `index` (full rank, in bounds).
  int64_t offset(const std::vector<int64_t>& index) const;

 private:
  Shape shape_;
  std::vector<int64_t> extent_, grid_;
  int64_t volume_ = 1;
  std::vector<int64_t> map_, inverse_;
  std::vector<int> neighbour_dims_;
  int num_directions_ = 1;
  std::vector<int64_t> adjacency_;  // physical brick x direction -> physical neighbour
};

// The layout of an activation (N, C, D1, ..., Dk) with spatial bricks of edge `edge`, all channels
// in every brick, and one sample per brick (block_batch == false) or `edge` samples.
BrickLayout spatial_brick_layout(const Shape& shape, int64_t edge, bool block_batch = false);

// Row-major tensor values <-> bricked storage (physical order; partial bricks zero-masked).
// Throws dgs::Error when the value count differs from the layout's shape.
std::vector<float> to_bricks(const std::vector<float>& row_major, const BrickLayout& layout);
std::vector<float> from_bricks(const std::vector<float>& bricked, const BrickLayout& layout);

}  // namespace dgs
