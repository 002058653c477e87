#pragma once
// Stacked-bar SVG for BrickDL's breakdown figures (Figs. 7, 8, 10, 11): per case, side-by-side
// stacked bars (e.g. the memory bar DRAM + idle and the compute bar compute + atomics + other),
// a dashed reference line (the cuDNN level) and, where the paper states a value for the case, a
// black diamond labelled "paper" at that value. Deterministic output (two-decimal coordinates,
// fixed palette). common/report has no stacked bars yet; this can move there once the claims
// rework of common/report has landed.
#include <limits>
#include <string>
#include <vector>

namespace dgs::brickdl {

struct StackedBar {
  std::string label;             // under the bar ("mem", "cmp")
  std::vector<double> segments;  // one per StackedBarChart::segment_names (0 = absent)
};

struct StackedGroup {
  std::string category;
  std::vector<StackedBar> bars;
  double paper = std::numeric_limits<double>::quiet_NaN();  // the paper's value; NaN = none
};

struct StackedBarChart {
  std::string title, y_label;
  std::vector<std::string> segment_names;
  std::vector<StackedGroup> groups;
  double reference_y = std::numeric_limits<double>::quiet_NaN();
  std::string reference_label;
};

std::string stacked_bar_svg(const StackedBarChart& c, int width = 960, int height = 460);

}  // namespace dgs::brickdl
