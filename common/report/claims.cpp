// Claims of a paper, checked against the suite's values.
#include <cmath>
#include <ostream>

#include "common/report/report.h"

namespace dgs {

namespace {
// Digits shown for the values in the claims block (enough to judge a tolerance).
constexpr int kClaimSignificantDigits = 4;

// Like format_cell, without trailing zeros after the decimal point ("67", "2.1", "0.25").
std::string compact(double v) {
  std::string s = format_cell(v, kClaimSignificantDigits);
  if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string with_unit(double v, const std::string& unit) {
  std::string s = compact(v);
  if (unit.empty()) return s;
  if (unit == "%" || unit == "x") return s + unit;
  return s + " " + unit;
}
}  // namespace

bool Claim::holds() const {
  if (!std::isfinite(paper) || !std::isfinite(ours)) return false;
  if (at_most) return ours - paper <= tolerance;
  return std::fabs(ours - paper) <= tolerance;
}

void print_claims(std::ostream& os, const std::vector<Claim>& claims) {
  os << "Claims (paper vs ours; holds when |ours - paper| <= tolerance)\n";
  int holding = 0;
  for (const Claim& c : claims) {
    const bool ok = c.holds();
    holding += ok ? 1 : 0;
    os << "  " << (ok ? "holds   " : "deviates") << "  " << c.text;
    if (!c.source.empty()) os << " [" << c.source << "]";
    os << ": paper " << with_unit(c.paper, c.unit) << ", ours " << with_unit(c.ours, c.unit)
       << ", tolerance " << with_unit(c.tolerance, c.unit)
       << (c.at_most ? " (one-sided: holds when ours <= paper + tolerance)" : "") << "\n";
  }
  os << "  " << holding << " of " << claims.size() << " claims hold\n";
}

Table claims_table(const std::vector<Claim>& claims) {
  Table t({"claim", "source", "paper", "ours", "tolerance", "unit", "verdict"});
  for (const Claim& c : claims) {
    t.add_row({c.text, c.source, c.paper, c.ours, c.tolerance, c.unit,
               std::string(c.holds() ? "holds" : "deviates")});
  }
  return t;
}

}  // namespace dgs
