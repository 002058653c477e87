// Claims of a paper, checked against the suite's values: one tolerance rule per kind of quantity.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include "common/report/report.h"
#include "common/util/error.h"

namespace dgs {

namespace {
// Digits shown for the values in the claims block (enough to judge a tolerance).
constexpr int kClaimSignificantDigits = 4;
// Count and Ordering claims are equalities; this relative slack only absorbs the rounding of a
// double (a count of 9.2e22 parsed from text vs computed).
constexpr double kEqualityRelativeSlack = 1e-9;
constexpr double kNoSignTest = std::numeric_limits<double>::quiet_NaN();

// The rules, one per ClaimKind, in the enum's order. Chosen once for every paper of the suite:
// - a ratio (speedup) of two runs on the same model cancels most of the model's absolute error,
//   so it gets the tighter bound, on the log ratio (10% either way); and as an effect it must go
//   the paper's way: a speedup (> 1) is not reproduced by a slowdown (< 1) of similar size;
// - an absolute time carries the whole calibration error of the hardware model;
// - a percentage (reduction, share, utilisation, relative difference) is already relative: its
//   rule is in points; a reduction must not be an increase (the sign test; "similar" is 0, no
//   sign). One bound for every percentage: the papers' "similar" has no number of its own;
// - counts and yes/no answers are exact.
const ClaimRule kRules[] = {
    {"ratio", ClaimBound::LogRatio, 0.10, 1.0,
     "ours - 1 has the sign of paper - 1 (unless paper = 1), and ours / paper within "
     "[1/1.1, 1.1]",
     "two runs on the same model: most of the model's absolute error cancels; a speedup is "
     "not reproduced by a slowdown"},
    {"time", ClaimBound::Relative, 0.25, kNoSignTest, "|ours / paper - 1| <= 25%",
     "an absolute time carries the hardware model's whole calibration error"},
    {"percentage", ClaimBound::Absolute, 10.0, 0.0,
     "ours has the sign of paper (unless paper = 0), and |ours - paper| <= 10 points",
     "already relative; a reduction is not reproduced by an increase; the papers' \"similar\" "
     "(no number) is 0"},
    {"count", ClaimBound::Exact, 0.0, kNoSignTest, "ours = paper (exact)", "exact by nature"},
    {"ordering", ClaimBound::Exact, 0.0, kNoSignTest, "ours = paper (yes/no, exact)",
     "exact by nature"},
};
static_assert(sizeof(kRules) / sizeof(kRules[0]) == kClaimKinds, "one rule per ClaimKind");

// Like format_cell, without trailing zeros after the decimal point ("67", "2.1", "0.25").
std::string compact(double v) {
  std::string s = format_cell(v, kClaimSignificantDigits);
  if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string with_unit(const std::string& v, const std::string& unit) {
  if (unit.empty()) return v;
  if (unit == "%" || unit == "x") return v + unit;
  return v + " " + unit;
}

std::string paper_text(const Claim& c) {
  if (!c.paper_high) return with_unit(compact(c.paper), c.unit);
  return with_unit(compact(c.paper) + "-" + compact(*c.paper_high), c.unit);
}

int sign_of(double v, double neutral) {
  return v > neutral ? 1 : v < neutral ? -1 : 0;
}

// The rule of `kind` for one paper value.
bool rule_holds(const ClaimRule& r, double paper, double ours) {
  if (!std::isfinite(paper) || !std::isfinite(ours)) return false;
  if (!std::isnan(r.neutral)) {
    const int ps = sign_of(paper, r.neutral);
    if (ps != 0 && sign_of(ours, r.neutral) != ps) return false;
  }
  switch (r.bound) {
    case ClaimBound::LogRatio:
      if (paper == 0) return ours == 0;
      if (ours / paper <= 0) return false;
      return std::fabs(std::log(ours / paper)) <= std::log1p(r.tolerance) + 1e-12;
    case ClaimBound::Relative:
      return std::fabs(ours - paper) <= r.tolerance * std::fabs(paper);
    case ClaimBound::Absolute:
      return std::fabs(ours - paper) <= r.tolerance;
    case ClaimBound::Exact:
      return std::fabs(ours - paper) <= kEqualityRelativeSlack * std::fabs(paper);
  }
  return false;
}

// The interval of ours that the rule accepts against one paper value (the sign test closes it
// at the neutral value).
std::pair<double, double> rule_interval(const ClaimRule& r, double paper) {
  double lo = paper, hi = paper;
  switch (r.bound) {
    case ClaimBound::LogRatio:
      lo = paper / (1 + r.tolerance);
      hi = paper * (1 + r.tolerance);
      if (lo > hi) std::swap(lo, hi);
      break;
    case ClaimBound::Relative:
      lo = paper - r.tolerance * std::fabs(paper);
      hi = paper + r.tolerance * std::fabs(paper);
      break;
    case ClaimBound::Absolute:
      lo = paper - r.tolerance;
      hi = paper + r.tolerance;
      break;
    case ClaimBound::Exact:
      break;
  }
  if (!std::isnan(r.neutral)) {
    if (paper > r.neutral) lo = std::max(lo, r.neutral);
    if (paper < r.neutral) hi = std::min(hi, r.neutral);
  }
  return {lo, hi};
}

void print_line(std::ostream& os, const Claim& c) {
  std::string v = c.verdict();
  v.resize(std::max<size_t>(v.size(), 8), ' ');
  os << "    " << v << "  " << c.text;
  if (!c.source.empty()) os << " [" << c.source << "]";
  const bool no_ours = !c.checked() && std::isnan(c.ours);  // a row that states what is not run
  os << ": paper " << paper_text(c) << ", ours "
     << (no_ours ? "-" : with_unit(compact(c.ours), c.unit));
  if (!c.informational.empty()) {
    os << " (not counted: " << c.informational << ")";
  } else if (!c.calibrated.empty()) {
    os << " (not counted: the calibration target of " << c.calibrated << ")";
  } else {
    os << " (" << claim_rule(c.kind).name << (c.paper_high ? ", range" : "") << ")";
    if (!c.stand_in.empty()) os << " [stand-in: " << c.stand_in << "]";
  }
  os << "\n";
}
}  // namespace

const char* const kClaimRangeRule =
    "a paper range [low, high] over its cases, ours one of those cases: ours within the range, "
    "or the kind's rule holds against the nearer end";

const ClaimRule& claim_rule(ClaimKind kind) {
  const int k = static_cast<int>(kind);
  if (k < 0 || k >= kClaimKinds) throw Error("claim_rule: unknown claim kind " + std::to_string(k));
  return kRules[k];
}

std::vector<std::string> claim_rule_lines() {
  std::vector<std::string> out;
  for (const ClaimRule& r : kRules) out.push_back(std::string(r.name) + ": " + r.statement);
  out.push_back(std::string("range: ") + kClaimRangeRule);
  return out;
}

double Claim::tolerance() const {
  const ClaimRule& r = claim_rule(kind);
  const double p = paper_high ? *paper_high : paper;
  if (r.bound == ClaimBound::Exact) return kEqualityRelativeSlack * std::fabs(p);
  return r.bound == ClaimBound::Absolute ? r.tolerance : r.tolerance * std::fabs(p);
}

std::pair<double, double> Claim::accepted() const {
  const ClaimRule& r = claim_rule(kind);
  const auto lo = rule_interval(r, paper);
  if (!paper_high) return lo;
  const auto hi = rule_interval(r, *paper_high);
  return {std::min(lo.first, hi.first), std::max(lo.second, hi.second)};
}

bool Claim::holds() const {
  const ClaimRule& r = claim_rule(kind);
  if (!paper_high) return rule_holds(r, paper, ours);
  if (!std::isfinite(paper) || !std::isfinite(*paper_high) || !std::isfinite(ours)) return false;
  const double lo = std::min(paper, *paper_high), hi = std::max(paper, *paper_high);
  if (lo <= ours && ours <= hi) return true;
  return rule_holds(r, ours < lo ? lo : hi, ours);
}

std::string Claim::verdict() const {
  if (!informational.empty()) return "informational";
  if (!calibrated.empty()) return "calibration point";
  return holds() ? "holds" : "deviates";
}

Claim yes_no_claim(std::string text, std::string source, std::optional<bool> yes,
                   std::string stand_in, std::string informational) {
  return Claim{.text = std::move(text),
               .source = std::move(source),
               .paper = 1,
               .ours = yes ? (*yes ? 1.0 : 0.0) : std::numeric_limits<double>::quiet_NaN(),
               .kind = ClaimKind::Ordering,
               .unit = "yes/no",
               .stand_in = std::move(stand_in),
               .informational = std::move(informational)};
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
  bool used[kClaimKinds] = {};
  bool range = false;
  for (const Claim& c : claims)
    if (c.checked()) {
      used[static_cast<int>(c.kind)] = true;
      range = range || c.paper_high.has_value();
    }
  for (int k = 0; k < kClaimKinds; ++k)
    if (used[k])
      os << "  rule for kind '" << kRules[k].name << "': " << kRules[k].statement << "\n";
  if (range) os << "  rule for a range: " << kClaimRangeRule << "\n";
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
      {"informational (not counted: it cannot deviate, or is not comparable; each says why):",
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

// The claims table's `against` column: what ours was computed by.
static std::string against_label(const Claim& c) {
  if (!c.not_run.empty() && c.checked())
    throw Error("claim '" + c.text + "': 'not run' (" + c.not_run +
                ") on a counted claim: only an informational row may say ours was not run");
  if (!c.not_run.empty()) return "not run: " + c.not_run;
  return c.stand_in.empty() ? std::string("paper's method") : "stand-in: " + c.stand_in;
}

Table claims_table(const std::vector<Claim>& claims) {
  Table t({"claim", "source", "kind", "paper", "paper_high", "ours", "tolerance", "accepted_low",
           "accepted_high", "unit", "against", "verdict", "why"});
  for (const Claim& c : claims) {
    const std::string rule = std::string(claim_rule(c.kind).statement) +
                             (c.paper_high ? std::string("; ") + kClaimRangeRule : "");
    const std::string why = !c.informational.empty() ? c.informational
                            : !c.calibrated.empty()  ? "the calibration target of " + c.calibrated
                                                     : rule;
    const auto [lo, hi] = c.accepted();
    t.add_row({c.text, c.source, std::string(claim_rule(c.kind).name), c.paper,
               c.paper_high ? Cell(*c.paper_high) : Cell(Missing{}),
               !c.checked() && std::isnan(c.ours) ? Cell(Missing{}) : Cell(c.ours),
               c.checked() ? Cell(c.tolerance()) : Cell(Missing{}),
               c.checked() ? Cell(lo) : Cell(Missing{}), c.checked() ? Cell(hi) : Cell(Missing{}),
               c.unit, against_label(c), c.verdict(), why});
  }
  return t;
}

}  // namespace dgs
