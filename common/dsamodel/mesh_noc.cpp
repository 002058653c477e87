// XY routing and per-link reservations on a 2-D mesh.
#include "common/dsamodel/mesh_noc.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "common/util/error.h"

namespace dgs {

int xy_hops(MeshPoint a, MeshPoint b) {
  return std::abs(a.x - b.x) + std::abs(a.y - b.y);
}

std::vector<MeshPoint> snake_order(int columns, int rows) {
  std::vector<MeshPoint> order;
  for (int y = 0; y < rows; ++y)
    for (int i = 0; i < columns; ++i) order.push_back({y % 2 == 0 ? i : columns - 1 - i, y});
  return order;
}

MeshNoc::MeshNoc(int columns, int rows, double link_bytes_per_cycle, double hop_cycles)
    : columns_(columns),
      rows_(rows),
      width_(link_bytes_per_cycle),
      hop_cycles_(hop_cycles),
      link_busy_(static_cast<size_t>(columns * rows * 4)),
      link_bytes_(static_cast<size_t>(columns * rows * 4), 0.0) {
  if (columns < 1 || rows < 1 || !(link_bytes_per_cycle > 0))
    throw Error("mesh network: needs at least one engine and links of positive width");
}

std::vector<int> MeshNoc::route(MeshPoint a, MeshPoint b) const {
  std::vector<int> links;
  route_into(a, b, links);
  return links;
}

void MeshNoc::route_into(MeshPoint a, MeshPoint b, std::vector<int>& links) const {
  if (a.x < 0 || a.y < 0 || b.x < 0 || b.y < 0 || a.x >= columns_ || b.x >= columns_ ||
      a.y >= rows_ || b.y >= rows_)
    throw Error("mesh network: route outside the " + std::to_string(columns_) + "x" +
                std::to_string(rows_) + " mesh");
  links.clear();
  MeshPoint p = a;
  while (p.x != b.x) {
    const int dir = b.x > p.x ? 0 : 1;
    links.push_back(link_id(p, dir));
    p.x += dir == 0 ? 1 : -1;
  }
  while (p.y != b.y) {
    const int dir = b.y > p.y ? 2 : 3;
    links.push_back(link_id(p, dir));
    p.y += dir == 2 ? 1 : -1;
  }
}

MeshNoc::Transfer MeshNoc::send(MeshPoint a, MeshPoint b, double bytes, double ready) {
  // The route's links: each pair's routed once (send runs for every transfer of a plan).
  const int* links = nullptr;
  size_t h = 0;
  const int points = columns_ * rows_;
  if (points <= kCachedRoutePoints && a.x >= 0 && a.y >= 0 && b.x >= 0 && b.y >= 0 &&
      a.x < columns_ && b.x < columns_ && a.y < rows_ && b.y < rows_) {
    if (route_at_.empty()) route_at_.assign(static_cast<size_t>(points * points), -1);
    int32_t& at =
        route_at_[static_cast<size_t>((a.y * columns_ + a.x) * points + b.y * columns_ + b.x)];
    if (at < 0) {
      route_into(a, b, route_scratch_);
      at = static_cast<int32_t>(route_links_.size());
      route_links_.push_back(static_cast<int>(route_scratch_.size()));
      route_links_.insert(route_links_.end(), route_scratch_.begin(), route_scratch_.end());
    }
    h = static_cast<size_t>(route_links_[static_cast<size_t>(at)]);
    links = route_links_.data() + at + 1;
  } else {
    route_into(a, b, route_scratch_);  // refuses a point outside the mesh
    links = route_scratch_.data();
    h = route_scratch_.size();
  }
  Transfer t;
  t.hops = static_cast<int>(h);
  t.start = ready;
  if (h == 0 || bytes <= 0) {
    t.end = ready;
    return t;
  }
  const double serial = std::ceil(bytes / width_);
  // Round the route, each link moving the start to its first free moment at or after it, until
  // every link in a row has accepted it. Each link's first free moment never passes the least
  // start all links accept, so this finds that start in any order; going round (instead of
  // restarting a whole pass after a move) stops as soon as the links since the last move agree.
  // Each link's place for the start it last accepted, which is the final start once all agree
  // (a route never uses a link twice, so adding to one link leaves the others' places valid).
  // A link's first visit searches its intervals; a later one, for a later start, resumes from
  // the place the last one found (earliest_free_from: the same time and place).
  slot_scratch_.resize(h);
  for (size_t k = 0, i = 0, accepted = 0; accepted < h; ++k, i = i + 1 == h ? 0 : i + 1) {
    const BusyIntervals& busy = link_busy_[static_cast<size_t>(links[i])];
    const double at = k < h ? busy.earliest_free(t.start, serial, slot_scratch_[i])
                            : busy.earliest_free_from(t.start, serial, slot_scratch_[i]);
    if (at > t.start) {
      t.start = at;
      accepted = 1;  // link i holds the new start
    } else {
      ++accepted;
    }
  }
  for (size_t i = 0; i < h; ++i) {
    const size_t l = static_cast<size_t>(links[i]);
    link_busy_[l].add_at(slot_scratch_[i], t.start, serial);
    link_bytes_[l] += bytes;
  }
  byte_hops_ += bytes * t.hops;
  t.end = t.start + t.hops * hop_cycles_ + serial;
  return t;
}

std::string MeshNoc::link_name(int id) const {
  const int node = id / 4, direction = id % 4;
  const int x = node % columns_, y = node / columns_;
  static constexpr int kDx[] = {1, -1, 0, 0}, kDy[] = {0, 0, 1, -1};
  return "link (" + std::to_string(x) + "," + std::to_string(y) + ")->(" +
         std::to_string(x + kDx[direction]) + "," + std::to_string(y + kDy[direction]) + ")";
}

}  // namespace dgs
