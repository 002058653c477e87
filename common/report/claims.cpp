// Claims of a paper, checked against the suite's values: one tolerance rule per kind of quantity.
#include <cmath>
#include <ostream>

#include "common/report/report.h"
#include "common/util/error.h"

namespace dgs {

namespace {
// Digits shown for the values in the claims block (enough to judge a tolerance).
constexpr int kClaimSignificantDigits = 4;
// Count and Ordering claims are equalities; this relative slack only absorbs the rounding of a
// double (a count of 9.2e22 parsed from text vs computed).
constexpr double kEqualityRelativeSlack = 1e-9;

// The rules, one per ClaimKind, in the enum's order. Chosen once for every paper of the suite:
// - a ratio (speedup) of two runs on the same model cancels most of the model's absolute error,
//   so it gets the tighter relative rule;
// - an absolute time carries the whole calibration error of the hardware model;
// - a percentage (reduction, utilisation) is already relative: its rule is in points;
// - "similar" has no number in the papers: the suite reads it as within 15 points;
// - counts and yes/no answers are exact.
const ClaimRule kRules[] = {
    {"ratio", true, 0.10, "|ours / paper - 1| <= 10%"},
    {"time", true, 0.25, "|ours / paper - 1| <= 25%"},
    {"percentage", false, 10.0, "|ours - paper| <= 10 points"},
    {"similar", false, 15.0, "|ours - paper| <= 15 points (a relative difference in %)"},
    {"count", false, 0.0, "ours = paper (exact)"},
    {"ordering", false, 0.0, "ours = paper (yes/no, exact)"},
};
constexpr int kKinds = static_cast<int>(sizeof(kRules) / sizeof(kRules[0]));

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

void print_line(std::ostream& os, const Claim& c) {
  std::string v = c.verdict();
  v.resize(std::max<size_t>(v.size(), 8), ' ');
  os << "    " << v << "  " << c.text;
  if (!c.source.empty()) os << " [" << c.source << "]";
  os << ": paper " << with_unit(c.paper, c.unit) << ", ours " << with_unit(c.ours, c.unit);
  if (!c.informational.empty()) {
    os << " (not counted: " << c.informational << ")";
  } else if (!c.calibrated.empty()) {
    os << " (not counted: the calibration target of " << c.calibrated << ")";
  } else {
    os << " (" << claim_rule(c.kind).name << ")";
    if (!c.stand_in.empty()) os << " [stand-in: " << c.stand_in << "]";
  }
  os << "\n";
}
}  // namespace

const ClaimRule& claim_rule(ClaimKind kind) {
  const int k = static_cast<int>(kind);
  if (k < 0 || k >= kKinds) throw Error("claim_rule: unknown claim kind " + std::to_string(k));
  return kRules[k];
}

std::vector<std::string> claim_rule_lines() {
  std::vector<std::string> out;
  for (const ClaimRule& r : kRules) out.push_back(std::string(r.name) + ": " + r.statement);
  return out;
}

double Claim::tolerance() const {
  const ClaimRule& r = claim_rule(kind);
  if (r.tolerance == 0) return kEqualityRelativeSlack * std::fabs(paper);
  return r.relative ? r.tolerance * std::fabs(paper) : r.tolerance;
}

bool Claim::holds() const {
  if (!std::isfinite(paper) || !std::isfinite(ours)) return false;
  return std::fabs(ours - paper) <= tolerance();
}

std::string Claim::verdict() const {
  if (!informational.empty()) return "informational";
  if (!calibrated.empty()) return "calibration point";
  return holds() ? "holds" : "deviates";
}

void ClaimTally::add(const Claim& c) {
  if (!c.informational.empty()) {
    ++informational;
  } else if (!c.calibrated.empty()) {
    ++calibration;
  } else if (c.stand_in.empty()) {
    ++(c.holds() ? own_hold : own_deviate);
  } else {
    ++(c.holds() ? stand_in_hold : stand_in_deviate);
  }
}

ClaimTally& ClaimTally::operator+=(const ClaimTally& o) {
  own_hold += o.own_hold;
  own_deviate += o.own_deviate;
  stand_in_hold += o.stand_in_hold;
  stand_in_deviate += o.stand_in_deviate;
  informational += o.informational;
  calibration += o.calibration;
  return *this;
}

std::string ClaimTally::line() const {
  std::string s = std::to_string(holding()) + " of " + std::to_string(checked()) +
                  " checked claims hold (paper's method: " + std::to_string(own_hold) + " of " +
                  std::to_string(own_hold + own_deviate) +
                  "; against stand-ins: " + std::to_string(stand_in_hold) + " of " +
                  std::to_string(stand_in_hold + stand_in_deviate) + ")";
  s += "; " + std::to_string(informational) + " informational";
  s += "; " + std::to_string(calibration) + " calibration point" + (calibration == 1 ? "" : "s");
  return s;
}

void print_claims(std::ostream& os, const std::vector<Claim>& claims) {
  os << "Claims (paper vs ours)\n";
  bool used[kKinds] = {};
  for (const Claim& c : claims)
    if (c.checked()) used[static_cast<int>(c.kind)] = true;
  for (int k = 0; k < kKinds; ++k)
    if (used[k])
      os << "  rule for kind '" << kRules[k].name << "': " << kRules[k].statement << "\n";
  struct Group {
    const char* title;
    bool (*in)(const Claim&);
  };
  const Group groups[] = {
      {"checked, the paper's own method:",
       [](const Claim& c) { return c.checked() && c.stand_in.empty(); }},
      {"checked, against a stand-in (the paper's system is not in the suite):",
       [](const Claim& c) { return c.checked() && !c.stand_in.empty(); }},
      {"calibration point (not counted):",
       [](const Claim& c) { return c.informational.empty() && !c.calibrated.empty(); }},
      {"informational (cannot deviate; not counted):",
       [](const Claim& c) { return !c.informational.empty(); }},
  };
  ClaimTally tally;
  for (const Group& g : groups) {
    bool any = false;
    for (const Claim& c : claims) {
      if (!g.in(c)) continue;
      if (!any) os << "  " << g.title << "\n";
      any = true;
      print_line(os, c);
      tally.add(c);
    }
  }
  os << "  " << tally.line() << "\n";
}

Table claims_table(const std::vector<Claim>& claims) {
  Table t({"claim", "source", "kind", "paper", "ours", "tolerance", "unit", "against", "verdict",
           "why"});
  for (const Claim& c : claims) {
    const std::string why = !c.informational.empty() ? c.informational
                            : !c.calibrated.empty()  ? "the calibration target of " + c.calibrated
                                                     : std::string(claim_rule(c.kind).statement);
    t.add_row({c.text, c.source, std::string(claim_rule(c.kind).name), c.paper, c.ours,
               c.checked() ? Cell(c.tolerance()) : Cell(Missing{}), c.unit,
               c.stand_in.empty() ? std::string("paper's method") : "stand-in: " + c.stand_in,
               c.verdict(), why});
  }
  return t;
}

}  // namespace dgs
