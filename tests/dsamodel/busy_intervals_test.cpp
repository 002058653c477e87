// The busy intervals of a shared resource (common/dsamodel/busy_intervals.h): add_at, which
// adds at the place earliest_free found (MeshNoc::send and the DSA model's transfers use it),
// leaves the same intervals as add, which searches for the place itself.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "common/dsamodel/busy_intervals.h"

namespace dgs {
namespace {

TEST(BusyIntervals, AddAtJoinsTheNeighboursItTouches) {
  BusyIntervals b;
  b.add(0, 10);
  b.add(20, 10);  // [0, 10) and [20, 30)
  size_t slot = 99;
  EXPECT_EQ(b.earliest_free(5, 5, slot), 10);
  EXPECT_EQ(slot, 1u);    // between the two
  b.add_at(slot, 10, 5);  // joins [0, 10): [0, 15), [20, 30)
  EXPECT_EQ(b.earliest_free(0, 5), 15);
  EXPECT_EQ(b.earliest_free(0, 6), 30);  // the gap [15, 20) is too short
  EXPECT_EQ(b.earliest_free(15, 5, slot), 15);
  b.add_at(slot, 15, 5);  // fills the gap: one interval [0, 30)
  EXPECT_EQ(b.earliest_free(0, 1), 30);
  EXPECT_EQ(b.earliest_free(40, 1, slot), 40);
  EXPECT_EQ(slot, 1u);  // after the last
  b.add_at(slot, 40, 2);
  EXPECT_EQ(b.earliest_free(30, 11), 42);
  EXPECT_EQ(b.earliest_free(30, 10), 30);
  EXPECT_EQ(b.total(), 32);
}

// A fixed stream of reservations (a linear congruential generator), each at the earliest free
// moment after a random time, some forgotten as the DSA model forgets them per stage: the two
// lists answer every query alike.
TEST(BusyIntervals, AddAtLeavesTheSameIntervalsAsAdd) {
  uint64_t state = 7;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>((state >> 33) % n);
  };
  BusyIntervals by_add, by_slot;
  for (int i = 0; i < 4000; ++i) {
    const double ready = 10.0 * i + next(400), duration = 1 + next(30);
    const double t = by_add.earliest_free(ready, duration);
    size_t slot = 0;
    ASSERT_EQ(by_slot.earliest_free(ready, duration, slot), t) << "reservation " << i;
    by_add.add(t, duration);
    by_slot.add_at(slot, t, duration);
    if (i % 100 == 99) {
      by_add.forget_before(10.0 * (i - 150));
      by_slot.forget_before(10.0 * (i - 150));
    }
    for (int q = 0; q < 4; ++q) {
      const double at = 10.0 * i + next(600) - 300, d = next(40);
      ASSERT_EQ(by_slot.earliest_free(at, d), by_add.earliest_free(at, d)) << "reservation " << i;
    }
  }
  EXPECT_EQ(by_slot.total(), by_add.total());
}

// earliest_free against a scan of every interval, and earliest_free_from (resuming at the place
// an earlier search found for an earlier start) against earliest_free: the same time and place,
// on a fixed random list with gaps of every length from 0 to 5 cycles and queries of 1 to 6.
TEST(BusyIntervals, SearchAndResumeMatchAScan) {
  uint64_t state = 3;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>((state >> 33) % n);
  };
  BusyIntervals b;
  std::vector<std::pair<double, double>> list;
  for (double at = 0; list.size() < 300;) {
    const double d = 1 + next(8);
    b.add(at, d);
    list.push_back({at, at + d});
    at += d + next(6);  // a gap of 0 joins the two
  }
  for (int q = 0; q < 3000; ++q) {
    const double t = next(2000) - 5, duration = 1 + next(6);
    double want = t;
    for (const auto& e : list)
      if (e.first < want + duration && e.second > want) want = e.second;
    size_t slot = 0;
    ASSERT_EQ(b.earliest_free(t, duration, slot), want) << "query " << q;
    const double later = want + next(40);
    size_t resumed = slot, searched = 0;
    ASSERT_EQ(b.earliest_free_from(later, duration, resumed),
              b.earliest_free(later, duration, searched))
        << "query " << q;
    ASSERT_EQ(resumed, searched) << "query " << q;
  }
}

}  // namespace
}  // namespace dgs
