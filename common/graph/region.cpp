#include "common/graph/iteration_space.h"

#include <algorithm>
#include <sstream>

// Regions: boxes of half-open intervals, one per dim (see iteration_space.h).
namespace dgs {

Region full_region(const Shape& s) {
  Region r;
  r.reserve(s.size());
  for (int64_t d : s) r.push_back({0, d});
  return r;
}

bool region_empty(const Region& r) {
  return std::any_of(r.begin(), r.end(), [](const Interval& i) { return i.empty(); });
}

int64_t region_numel(const Region& r) {
  int64_t n = 1;
  for (const Interval& i : r) n *= i.size();
  return n;
}

Region region_union(const Region& a, const Region& b) {
  if (region_empty(a)) return b;
  if (region_empty(b)) return a;
  if (a.size() != b.size()) {
    throw Error("region_union: ranks differ (" + region_str(a) + " and " + region_str(b) +
                "); expected regions of one tensor");
  }
  Region r(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    r[i] = {std::min(a[i].lo, b[i].lo), std::max(a[i].hi, b[i].hi)};
  }
  return r;
}

Region region_intersect(const Region& a, const Region& b) {
  if (a.size() != b.size()) {
    throw Error("region_intersect: ranks differ (" + region_str(a) + " and " + region_str(b) +
                "); expected regions of one tensor");
  }
  Region r(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    r[i] = {std::max(a[i].lo, b[i].lo), std::min(a[i].hi, b[i].hi)};
    if (r[i].hi < r[i].lo) r[i].hi = r[i].lo;
  }
  return r;
}

Region clamp_region(const Region& r, const Shape& s) {
  Region out(r.size());
  for (size_t i = 0; i < r.size(); ++i) {
    const int64_t d = i < s.size() ? s[i] : 1;
    int64_t lo = std::clamp<int64_t>(r[i].lo, 0, d);
    int64_t hi = std::clamp<int64_t>(r[i].hi, 0, d);
    out[i] = {lo, std::max(lo, hi)};
  }
  return out;
}

bool region_contains(const Region& outer, const Region& inner) {
  if (region_empty(inner)) return true;
  if (outer.size() != inner.size()) return false;
  for (size_t i = 0; i < outer.size(); ++i) {
    if (inner[i].lo < outer[i].lo || inner[i].hi > outer[i].hi) return false;
  }
  return true;
}

Shape region_shape(const Region& r) {
  Shape s;
  for (const Interval& iv : r) s.push_back(iv.size());
  return s;
}

Region region_relative(const Region& r, const Region& origin) {
  if (r.size() != origin.size())
    throw Error("region_relative: ranks differ (" + region_str(r) + " and " + region_str(origin) +
                ")");
  Region out = r;
  for (size_t d = 0; d < out.size(); ++d) {
    out[d].lo -= origin[d].lo;
    out[d].hi -= origin[d].lo;
  }
  return out;
}

int64_t access_numel(const AccessRegion& a) {
  if (a.touched.empty() || a.touched.size() != a.region.size()) return region_numel(a.region);
  if (region_empty(a.region)) return 0;
  int64_t n = 1;
  for (int64_t t : a.touched) n *= t;
  return n;
}

AccessRegion access_union(const AccessRegion& a, const AccessRegion& b) {
  AccessRegion u;
  u.region = region_union(a.region, b.region);
  u.unclamped = region_union(a.unclamped, b.unclamped);
  u.exact = a.exact && b.exact;
  if (a.touched.empty() && b.touched.empty()) return u;
  if (a.region == b.region && a.touched == b.touched) {
    u.touched = a.touched;
    return u;
  }
  if (region_empty(a.region)) {
    u.touched = b.touched;
    return u;
  }
  if (region_empty(b.region)) {
    u.touched = a.touched;
    return u;
  }
  const Shape sa = region_shape(a.region), sb = region_shape(b.region);
  const Shape box = region_shape(u.region);
  bool gaps = false;
  u.touched.resize(box.size());
  for (size_t d = 0; d < box.size(); ++d) {
    const int64_t ta = a.touched.empty() ? sa[d] : a.touched[d];
    const int64_t tb = b.touched.empty() ? sb[d] : b.touched[d];
    u.touched[d] = std::min(box[d], ta + tb);
    gaps = gaps || u.touched[d] < box[d];
  }
  if (!gaps) u.touched.clear();
  return u;
}

std::string region_str(const Region& r) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < r.size(); ++i) os << (i ? "," : "") << r[i].lo << ':' << r[i].hi;
  os << ']';
  return os.str();
}

}  // namespace dgs
