#pragma once
// repro_compare's command line (README, "Comparing schedulers"): every registered scheduler (or
// the ones named) on every --model x --hw pair, one table across the five papers.
//
//   repro_compare [--model NAME|FILE.onnx]... [--batch N] [--hw NAME|FILE.json]...
//                 [--scheduler NAME|cmd:PATH]... [--scheduler-arg ARG]...
//                 [--scheduler-option NAME.KEY=VALUE]... [--scheduler-timeout S]
//                 [--plan NAME=FILE]... [--reference-limit-gflop X] [--seed N]
//                 [--out DIR] [--mode model|measured] [--quiet] [--write-plans]
//                 [--shard I/N [--shard-costs FILE]] [--skip-existing] [--merge DIR...]
//                 [--list] [--help]
//
// Defaults: --model resnet50 --model bert_base, --hw a100 --hw stcp920 --hw atomic_mesh, every
// registered scheduler. The baseline (sequential) always runs, so that every row has its speedup.
// --seed (default 1) seeds the reference check's inputs and is the default of every scheduler's
// "seed" option (an explicit --scheduler-option NAME.seed=N wins); stdout says which each got.
// Writes <out>/compare/: compare.csv (one row per model, machine and scheduler),
// compare_<hw>.svg (one figure per machine), compare_summary.txt (who wins where) and, with
// --write-plans, plans/<model>@<hw>@<scheduler>.json (every plan, for plan_eval or your own tools;
// with a .onnx of the same name when the plan schedules the scheduler's rewrite of the graph,
// e.g. added Concat ops).
//
// Exit codes as every repro_*: 0 every row priced or not applicable; 1 a scheduler failed (its
// row says why; the rest of the table is written); 2 a usage error (unknown flag or scheduler, bad
// --model, --hw, shard or merge input; one line, nothing written); 4 --mode measured without a
// usable GPU.
#include <iosfwd>

namespace dgs {

int run_compare(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace dgs
