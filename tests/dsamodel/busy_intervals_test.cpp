// The busy intervals of a shared resource (common/dsamodel/busy_intervals.h): add_at, which
// adds at the place earliest_free found (MeshNoc::send and the DSA model's transfers use it),
// leaves the same intervals as add, which searches for the place itself.
#include <gtest/gtest.h>

#include <cstdint>
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

}  // namespace
}  // namespace dgs
