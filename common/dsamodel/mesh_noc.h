#pragma once
// A 2-D mesh network with dimension-ordered (XY) routing: the route of a transfer (X first,
// then Y), its hop count, and a schedule of directed links in which transfers that share a link
// serialise and transfers on disjoint links overlap. Coordinates are (x = column, y = row), as
// plan placements of unit kind "engine" give them.
#include <cstdint>
#include <string>
#include <vector>

#include "common/dsamodel/busy_intervals.h"

namespace dgs {

struct MeshPoint {
  int x = 0;  // column
  int y = 0;  // row
  bool operator==(const MeshPoint&) const = default;
};

// The number of hops of the XY route from `a` to `b`: |dx| + |dy| (the Manhattan distance).
int xy_hops(MeshPoint a, MeshPoint b);

// The engines of a columns x rows mesh in boustrophedon ("snake") order: row 0 west to east,
// row 1 east to west, and so on.
std::vector<MeshPoint> snake_order(int columns, int rows);

class MeshNoc {
 public:
  // link_bytes_per_cycle per direction; hop_cycles per hop (wormhole: a transfer of B bytes over
  // h hops takes h * hop_cycles + ceil(B / link_bytes_per_cycle) cycles once it holds its links).
  MeshNoc(int columns, int rows, double link_bytes_per_cycle, double hop_cycles);

  int columns() const { return columns_; }
  int rows() const { return rows_; }
  // The directed links of the XY route from `a` to `b`, in order (ids: see link_id).
  std::vector<int> route(MeshPoint a, MeshPoint b) const;
  // The same into `links` (cleared first), without allocating once it has grown.
  void route_into(MeshPoint a, MeshPoint b, std::vector<int>& links) const;
  // The id of the link leaving `p` in direction d (0 east, 1 west, 2 south (+y), 3 north (-y)).
  int link_id(MeshPoint p, int direction) const { return (p.y * columns_ + p.x) * 4 + direction; }
  int num_links() const { return columns_ * rows_ * 4; }
  // "link (x,y)->(x',y')" for link id `id`.
  std::string link_name(int id) const;

  struct Transfer {
    double start = 0;  // cycle its links were taken
    double end = 0;    // cycle its last byte arrived
    int hops = 0;
  };
  // Sends `bytes` from `a` to `b`, not before cycle `ready`: it takes the first moment every link
  // of its route is free for ceil(bytes / width) cycles and holds all of them that long
  // (transfers sharing a link serialise; a later send may use an earlier gap). A transfer from a
  // point to itself takes no time.
  Transfer send(MeshPoint a, MeshPoint b, double bytes, double ready);
  // Forgets link reservations that end at or before t (no transfer starts before t any more).
  void forget_before(double t) {
    for (BusyIntervals& b : link_busy_) b.forget_before(t);
  }
  // Bytes carried by each link so far, by link id.
  const std::vector<double>& link_bytes() const { return link_bytes_; }
  double byte_hops() const { return byte_hops_; }

 private:
  int columns_, rows_;
  double width_, hop_cycles_;
  std::vector<BusyIntervals> link_busy_;
  std::vector<double> link_bytes_;
  double byte_hops_ = 0;
  // The route of each pair of points that send has used, by a.index * points + b.index: its
  // links at route_links_[route_at_[pair]] on (route_at_ -1: not yet), each after its length;
  // on meshes of at most kCachedRoutePoints points (beyond, routed per send into route_scratch_).
  static constexpr int kCachedRoutePoints = 256;
  std::vector<int32_t> route_at_;
  std::vector<int> route_links_;
  std::vector<int> route_scratch_;
  std::vector<size_t> slot_scratch_;  // send's place in each link's intervals
};

}  // namespace dgs
