#include "reproductions/brickdl/experiments/stacked_bars.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace dgs::brickdl {

namespace {

constexpr const char* kPalette[] = {"#0072B2", "#F4A6B7", "#009E73", "#E69F00",
                                    "#D55E00", "#999999", "#56B4E9", "#CC79A7"};
constexpr double kLeft = 64, kRight = 16, kTop = 58, kBottom = 92;

std::string px(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  return s == "-0.00" ? "0.00" : s;
}

std::string esc(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '<')
      o += "&lt;";
    else if (ch == '>')
      o += "&gt;";
    else if (ch == '&')
      o += "&amp;";
    else
      o += ch;
  }
  return o;
}

double nice_top(double v) {
  if (!(v > 0)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
    if (m * p >= v) return m * p;
  return 10 * p;
}

}  // namespace

std::string stacked_bar_svg(const StackedBarChart& c, int width, int height) {
  double ymax = std::isnan(c.reference_y) ? 0 : c.reference_y;
  for (const auto& g : c.groups) {
    for (const auto& b : g.bars) {
      double s = 0;
      for (double v : b.segments) s += std::max(0.0, v);
      ymax = std::max(ymax, s);
    }
    if (!std::isnan(g.paper)) ymax = std::max(ymax, g.paper);
  }
  ymax = nice_top(ymax * 1.05);
  const double w = width, h = height, plot_w = w - kLeft - kRight, plot_h = h - kTop - kBottom;
  auto y_of = [&](double v) { return kTop + plot_h * (1 - v / ymax); };
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\">\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o << "<text x=\"" << px(w / 2) << "\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">"
    << esc(c.title) << "</text>\n";
  // Legend: segments, then the paper marker and the reference line.
  double lx = kLeft;
  for (size_t i = 0; i < c.segment_names.size(); ++i) {
    o << "<rect x=\"" << px(lx) << "\" y=\"32\" width=\"11\" height=\"11\" fill=\""
      << kPalette[i % 8] << "\"/><text x=\"" << px(lx + 15) << "\" y=\"42\" font-size=\"11\">"
      << esc(c.segment_names[i]) << "</text>\n";
    lx += 26 + 6.5 * static_cast<double>(c.segment_names[i].size());
  }
  o << "<path d=\"M" << px(lx + 5) << " 32 l5 5 l-5 5 l-5 -5 z\" fill=\"black\"/><text x=\""
    << px(lx + 14) << "\" y=\"42\" font-size=\"11\">paper</text>\n";
  lx += 60;
  if (!std::isnan(c.reference_y))
    o << "<line x1=\"" << px(lx) << "\" y1=\"37\" x2=\"" << px(lx + 18)
      << "\" y2=\"37\" stroke=\"black\" stroke-dasharray=\"4 3\"/><text x=\"" << px(lx + 22)
      << "\" y=\"42\" font-size=\"11\">" << esc(c.reference_label) << "</text>\n";
  // Axes and ticks.
  o << "<line x1=\"" << px(kLeft) << "\" y1=\"" << px(kTop) << "\" x2=\"" << px(kLeft) << "\" y2=\""
    << px(kTop + plot_h) << "\" stroke=\"black\"/>\n";
  o << "<line x1=\"" << px(kLeft) << "\" y1=\"" << px(kTop + plot_h) << "\" x2=\""
    << px(kLeft + plot_w) << "\" y2=\"" << px(kTop + plot_h) << "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= 5; ++i) {
    const double v = ymax * i / 5;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    o << "<text x=\"" << px(kLeft - 6) << "\" y=\"" << px(y_of(v) + 4)
      << "\" text-anchor=\"end\" font-size=\"10\">" << buf << "</text>\n";
  }
  o << "<text transform=\"translate(16 " << px(kTop + plot_h / 2)
    << ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">" << esc(c.y_label) << "</text>\n";
  // Bars.
  const double gw = plot_w / static_cast<double>(std::max<size_t>(1, c.groups.size()));
  for (size_t gi = 0; gi < c.groups.size(); ++gi) {
    const StackedGroup& g = c.groups[gi];
    const double gx = kLeft + gw * static_cast<double>(gi);
    const double nb = static_cast<double>(std::max<size_t>(1, g.bars.size()));
    const double bw = gw * 0.8 / nb;
    for (size_t bi = 0; bi < g.bars.size(); ++bi) {
      const double bx = gx + gw * 0.1 + bw * static_cast<double>(bi);
      double base = 0;
      for (size_t s = 0; s < g.bars[bi].segments.size(); ++s) {
        const double v = std::max(0.0, g.bars[bi].segments[s]);
        if (v <= 0) continue;
        o << "<rect x=\"" << px(bx) << "\" y=\"" << px(y_of(base + v)) << "\" width=\""
          << px(bw * 0.92) << "\" height=\"" << px(y_of(base) - y_of(base + v)) << "\" fill=\""
          << kPalette[s % 8] << "\"/>\n";
        base += v;
      }
      o << "<text x=\"" << px(bx + bw * 0.46) << "\" y=\"" << px(kTop + plot_h + 12)
        << "\" text-anchor=\"middle\" font-size=\"9\">" << esc(g.bars[bi].label) << "</text>\n";
    }
    if (!std::isnan(g.paper)) {
      const double cx = gx + gw / 2, cy = y_of(g.paper);
      o << "<path d=\"M" << px(cx) << " " << px(cy - 5)
        << " l5 5 l-5 5 l-5 -5 z\" fill=\"black\"/>\n";
    }
    o << "<text transform=\"translate(" << px(gx + gw / 2) << " " << px(kTop + plot_h + 26)
      << ") rotate(30)\" font-size=\"10\">" << esc(g.category) << "</text>\n";
  }
  if (!std::isnan(c.reference_y))
    o << "<line x1=\"" << px(kLeft) << "\" y1=\"" << px(y_of(c.reference_y)) << "\" x2=\""
      << px(kLeft + plot_w) << "\" y2=\"" << px(y_of(c.reference_y))
      << "\" stroke=\"black\" stroke-dasharray=\"4 3\"/>\n";
  o << "</svg>\n";
  return o.str();
}

}  // namespace dgs::brickdl
