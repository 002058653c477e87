// PlanTarget of a machine (see plan_target.h).
#include "common/evaluate/plan_target.h"

#include <algorithm>
#include <climits>

#include "common/util/error.h"

namespace dgs {

namespace {

UnitKind unit_kind_of(const std::string& hw_unit, const HardwareSpec& hw) {
  if (hw_unit == "sm") return UnitKind::SmSet;
  try {
    return unit_kind_from_name(hw_unit);
  } catch (const Error& e) {
    throw Error(hw.file + ": placement unit '" + hw_unit + "' is not a unit kind of plans (" +
                e.what() + ")");
  }
}

}  // namespace

PlanTarget plan_target(const HardwareSpec& hw) {
  PlanTarget t;
  t.name = hw.name;
  t.memory_levels = hw.memory_levels;
  for (const PlacementUnit& u : hw.units) {
    std::vector<int>& ext = t.unit_extents[unit_kind_of(u.kind, hw)];
    if (u.extents.empty()) ext = {static_cast<int>(std::min<int64_t>(u.count, INT_MAX))};
    for (int64_t e : u.extents) ext.push_back(static_cast<int>(std::min<int64_t>(e, INT_MAX)));
  }
  return t;
}

}  // namespace dgs
