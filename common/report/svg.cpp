// SVG 1.1 charts: grouped bars, lines with markers, and panels of several charts.
// Output is deterministic: coordinates with two decimals, labels with up to 6 significant digits,
// a fixed palette, and text widths estimated from character counts (no font metrics).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <sstream>

#include "common/report/report.h"
#include "common/util/error.h"
#include "common/util/resources.h"

namespace dgs {

namespace {

// ----- Layout constants (pixels). Chosen for legibility at the default 720x420 size. -----
constexpr double kTitleBaseline = 22;  // title text baseline
constexpr double kTitleFontSize = 16;
constexpr double kMinTitleFontSize = 10;    // a longer title is wrapped onto two lines
constexpr double kTitleCharWidthEm = 0.62;  // estimated width of a bold character, in ems
constexpr double kTitleSideMargin = 8;
constexpr double kFontSize = 12;        // legend, axis labels, category labels
constexpr double kTickFontSize = 11;    // tick labels
constexpr double kCharWidth = 7.0;      // estimated width of one character at kFontSize
constexpr double kTickCharWidth = 6.4;  // ... at kTickFontSize
constexpr double kLegendTop = 34;       // top of the first legend row
constexpr double kLegendRowHeight = 18;
constexpr double kLegendSwatch = 12;
constexpr double kLegendGap = 18;  // between two legend entries
constexpr double kRightMargin = 16;
constexpr double kYLabelX = 16;            // baseline x of the rotated y-axis label
constexpr double kBarGroupFill = 0.8;      // fraction of a category's width covered by its bars
constexpr double kRotatedLabelAngle = 40;  // degrees, when category labels do not fit horizontally
constexpr int kTargetTicks = 5;            // a linear axis gets about this many intervals
constexpr int kMaxLogDecadeLabels = 8;     // beyond this many decades, label every other one

// Okabe-Ito colour-blind-safe palette, then grey shades.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7",
                                    "#56B4E9", "#F0E442", "#000000", "#999999", "#666666"};
constexpr int kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

const char* color(size_t i) {
  return kPalette[i % kPaletteSize];
}

// `v` printed by printf's `format`, a negative zero ("-0", "-0.00") without its sign.
std::string printed(double v, const char* format) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  std::string s = buf;
  if (s[0] == '-' && s.find_first_not_of("0.", 1) == std::string::npos) s.erase(0, 1);
  return s;
}

std::string px(double v) {
  return printed(v, "%.2f");
}

std::string number_label(double v) {
  return printed(v, "%.6g");
}

std::string esc(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters; drop them.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') break;
        out += ch;
    }
  }
  return out;
}

size_t chars(const std::string& s) {
  size_t n = 0;
  for (unsigned char ch : s) {
    if ((ch & 0xC0) != 0x80) ++n;
  }
  return n;
}

// ----- Axes -----
struct Axis {
  bool log = false;
  double lo = 0, hi = 1;       // data-space range covered (for log: positive, powers of ten)
  std::vector<double> ticks;   // data-space tick values
  std::vector<bool> labelled;  // whether each tick gets a label

  double frac(double v) const {  // 0 at lo, 1 at hi
    if (log) return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    return (v - lo) / (hi - lo);
  }
  bool drawable(double v) const { return std::isfinite(v) && (!log || v > 0); }
};

double nice_step(double range) {
  const double raw = range / kTargetTicks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double r = raw / mag;
  const double m = r <= 1 ? 1 : r <= 2 ? 2 : r <= 2.5 ? 2.5 : r <= 5 ? 5 : 10;
  return m * mag;
}

Axis make_axis(const std::vector<double>& values, bool log, bool include_zero) {
  Axis a;
  a.log = log;
  double mn = INFINITY, mx = -INFINITY;
  for (double v : values) {
    if (!a.drawable(v)) continue;
    mn = std::min(mn, v);
    mx = std::max(mx, v);
  }
  if (log) {
    if (!std::isfinite(mn)) mn = 1, mx = 10;
    int dlo = static_cast<int>(std::floor(std::log10(mn) + 1e-12));
    int dhi = static_cast<int>(std::ceil(std::log10(mx) - 1e-12));
    if (dhi <= dlo) dhi = dlo + 1;
    a.lo = std::pow(10.0, dlo);
    a.hi = std::pow(10.0, dhi);
    const int every = (dhi - dlo) > kMaxLogDecadeLabels ? 2 : 1;
    for (int d = dlo; d <= dhi; ++d) {
      a.ticks.push_back(std::pow(10.0, d));
      a.labelled.push_back((d - dlo) % every == 0);
    }
    return a;
  }
  if (!std::isfinite(mn)) mn = 0, mx = 1;
  if (include_zero) {
    mn = std::min(mn, 0.0);
    mx = std::max(mx, 0.0);
  }
  if (mx == mn) {
    const double pad = mx == 0 ? 1 : std::fabs(mx) * 0.5;
    if (include_zero && mn == 0) {
      mx += pad;
    } else {
      mn -= pad;
      mx += pad;
    }
  }
  const double step = nice_step(mx - mn);
  const long klo = static_cast<long>(std::floor(mn / step + 1e-9));
  const long khi = static_cast<long>(std::ceil(mx / step - 1e-9));
  a.lo = klo * step;
  a.hi = khi * step;
  for (long k = klo; k <= khi; ++k) {
    double t = k * step;
    if (std::fabs(t) < step * 1e-9) t = 0;
    a.ticks.push_back(t);
    a.labelled.push_back(true);
  }
  return a;
}

// A log axis for x values such as batch sizes (1, 2, 4, ..., 128): ticks at the values themselves
// when there are few of them, the range padded slightly; decades otherwise.
constexpr size_t kMaxTicksAtValues = 12;
constexpr double kLogAxisPadding = 0.04;  // fraction of the span (in decades) added at each end

Axis make_log_axis_at_values(const std::vector<double>& values) {
  std::vector<double> v;
  for (double x : values) {
    if (std::isfinite(x) && x > 0) v.push_back(x);
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (v.size() < 2 || v.size() > kMaxTicksAtValues) return make_axis(values, true, false);
  Axis a;
  a.log = true;
  const double span = std::log10(v.back() / v.front());
  a.lo = v.front() * std::pow(10.0, -kLogAxisPadding * span);
  a.hi = v.back() * std::pow(10.0, kLogAxisPadding * span);
  a.ticks = v;
  a.labelled.assign(v.size(), true);
  return a;
}

size_t widest_tick_label(const Axis& a) {
  size_t w = 0;
  for (size_t i = 0; i < a.ticks.size(); ++i) {
    if (a.labelled[i]) w = std::max(w, number_label(a.ticks[i]).size());
  }
  return w;
}

// ----- Common pieces -----
void open_svg(std::ostringstream& os, int width, int height) {
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
     << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << width
     << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height
     << "\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\">\n"
     << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height
     << "\" fill=\"#ffffff\"/>\n";
}

// The title's lines and font size: one line at the largest size (up to kTitleFontSize) that fits
// the width; if that is below kMinTitleFontSize, two lines split at the space nearest the middle.
struct TitleLayout {
  std::vector<std::string> lines;
  double font_size = kTitleFontSize;
  double extra_height() const {  // below the first line
    return lines.size() > 1 ? (lines.size() - 1) * (font_size + 2) : 0;
  }
};

double fitting_font_size(size_t n_chars, int width) {
  const double available = width - 2 * kTitleSideMargin;
  return std::min(kTitleFontSize, available / (std::max<size_t>(n_chars, 1) * kTitleCharWidthEm));
}

TitleLayout title_layout(const std::string& title, int width) {
  TitleLayout t;
  if (title.empty()) return t;
  t.font_size = fitting_font_size(chars(title), width);
  if (t.font_size >= kMinTitleFontSize) {
    t.lines = {title};
    return t;
  }
  size_t best = std::string::npos;
  for (size_t i = title.find(' '); i != std::string::npos; i = title.find(' ', i + 1)) {
    if (best == std::string::npos || std::abs(static_cast<double>(i) - title.size() / 2.0) <
                                         std::abs(static_cast<double>(best) - title.size() / 2.0))
      best = i;
  }
  if (best == std::string::npos) {
    t.lines = {title};
    return t;
  }
  t.lines = {title.substr(0, best), title.substr(best + 1)};
  t.font_size = std::min(fitting_font_size(chars(t.lines[0]), width),
                         fitting_font_size(chars(t.lines[1]), width));
  return t;
}

void title_text(std::ostringstream& os, const TitleLayout& t, int width) {
  for (size_t i = 0; i < t.lines.size(); ++i) {
    os << "<text x=\"" << px(width / 2.0) << "\" y=\"" << px(kTitleBaseline + i * (t.font_size + 2))
       << "\" font-size=\"" << number_label(std::round(t.font_size * 100) / 100)
       << "\" font-weight=\"bold\" text-anchor=\"middle\">" << esc(t.lines[i]) << "</text>\n";
  }
}

// Lays out legend entries in rows between x_left and x_right; returns the rows used.
struct LegendEntry {
  double x, y;  // top-left of the swatch
};
std::vector<LegendEntry> legend_layout(const std::vector<Series>& series, double x_left,
                                       double x_right, double top, int* rows) {
  std::vector<LegendEntry> out;
  double x = x_left, y = top;
  *rows = series.empty() ? 0 : 1;
  for (const Series& s : series) {
    const double w = kLegendSwatch + 5 + chars(s.name) * kCharWidth;
    if (x > x_left && x + w > x_right) {
      x = x_left;
      y += kLegendRowHeight;
      ++*rows;
    }
    out.push_back({x, y});
    x += w + kLegendGap;
  }
  return out;
}

void marker(std::ostringstream& os, size_t series_index, double x, double y, const char* fill) {
  const double r = 3.5;
  switch (series_index % 4) {
    case 0:
      os << "<circle cx=\"" << px(x) << "\" cy=\"" << px(y) << "\" r=\"" << px(r) << "\" fill=\""
         << fill << "\"/>";
      break;
    case 1:
      os << "<rect x=\"" << px(x - r) << "\" y=\"" << px(y - r) << "\" width=\"" << px(2 * r)
         << "\" height=\"" << px(2 * r) << "\" fill=\"" << fill << "\"/>";
      break;
    case 2:
      os << "<polygon points=\"" << px(x) << "," << px(y - r - 0.8) << " " << px(x + r + 0.6) << ","
         << px(y + r - 0.2) << " " << px(x - r - 0.6) << "," << px(y + r - 0.2) << "\" fill=\""
         << fill << "\"/>";
      break;
    default:
      os << "<polygon points=\"" << px(x) << "," << px(y - r - 1) << " " << px(x + r + 1) << ","
         << px(y) << " " << px(x) << "," << px(y + r + 1) << " " << px(x - r - 1) << "," << px(y)
         << "\" fill=\"" << fill << "\"/>";
  }
}

// Horizontal grid lines, y tick labels, the y-axis label and the two axis lines.
void y_axis(std::ostringstream& os, const Axis& ya, double x0, double x1, double y0, double y1,
            const std::string& label) {
  auto ymap = [&](double v) { return y1 - ya.frac(v) * (y1 - y0); };
  os << "<g stroke=\"#dddddd\" stroke-width=\"1\">\n";
  for (double t : ya.ticks) {
    os << "<line x1=\"" << px(x0) << "\" y1=\"" << px(ymap(t)) << "\" x2=\"" << px(x1) << "\" y2=\""
       << px(ymap(t)) << "\"/>\n";
  }
  os << "</g>\n<g font-size=\"" << kTickFontSize << "\" text-anchor=\"end\">\n";
  for (size_t i = 0; i < ya.ticks.size(); ++i) {
    if (!ya.labelled[i]) continue;
    os << "<text x=\"" << px(x0 - 6) << "\" y=\"" << px(ymap(ya.ticks[i]) + 4) << "\">"
       << esc(number_label(ya.ticks[i])) << "</text>\n";
  }
  os << "</g>\n";
  if (!label.empty()) {
    const double cy = (y0 + y1) / 2;
    os << "<text x=\"" << px(kYLabelX) << "\" y=\"" << px(cy) << "\" font-size=\"" << kFontSize
       << "\" text-anchor=\"middle\" transform=\"rotate(-90 " << px(kYLabelX) << " " << px(cy)
       << ")\">" << esc(label) << "</text>\n";
  }
}

void axis_lines(std::ostringstream& os, double x0, double x1, double y0, double y1) {
  os << "<g stroke=\"#000000\" stroke-width=\"1\">\n<line x1=\"" << px(x0) << "\" y1=\"" << px(y0)
     << "\" x2=\"" << px(x0) << "\" y2=\"" << px(y1) << "\"/>\n<line x1=\"" << px(x0) << "\" y1=\""
     << px(y1) << "\" x2=\"" << px(x1) << "\" y2=\"" << px(y1) << "\"/>\n</g>\n";
}

void reference_line(std::ostringstream& os, const Axis& ya, double ref, double x0, double x1,
                    double y0, double y1) {
  if (!ya.drawable(ref) || ref < ya.lo || ref > ya.hi) return;
  const double y = y1 - ya.frac(ref) * (y1 - y0);
  os << "<line x1=\"" << px(x0) << "\" y1=\"" << px(y) << "\" x2=\"" << px(x1) << "\" y2=\""
     << px(y) << "\" stroke=\"#444444\" stroke-width=\"1\" stroke-dasharray=\"5,4\"/>\n";
}

double left_margin(const Axis& ya, const std::string& y_label) {
  return (y_label.empty() ? 12 : 30) + widest_tick_label(ya) * kTickCharWidth + 8;
}

// The plot area of a chart with a y axis `ya`: its left and right edges (x0, x1), the title and
// the legend rows above it, and its top (y0).
struct ChartFrame {
  double x0, x1;
  TitleLayout title;
  std::vector<LegendEntry> legend;
  double y0;
};
ChartFrame chart_frame(const Axis& ya, const std::string& y_label, const std::string& title,
                       const std::vector<Series>& series, int width) {
  ChartFrame f;
  f.x0 = left_margin(ya, y_label);
  f.x1 = width - kRightMargin;
  f.title = title_layout(title, width);
  const double legend_top = kLegendTop + f.title.extra_height();
  int legend_rows = 0;
  f.legend = legend_layout(series, f.x0, f.x1, legend_top, &legend_rows);
  f.y0 = legend_top + legend_rows * kLegendRowHeight + 10;
  return f;
}

}  // namespace

std::string bar_chart_svg(const BarChart& c, int width, int height) {
  for (const Series& s : c.series) {
    if (s.values.size() != c.categories.size()) {
      throw Error("bar chart '" + c.title + "': series '" + s.name + "' has " +
                  std::to_string(s.values.size()) + " values for " +
                  std::to_string(c.categories.size()) + " categories");
    }
  }
  std::vector<double> all;
  for (const Series& s : c.series) all.insert(all.end(), s.values.begin(), s.values.end());
  if (std::isfinite(c.reference_y)) all.push_back(c.reference_y);
  const Axis ya = make_axis(all, c.log_y, /*include_zero=*/true);

  const ChartFrame frame = chart_frame(ya, c.y_label, c.title, c.series, width);
  const double x0 = frame.x0, x1 = frame.x1, y0 = frame.y0;
  const TitleLayout& title = frame.title;
  const std::vector<LegendEntry>& legend = frame.legend;

  const size_t ncat = std::max<size_t>(c.categories.size(), 1);
  const double group_w = (x1 - x0) / ncat;
  size_t widest_cat = 0;
  for (const std::string& cat : c.categories) widest_cat = std::max(widest_cat, chars(cat));
  const bool rotate = widest_cat * kCharWidth > group_w - 4;
  const double rad = kRotatedLabelAngle * std::numbers::pi / 180.0;
  double bottom = rotate ? 18 + widest_cat * kCharWidth * std::sin(rad) + 6 : 30;
  bottom = std::min(bottom, height / 3.0);
  const double x_label_height = c.x_label.empty() ? 0 : 20;
  const double y1 = height - bottom - x_label_height;

  std::ostringstream os;
  open_svg(os, width, height);
  title_text(os, title, width);
  y_axis(os, ya, x0, x1, y0, y1, c.y_label);

  // Bars.
  auto ymap = [&](double v) { return y1 - ya.frac(v) * (y1 - y0); };
  const double base_v = c.log_y ? ya.lo : std::clamp(0.0, ya.lo, ya.hi);
  const double base_y = ymap(base_v);
  const double bar_w = c.series.empty() ? 0 : group_w * kBarGroupFill / c.series.size();
  for (size_t s = 0; s < c.series.size(); ++s) {
    os << "<g fill=\"" << color(s) << "\">\n";
    for (size_t i = 0; i < c.categories.size(); ++i) {
      const double v = c.series[s].values[i];
      if (!ya.drawable(v)) continue;
      const double x = x0 + i * group_w + group_w * (1 - kBarGroupFill) / 2 + s * bar_w;
      const double yv = ymap(v);
      const double top = std::min(yv, base_y), h = std::fabs(base_y - yv);
      os << "<rect x=\"" << px(x) << "\" y=\"" << px(top) << "\" width=\"" << px(bar_w)
         << "\" height=\"" << px(h) << "\"><title>" << esc(c.series[s].name) << ", "
         << esc(c.categories[i]) << ": " << esc(number_label(v)) << "</title></rect>\n";
    }
    os << "</g>\n";
  }
  if (std::isfinite(c.reference_y)) reference_line(os, ya, c.reference_y, x0, x1, y0, y1);
  axis_lines(os, x0, x1, y0, y1);

  // Category labels.
  os << "<g font-size=\"" << kFontSize << "\">\n";
  for (size_t i = 0; i < c.categories.size(); ++i) {
    const double cx = x0 + (i + 0.5) * group_w;
    const double ty = y1 + 16;
    if (rotate) {
      os << "<text x=\"" << px(cx) << "\" y=\"" << px(ty)
         << "\" text-anchor=\"end\" transform=\"rotate(-" << px(kRotatedLabelAngle) << " " << px(cx)
         << " " << px(ty) << ")\">" << esc(c.categories[i]) << "</text>\n";
    } else {
      os << "<text x=\"" << px(cx) << "\" y=\"" << px(ty) << "\" text-anchor=\"middle\">"
         << esc(c.categories[i]) << "</text>\n";
    }
  }
  os << "</g>\n";
  if (!c.x_label.empty()) {
    os << "<text x=\"" << px((x0 + x1) / 2) << "\" y=\"" << px(height - 8) << "\" font-size=\""
       << kFontSize << "\" text-anchor=\"middle\">" << esc(c.x_label) << "</text>\n";
  }

  // Legend.
  os << "<g font-size=\"" << kFontSize << "\">\n";
  for (size_t s = 0; s < c.series.size(); ++s) {
    const LegendEntry& e = legend[s];
    os << "<rect x=\"" << px(e.x) << "\" y=\"" << px(e.y) << "\" width=\"" << px(kLegendSwatch)
       << "\" height=\"" << px(kLegendSwatch) << "\" fill=\"" << color(s) << "\"/>\n<text x=\""
       << px(e.x + kLegendSwatch + 5) << "\" y=\"" << px(e.y + kLegendSwatch - 1) << "\">"
       << esc(c.series[s].name) << "</text>\n";
  }
  os << "</g>\n</svg>\n";
  return os.str();
}

std::string line_chart_svg(const LineChart& c, int width, int height) {
  for (const Series& s : c.series) {
    if (s.values.size() != c.x.size()) {
      throw Error("line chart '" + c.title + "': series '" + s.name + "' has " +
                  std::to_string(s.values.size()) + " values for " + std::to_string(c.x.size()) +
                  " x values");
    }
  }
  std::vector<double> ys;
  for (const Series& s : c.series) ys.insert(ys.end(), s.values.begin(), s.values.end());
  if (std::isfinite(c.reference_y)) ys.push_back(c.reference_y);
  const Axis ya = make_axis(ys, c.log_y, /*include_zero=*/!c.log_y);
  const Axis xa =
      c.log_x ? make_log_axis_at_values(c.x) : make_axis(c.x, false, /*include_zero=*/false);

  const ChartFrame frame = chart_frame(ya, c.y_label, c.title, c.series, width);
  const double x0 = frame.x0, x1 = frame.x1, y0 = frame.y0;
  const TitleLayout& title = frame.title;
  const std::vector<LegendEntry>& legend = frame.legend;
  const double y1 = height - (c.x_label.empty() ? 30 : 46);
  auto xmap = [&](double v) { return x0 + xa.frac(v) * (x1 - x0); };
  auto ymap = [&](double v) { return y1 - ya.frac(v) * (y1 - y0); };

  std::ostringstream os;
  open_svg(os, width, height);
  title_text(os, title, width);
  y_axis(os, ya, x0, x1, y0, y1, c.y_label);

  // X ticks and label.
  os << "<g stroke=\"#000000\" stroke-width=\"1\">\n";
  for (double t : xa.ticks) {
    os << "<line x1=\"" << px(xmap(t)) << "\" y1=\"" << px(y1) << "\" x2=\"" << px(xmap(t))
       << "\" y2=\"" << px(y1 + 4) << "\"/>\n";
  }
  os << "</g>\n<g font-size=\"" << kTickFontSize << "\" text-anchor=\"middle\">\n";
  for (size_t i = 0; i < xa.ticks.size(); ++i) {
    if (!xa.labelled[i]) continue;
    os << "<text x=\"" << px(xmap(xa.ticks[i])) << "\" y=\"" << px(y1 + 16) << "\">"
       << esc(number_label(xa.ticks[i])) << "</text>\n";
  }
  os << "</g>\n";
  if (!c.x_label.empty()) {
    os << "<text x=\"" << px((x0 + x1) / 2) << "\" y=\"" << px(y1 + 36) << "\" font-size=\""
       << kFontSize << "\" text-anchor=\"middle\">" << esc(c.x_label) << "</text>\n";
  }
  if (std::isfinite(c.reference_y)) reference_line(os, ya, c.reference_y, x0, x1, y0, y1);

  // Lines (broken where a point is missing) and markers.
  for (size_t s = 0; s < c.series.size(); ++s) {
    const Series& ser = c.series[s];
    os << "<g>\n";
    std::vector<std::string> segment;
    auto flush = [&] {
      if (segment.size() >= 2) {
        os << "<polyline fill=\"none\" stroke=\"" << color(s) << "\" stroke-width=\"2\" points=\"";
        for (size_t k = 0; k < segment.size(); ++k) os << (k ? " " : "") << segment[k];
        os << "\"/>\n";
      }
      segment.clear();
    };
    for (size_t i = 0; i < c.x.size(); ++i) {
      if (!xa.drawable(c.x[i]) || !ya.drawable(ser.values[i])) {
        flush();
        continue;
      }
      segment.push_back(px(xmap(c.x[i])) + "," + px(ymap(ser.values[i])));
    }
    flush();
    for (size_t i = 0; i < c.x.size(); ++i) {
      if (!xa.drawable(c.x[i]) || !ya.drawable(ser.values[i])) continue;
      marker(os, s, xmap(c.x[i]), ymap(ser.values[i]), color(s));
      os << "\n";
    }
    os << "</g>\n";
  }
  axis_lines(os, x0, x1, y0, y1);

  // Legend: a short line with the series' marker.
  os << "<g font-size=\"" << kFontSize << "\">\n";
  for (size_t s = 0; s < c.series.size(); ++s) {
    const LegendEntry& e = legend[s];
    const double cy = e.y + kLegendSwatch / 2;
    os << "<line x1=\"" << px(e.x - 2) << "\" y1=\"" << px(cy) << "\" x2=\""
       << px(e.x + kLegendSwatch + 2) << "\" y2=\"" << px(cy) << "\" stroke=\"" << color(s)
       << "\" stroke-width=\"2\"/>";
    marker(os, s, e.x + kLegendSwatch / 2, cy, color(s));
    os << "\n<text x=\"" << px(e.x + kLegendSwatch + 5) << "\" y=\"" << px(e.y + kLegendSwatch - 1)
       << "\">" << esc(c.series[s].name) << "</text>\n";
  }
  os << "</g>\n</svg>\n";
  return os.str();
}

namespace {
// The integer value of attribute `name` in the root <svg ...> tag of `svg`.
int root_attribute(const std::string& svg, size_t tag_begin, size_t tag_end,
                   const std::string& name) {
  const std::string key = " " + name + "=\"";
  const size_t at = svg.find(key, tag_begin);
  if (at == std::string::npos || at > tag_end) {
    throw Error("panels_svg: a panel's <svg> has no " + name + " attribute");
  }
  return std::atoi(svg.c_str() + at + key.size());
}
}  // namespace

std::string panels_svg(const std::vector<std::string>& panel_svgs, int columns) {
  if (columns < 1) throw Error("panels_svg: columns must be at least 1");
  struct Panel {
    std::string body;  // the panel's root <svg ...>...</svg>
    size_t tag_end;    // index of the '>' closing its opening tag
    int w, h;
  };
  std::vector<Panel> panels;
  int cell_w = 0, cell_h = 0;
  for (const std::string& svg : panel_svgs) {
    const size_t begin = svg.find("<svg");
    if (begin == std::string::npos) throw Error("panels_svg: a panel is not an SVG document");
    Panel p;
    p.body = svg.substr(begin);
    while (!p.body.empty() && (p.body.back() == '\n' || p.body.back() == ' ')) p.body.pop_back();
    p.tag_end = p.body.find('>');
    p.w = root_attribute(p.body, 0, p.tag_end, "width");
    p.h = root_attribute(p.body, 0, p.tag_end, "height");
    cell_w = std::max(cell_w, p.w);
    cell_h = std::max(cell_h, p.h);
    panels.push_back(std::move(p));
  }
  const int ncol = std::min<int>(columns, std::max<int>(1, panels.size()));
  const int nrow = panels.empty() ? 1 : (static_cast<int>(panels.size()) + ncol - 1) / ncol;
  std::ostringstream os;
  open_svg(os, std::max(1, ncol * cell_w), std::max(1, nrow * cell_h));
  for (size_t i = 0; i < panels.size(); ++i) {
    const int x = static_cast<int>(i % ncol) * cell_w;
    const int y = static_cast<int>(i / ncol) * cell_h;
    const Panel& p = panels[i];
    os << "<svg x=\"" << x << "\" y=\"" << y << "\"" << p.body.substr(4) << "\n";
  }
  os << "</svg>\n";
  return os.str();
}

void write_svg(const std::string& path, const std::string& svg) {
  write_file_atomic(path, svg);
}

}  // namespace dgs
