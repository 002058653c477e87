// The stacked-bar SVG: one rectangle per non-zero segment, a diamond where the paper states a
// value, the dashed reference line, escaped labels, deterministic output.
#include <gtest/gtest.h>

#include <cmath>

#include "reproductions/brickdl/experiments/stacked_bars.h"

namespace dgs::brickdl {
namespace {

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(StackedBars, SegmentsMarkersAndReference) {
  StackedBarChart c;
  c.title = "t <a & b>";
  c.y_label = "time";
  c.segment_names = {"DRAM", "idle", "compute"};
  c.reference_y = 1.0;
  c.reference_label = "cuDNN";
  c.groups.push_back({"SG1 padded", {{"mem", {0.3, 0.6, 0}}, {"cmp", {0, 0, 0.9}}}, 0.79});
  c.groups.push_back({"SG1 memoized", {{"mem", {0.4, 0.7, 0}}, {"cmp", {0, 0, 1.1}}}, NAN});
  const std::string svg = stacked_bar_svg(c);
  // Legend swatches (3) + segments (2 + 1 per group) + the white background.
  EXPECT_EQ(count(svg, "<rect"), 1 + 3 + 2 * 3);
  EXPECT_EQ(count(svg, "l5 5 l-5 5 l-5 -5 z"), 1 + 1);  // legend diamond + one paper value
  EXPECT_EQ(count(svg, "stroke-dasharray"), 2);         // legend + the cuDNN line
  EXPECT_NE(svg.find("t &lt;a &amp; b&gt;"), std::string::npos);
  EXPECT_EQ(svg, stacked_bar_svg(c));
}

}  // namespace
}  // namespace dgs::brickdl
