// The mesh network's link schedule (common/dsamodel/mesh_noc.h) against a plain reference: each
// link's busy intervals in a list searched from its start, and each send restarting a whole pass
// over its route after any link moved its start, until one pass moves nothing. MeshNoc::send
// (the round over the route; per link a branch-free binary search, tried first at its last place,
// and a later visit in the same send resumed by earliest_free_from) must give every send
// the same start and arrival, on hand-built sends (contended links, gaps exactly long enough and
// one cycle too short) and on a fixed random stream with forgotten reservations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/dsamodel/mesh_noc.h"

namespace dgs {
namespace {

class ReferenceNoc {
 public:
  ReferenceNoc(int columns, int rows, double width, double hop)
      : noc_(columns, rows, width, hop),
        width_(width),
        hop_(hop),
        busy_(static_cast<size_t>(noc_.num_links())) {}

  MeshNoc::Transfer send(MeshPoint a, MeshPoint b, double bytes, double ready) {
    const std::vector<int> links = noc_.route(a, b);
    MeshNoc::Transfer t;
    t.hops = static_cast<int>(links.size());
    t.start = ready;
    if (links.empty() || bytes <= 0) {
      t.end = ready;
      return t;
    }
    const double serial = std::ceil(bytes / width_);
    for (bool moved = true; moved;) {
      moved = false;
      for (int l : links) {
        const double at = earliest(busy_[static_cast<size_t>(l)], t.start, serial);
        if (at > t.start) {
          t.start = at;
          moved = true;
        }
      }
    }
    for (int l : links) {
      std::vector<std::pair<double, double>>& v = busy_[static_cast<size_t>(l)];
      v.push_back({t.start, t.start + serial});
      std::sort(v.begin(), v.end());
    }
    t.end = t.start + t.hops * hop_ + serial;
    return t;
  }
  void forget_before(double t) {
    for (auto& v : busy_)
      v.erase(std::remove_if(v.begin(), v.end(), [t](const auto& e) { return e.second <= t; }),
              v.end());
  }

 private:
  // The first t' >= t with [t', t' + d) overlapping no interval of v (sorted, disjoint).
  static double earliest(const std::vector<std::pair<double, double>>& v, double t, double d) {
    for (const auto& e : v)
      if (e.first < t + d && e.second > t) t = e.second;
    return t;
  }
  MeshNoc noc_;  // for its routes only
  double width_, hop_;
  std::vector<std::vector<std::pair<double, double>>> busy_;
};

struct Send {
  MeshPoint a, b;
  double bytes = 0, ready = 0;
};

void expect_same_transfers(const std::vector<Send>& sends, int forget_every) {
  MeshNoc noc(8, 8, 8, 1);
  ReferenceNoc ref(8, 8, 8, 1);
  for (size_t i = 0; i < sends.size(); ++i) {
    if (forget_every > 0 && i % static_cast<size_t>(forget_every) == 0 &&
        i >= 2 * static_cast<size_t>(forget_every)) {
      const double t = sends[i - static_cast<size_t>(forget_every)].ready;
      noc.forget_before(t);
      ref.forget_before(t);
    }
    const Send& s = sends[i];
    const MeshNoc::Transfer got = noc.send(s.a, s.b, s.bytes, s.ready);
    const MeshNoc::Transfer want = ref.send(s.a, s.b, s.bytes, s.ready);
    ASSERT_EQ(got.start, want.start) << "send " << i;
    ASSERT_EQ(got.end, want.end) << "send " << i;
    ASSERT_EQ(got.hops, want.hops) << "send " << i;
  }
}

// Hand-built: 80 B is 10 cycles on an 8 B/cycle link. Link (1,0)->(2,0) is busy [0, 10) and
// [20, 30); link (2,0)->(3,0) [12, 22). A 10-cycle send over both from 0 fits neither gap
// [10, 20) (the second link is busy from 12) nor [22, 30): it goes at 30. A send of exactly the
// gap's length takes it; one cycle longer does not.
TEST(MeshNocSearch, HandBuiltSendsMatchTheReference) {
  MeshNoc noc(8, 8, 8, 1);
  EXPECT_EQ(noc.send({1, 0}, {2, 0}, 80, 0).start, 0);
  EXPECT_EQ(noc.send({1, 0}, {2, 0}, 80, 20).start, 20);
  EXPECT_EQ(noc.send({2, 0}, {3, 0}, 80, 12).start, 12);
  const MeshNoc::Transfer both = noc.send({1, 0}, {3, 0}, 80, 0);
  EXPECT_EQ(both.start, 30);
  EXPECT_EQ(both.end, 30 + 2 + 10);  // two hops, ten cycles of bytes
  // Link (1,0)->(2,0) is now busy [0, 10), [20, 40); (2,0)->(3,0) [12, 22), [30, 40).
  EXPECT_EQ(noc.send({1, 0}, {2, 0}, 80, 0).start, 10);   // [10, 20): exactly long enough
  EXPECT_EQ(noc.send({2, 0}, {3, 0}, 64, 22).start, 22);  // [22, 30): 8 cycles, exactly
  EXPECT_EQ(noc.send({2, 0}, {3, 0}, 72, 0).start, 0);    // [0, 12): 9 cycles fit
  EXPECT_EQ(noc.send({2, 0}, {3, 0}, 32, 9).start, 40);   // 4 cycles: [9, 12) one too short
  EXPECT_EQ(noc.send({2, 0}, {3, 0}, 24, 9).start, 9);    // 3 cycles: exactly

  const std::vector<Send> sends = {
      {{1, 0}, {2, 0}, 80, 0}, {{1, 0}, {2, 0}, 80, 20}, {{2, 0}, {3, 0}, 80, 12},
      {{1, 0}, {3, 0}, 80, 0}, {{1, 0}, {2, 0}, 80, 0},  {{2, 0}, {3, 0}, 64, 22},
      {{2, 0}, {3, 0}, 72, 0}, {{2, 0}, {3, 0}, 32, 9},  {{2, 0}, {3, 0}, 24, 9},
      {{0, 0}, {3, 2}, 88, 0}, {{3, 2}, {0, 0}, 88, 0},  {{0, 0}, {0, 0}, 88, 0},
      {{1, 0}, {3, 1}, 0, 5},  {{0, 0}, {3, 1}, 81, 11}, {{1, 0}, {2, 1}, 79, 10},
      {{2, 0}, {3, 3}, 8, 21}};
  expect_same_transfers(sends, 0);
}

// A fixed stream (a linear congruential generator): rounds of 64 sends whose ready times share
// a window, some rounds in order and some with ready times out of order, on a small corner of
// the mesh so that routes collide; reservations older than two rounds are forgotten.
TEST(MeshNocSearch, RandomStreamMatchesTheReference) {
  uint64_t state = 11;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  std::vector<Send> sends;
  for (int r = 0; r < 60; ++r)
    for (int i = 0; i < 64; ++i) {
      Send s;
      s.a = {static_cast<int>(next(4)), static_cast<int>(next(4))};
      s.b = {static_cast<int>(next(4)), static_cast<int>(next(4))};
      s.bytes = static_cast<double>(8 * (1 + next(40)));
      s.ready =
          300.0 * r + static_cast<double>(r % 2 == 0 ? static_cast<uint64_t>(2 * i) : next(200));
      sends.push_back(s);
    }
  expect_same_transfers(sends, 64);
}

}  // namespace
}  // namespace dgs
