#pragma once
// The output axes of an op along which a tile can slide without changing anything about the
// regions it reads but their place: for cost models and caches that price a tile by its shape
// and by which tensor edges its reads touch (the DSA model's per-shape demand and the Atomic
// tilings), a tile's edges on such an axis say nothing.
#include <cstdint>
#include <vector>

#include "common/graph/iteration_space.h"

namespace dgs {

struct SlidingAxes {
  // Bit a: output axis a slides (axes from 64 on are never set).
  uint64_t output = 0;
  // Per input of the op, bit d: the input's dim d is indexed by a sliding axis (and by nothing
  // else that varies).
  std::vector<uint64_t> driven;
};

// The sliding axes of op `op` of `g` (output 0; its iteration space `s`). An output axis slides
// when every input access is Affine or Omitted (no Custom map) and each input dim whose
// coordinate varies with the axis is the axis itself: offset 0, one term of the axis with
// coefficient 1 and divisor 1, every other term constant (a reduction axis of extent 1, or a
// floored term whose divisor is at least its axis's extent: a one-group convolution's input
// channel over its output channels), on an input dim as long as the axis. The region a tile reads
// on such a dim is then the tile's own interval there: never clipped by the tensor's bounds,
// every coordinate read, no floored term whose values depend on where the interval starts.
// Moving a tile along sliding axes therefore moves the regions it reads on the driven dims and
// changes nothing else: the same shapes, the same edges touched on every other dim. (A
// convolution's batch and output channels slide; its rows do not where the window has a halo or
// a stride.)
SlidingAxes sliding_axes(const Graph& g, int op, const IterationSpace& s);

}  // namespace dgs
