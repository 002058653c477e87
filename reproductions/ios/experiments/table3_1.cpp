// Table 3.1 of the IOS thesis: transitions and schedules of the largest blocks.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "common/util/parallel_for.h"
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

// One part's count (count_part without pruning, concurrent endings only) and DAG shape; `error`:
// why it could not be counted ("" if it was).
struct PartCount {
  DpStats stats;
  int n = 0, width = 0;
  std::string error;
};

// The counts of every part of every network of `models` (each network's in part order), one part
// per CPU at a time. The parts are handed out by descending thesis bound on their transitions
// (transition_bound of their size and width; parallel_for_largest_first), so that the largest
// (RandWire's) start first and no CPU waits on one alone at the end; each count goes to its own
// slot, so the result does not depend on which ends first. A progress line as each network's last
// part ends.
std::vector<std::vector<PartCount>> count_parts(const ExperimentContext& ctx,
                                                const std::vector<std::string>& models) {
  struct Job {
    size_t model, part;
    PartDag dag;
  };
  std::vector<Job> jobs;
  std::vector<double> bounds;  // per job
  std::vector<std::vector<PartCount>> counts(models.size());
  std::vector<std::atomic<size_t>> left(models.size());
  for (size_t mi = 0; mi < models.size(); ++mi) {
    const Network& net = network(ctx, models[mi], 1);  // built here, before the workers
    counts[mi].resize(net.parts.size());
    left[mi] = net.parts.size();
    for (size_t pi = 0; pi < net.parts.size(); ++pi) {
      PartDag d = part_dag(net, net.parts[pi]);
      PartCount& c = counts[mi][pi];
      c.n = d.n;
      c.width = dag_width(d);
      bounds.push_back(transition_bound(d.n, c.width));
      jobs.push_back({mi, pi, std::move(d)});
    }
  }
  parallel_for_largest_first(bounds, available_cpus(), [&](int64_t i) {
    const Job& j = jobs[static_cast<size_t>(i)];
    PartCount& c = counts[j.model][j.part];
    try {
      c.stats = count_part(j.dag, StrategySet::Parallel, Pruning::none(), kIosMaxSearchStates);
    } catch (const StateBudgetExceeded& e) {
      const Network& net = network(ctx, models[j.model], 1);
      c.error = "IOS count: block '" + net.parts[j.part].block + "' of " +
                display_name(models[j.model]) + " (" + std::to_string(j.dag.n) + " units, width " +
                std::to_string(c.width) + ") needs more than " + std::to_string(e.budget) +
                " DP states";
    }
    if (--left[j.model] == 0)
      ctx.progress(models[j.model] + ": " + std::to_string(counts[j.model].size()) +
                   " blocks counted");
  });
  return counts;
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
  const std::vector<std::vector<PartCount>> counts = count_parts(ctx, models);
  for (size_t mi = 0; mi < models.size(); ++mi) {
    const std::string& m = models[mi];
    const Network& net = network(ctx, m, 1);
    const Part* best = nullptr;
    DpStats best_stats;
    int best_d = 0;
    for (size_t pi = 0; pi < net.parts.size(); ++pi) {
      const Part& part = net.parts[pi];
      const PartCount& c = counts[mi][pi];
      if (!c.error.empty()) throw Error(c.error);
      const DpStats& s = c.stats;
      const int w = c.width;
      if (m != "randwire_ws") max_width = std::max(max_width, w);
      parts.add_row({m, part.block, static_cast<int64_t>(c.n), static_cast<int64_t>(w),
                     static_cast<int64_t>(s.transitions), to_string_u128(s.schedules),
                     static_cast<int64_t>(s.states)});
      if (!best || s.transitions > best_stats.transitions) {
        best = &part;
        best_stats = s;
        best_d = w;
      }
    }
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
