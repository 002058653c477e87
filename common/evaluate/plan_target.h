#pragma once
// What a plan is checked against on a given machine (PlanTarget, common/plan/plan.h), from its
// hardware description (HardwareSpec, common/hw/hardware_spec.h): the memory levels the config
// names and the placement units it offers ("stream" -> UnitKind::Stream, "sm" -> UnitKind::SmSet,
// "cluster", "core", "engine" -> the kinds of the same name).
#include "common/hw/hardware_spec.h"
#include "common/plan/plan.h"

namespace dgs {

PlanTarget plan_target(const HardwareSpec& hw);

}  // namespace dgs
