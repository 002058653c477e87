#pragma once
// An index of the regions of one tensor (the writes or reads that the DSA model's timeline has
// seen, the writes Plan::check holds), so that a task's reads are not each tested against every
// write of the tensor (and its writes against every read), and the box tests it needs without
// allocating. In common/graph so that common/plan and common/dsamodel both use it.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"

namespace dgs {

// Which of a tensor's regions (numbered in the order added) may overlap a query region, so that
// a task's reads are not each tested against every write of the tensor (and its writes against
// every read): atom plans have thousands of each per tensor. Regions are bucketed by their start
// on up to two axes (the two the first region splits finest: one axis alone, the batch's at batch
// 20, left every query of an atom plan about 70 candidates for 6 overlaps); the candidates are a
// superset of the overlapping ones, and the caller tests each exactly as before and restores the
// list order.
class RegionIndex {
 public:
  explicit RegionIndex(const Shape& shape) : shape_(shape) {}

  void add(const Region& r) {
    const uint32_t i = count_++;
    if (axes_ == 0 && !linear_) choose_axes(r);
    if (linear_) return;
    size_t bucket = 0;
    for (int k = 0; k < axes_; ++k) {
      const Axis& x = axis_[k];
      const size_t a = static_cast<size_t>(x.axis);
      if (r.size() != shape_.size() || r[a].lo < 0 || r[a].lo >= shape_[a]) {
        always_.push_back(i);  // outside the buckets: a candidate of every query
        return;
      }
      bucket = bucket * x.buckets + static_cast<size_t>(r[a].lo / x.width);
    }
    for (int k = 0; k < axes_; ++k) {
      const size_t a = static_cast<size_t>(axis_[k].axis);
      axis_[k].max_len = std::max(axis_[k].max_len, r[a].hi - r[a].lo);
    }
    buckets_[bucket].push_back(i);
  }

  // Calls f(number) for every region that may overlap `q` (in no particular order).
  template <typename F>
  void for_each_candidate(const Region& q, F&& f) const {
    if (linear_ || axes_ == 0 || q.size() != shape_.size()) {
      for (uint32_t i = 0; i < count_; ++i) f(i);
      return;
    }
    for (const uint32_t i : always_) f(i);
    for_each_bucket(q, [&](const std::vector<uint32_t>& v) {
      for (const uint32_t i : v) f(i);
    });
  }

  // The largest number among the regions that may overlap `q` for which match(number) is
  // Match::Yes, or -1: what for_each_candidate finds keeping the largest such number, but each
  // bucket is searched from its end (numbers ascend in a bucket) down to its first match, or to
  // a number for which match says Match::NoneBelow (neither it nor any smaller number matches).
  enum class Match { Yes, No, NoneBelow };
  template <typename P>
  int64_t last_candidate(const Region& q, P&& match) const {
    int64_t best = -1;
    auto search = [&](const std::vector<uint32_t>& v) {
      for (auto it = v.rbegin(); it != v.rend() && static_cast<int64_t>(*it) > best; ++it) {
        const Match m = match(*it);
        if (m == Match::NoneBelow) return;
        if (m == Match::Yes) {
          best = *it;
          return;
        }
      }
    };
    if (linear_ || axes_ == 0 || q.size() != shape_.size()) {
      for (int64_t i = static_cast<int64_t>(count_) - 1; i >= 0; --i) {
        const Match m = match(static_cast<uint32_t>(i));
        if (m == Match::NoneBelow) return -1;
        if (m == Match::Yes) return i;
      }
      return -1;
    }
    search(always_);
    for_each_bucket(q, search);
    return best;
  }

 private:
  struct Axis {
    int axis = -1;
    int64_t width = 1;    // of a bucket, on the axis
    size_t buckets = 1;   // on the axis
    int64_t max_len = 0;  // the longest bucketed region on the axis
  };

  // Calls f(bucket) for every bucket that may hold a region overlapping q: on each axis, a region
  // overlaps q only if it starts in (q.lo - max_len, q.hi).
  template <typename F>
  void for_each_bucket(const Region& q, F&& f) const {
    int64_t from[2] = {0, 0}, to[2] = {-1, -1};
    for (int k = 0; k < axes_; ++k) {
      const Axis& x = axis_[k];
      const size_t a = static_cast<size_t>(x.axis);
      const int64_t lo = std::max<int64_t>(0, q[a].lo - x.max_len + 1);
      const int64_t hi = std::min<int64_t>(shape_[a] - 1, q[a].hi - 1);
      if (lo > hi) return;
      from[k] = lo / x.width;
      to[k] = hi / x.width;
    }
    if (axes_ == 1) {
      for (int64_t b = from[0]; b <= to[0]; ++b) f(buckets_[static_cast<size_t>(b)]);
      return;
    }
    for (int64_t b = from[0]; b <= to[0]; ++b)
      for (int64_t c = from[1]; c <= to[1]; ++c)
        f(buckets_[static_cast<size_t>(b) * axis_[1].buckets + static_cast<size_t>(c)]);
  }

  // The axes the first region `r` splits finest (the part of the extent it covers, least first;
  // ties: the lower axis), at most two, and their bucket widths (r's extent on the axis, or more
  // where the buckets would pass kMaxBuckets).
  void choose_axes(const Region& r) {
    if (shape_.empty() || r.size() != shape_.size()) {
      linear_ = true;
      return;
    }
    std::vector<std::pair<double, int>> parts;
    for (size_t d = 0; d < shape_.size(); ++d) {
      if (shape_[d] <= 1) continue;
      const double part = static_cast<double>(r[d].size()) / static_cast<double>(shape_[d]);
      if (part < 2) parts.push_back({part, static_cast<int>(d)});
    }
    std::stable_sort(parts.begin(), parts.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    if (parts.empty()) {
      linear_ = true;
      return;
    }
    // A second axis only where the first region splits it (covers less than all of it).
    axes_ = parts.size() > 1 && parts[1].first < 1 ? 2 : 1;
    size_t total = 1;
    for (int k = 0; k < axes_; ++k) {
      Axis& x = axis_[k];
      x.axis = parts[static_cast<size_t>(k)].second;
      const int64_t extent = shape_[static_cast<size_t>(x.axis)];
      // The second axis divides what the first leaves of kMaxGrid buckets (none left: one axis).
      const int64_t per_axis = k == 0 ? kMaxBuckets : kMaxGrid / static_cast<int64_t>(total);
      if (k == 1 && per_axis < 2) {
        axes_ = 1;
        break;
      }
      x.width = std::max<int64_t>(
          {1, r[static_cast<size_t>(x.axis)].size(), (extent + per_axis - 1) / per_axis});
      x.buckets = static_cast<size_t>((extent + x.width - 1) / x.width);
      total *= x.buckets;
    }
    buckets_.resize(total);
  }

  // At most kMaxBuckets on the first axis, and kMaxGrid over both (an index per tensor, two per
  // tensor a plan reads and writes: its empty buckets cost 24 bytes each).
  static constexpr int64_t kMaxBuckets = 65536;
  static constexpr int64_t kMaxGrid = 4096;
  Shape shape_;
  int axes_ = 0;  // 1 or 2 once chosen
  Axis axis_[2];
  bool linear_ = false;  // no useful axis: every region is a candidate
  uint32_t count_ = 0;
  std::vector<std::vector<uint32_t>> buckets_;  // by start on the axes / width, row-major
  std::vector<uint32_t> always_;
};

// The number of elements two boxes of the same tensor have in common (no allocation: this runs
// for every pair of a read and a write of a tensor).
inline int64_t overlap_numel(const Region& a, const Region& b) {
  int64_t n = 1;
  for (size_t d = 0; d < a.size() && d < b.size(); ++d) {
    const int64_t lo = std::max(a[d].lo, b[d].lo), hi = std::min(a[d].hi, b[d].hi);
    if (hi <= lo) return 0;
    n *= hi - lo;
  }
  return n;
}

// Whether region_intersect(held, need) == need, without allocating: `held` holds every element
// of `need` (an empty `need` only where its empty intervals sit inside `held`'s).
inline bool region_contains_exactly(const Region& held, const Region& need) {
  if (held.size() != need.size()) return false;
  for (size_t d = 0; d < need.size(); ++d) {
    const int64_t lo = std::max(held[d].lo, need[d].lo);
    const int64_t hi = std::max(lo, std::min(held[d].hi, need[d].hi));
    if (lo != need[d].lo || hi != need[d].hi) return false;
  }
  return true;
}

}  // namespace dgs
