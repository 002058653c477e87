// Table 3.1 of the IOS thesis: transitions and schedules of the largest blocks.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "models/zoo.h"
#include "reproductions/ios/experiments/experiments.h"
#include "reproductions/ios/experiments/runs.h"

namespace dgs::ios {

namespace {

// Two significant digits, as the thesis prints Table 3.1 ("4.9e3").
double two_digits(double v) {
  if (v <= 0) return v;
  const double e = std::floor(std::log10(v)) - 1;
  return std::round(v / std::pow(10.0, e)) * std::pow(10.0, e);
}

std::string sci2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

}  // namespace

void run_table3_1(ExperimentContext& ctx) {
  ctx.note(
      "counting mode: concurrent-execution endings only, no pruning (r = "
      "s = unlimited), as the "
      "thesis' Table 3.1 counts; the 'largest block' is the part with the "
      "most transitions");
  ctx.note(
      "endings are the authors' head closures; the thesis' wording "
      "(connected components) would "
      "admit more endings and give other counts");
  ctx.note(
      "RandWire's counts hold only for the authors' graph files "
      "(randwire, built in as "
      "data/ios/randwire_graphs.csv); the row randwire_ws uses graphs "
      "generated with --seed");
  const PaperData p = ctx.paper_data("table3_1.csv");
  Table t({"model", "block", "n", "paper_n", "d", "paper_d", "bound", "paper_bound", "transitions",
           "paper_transitions", "schedules", "schedules_exact", "paper_schedules", "states",
           "transitions_match", "schedules_match"});
  Table parts({"model", "block", "n", "d", "transitions", "schedules", "states"});
  std::vector<Claim> claims;
  int max_width = 0;
  std::vector<std::string> models = evaluation_models(ctx);
  if (ctx.options().model.empty()) models.push_back("randwire_ws");
  for (const std::string& m : models) {
    const Network& net = network(ctx, m, 1);
    const Part* best = nullptr;
    DpStats best_stats;
    int best_d = 0;
    for (const Part& part : net.parts) {
      const PartDag d = part_dag(net, part);
      DpStats s;
      try {
        s = count_part(d, StrategySet::Parallel, Pruning::none(), kIosMaxSearchStates);
      } catch (const StateBudgetExceeded& e) {
        throw Error("IOS count: block '" + part.block + "' of " + display_name(m) + " (" +
                    std::to_string(d.n) + " units, width " + std::to_string(dag_width(d)) +
                    ") needs more than " + std::to_string(e.budget) + " DP states");
      }
      const int w = dag_width(d);
      if (m != "randwire_ws") max_width = std::max(max_width, w);
      parts.add_row({m, part.block, static_cast<int64_t>(d.n), static_cast<int64_t>(w),
                     static_cast<int64_t>(s.transitions), to_string_u128(s.schedules),
                     static_cast<int64_t>(s.states)});
      if (!best || s.transitions > best_stats.transitions) {
        best = &part;
        best_stats = s;
        best_d = w;
      }
    }
    ctx.progress(m + ": " + std::to_string(net.parts.size()) + " blocks counted");
    const int n = static_cast<int>(best->units.size());
    const double bound = transition_bound(n, best_d);
    const double sched = to_double_u128(best_stats.schedules);
    const auto pb = p.value({{"model", m}}, "bound");
    const auto pt = p.value({{"model", m}}, "transitions");
    const auto ps = p.value({{"model", m}}, "schedules");
    const bool tm =
        pt && two_digits(static_cast<double>(best_stats.transitions)) == two_digits(*pt);
    const bool sm = ps && two_digits(sched) == two_digits(*ps);
    t.add_row({m, best->block, static_cast<int64_t>(n), cell(p.value({{"model", m}}, "n")),
               static_cast<int64_t>(best_d), cell(p.value({{"model", m}}, "d")), bound, cell(pb),
               static_cast<int64_t>(best_stats.transitions), cell(pt), sched,
               to_string_u128(best_stats.schedules), cell(ps),
               static_cast<int64_t>(best_stats.states), std::string(pt ? (tm ? "yes" : "no") : "-"),
               std::string(ps ? (sm ? "yes" : "no") : "-")});
    if (pt) {
      claims.push_back(
          {m + ": #(S,S') of the largest block (2 significant digits)", p.source({{"model", m}}),
           *pt, two_digits(static_cast<double>(best_stats.transitions)), ClaimKind::Count, ""});
      claims.push_back(
          {m + ": #schedules of the largest block (2 significant digits, " + sci2(sched) + ")",
           p.source({{"model", m}}), *ps, two_digits(sched), ClaimKind::Count, ""});
    }
  }
  t.precision = 4;
  ctx.emit_table(
      "Table 3.1: transitions and schedules of the largest block "
      "(exact counts)",
      t);
  ctx.emit_table("Table 3.1 (all parts of every network)", parts, "_parts");
  if (ctx.options().model.empty())
    claims.push_back(make_claim(ctx, "max_width", "largest block width over the four networks",
                                max_width, ClaimKind::Count));
  ctx.emit_claims(claims);
}

}  // namespace dgs::ios
