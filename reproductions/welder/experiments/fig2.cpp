// §2: the Matmul+Softmax traffic example ([4x128] and [16x128] tiles) and Fig. 2 (unfused vs
// fused latency, standalone vs aligned tiles). --mode measured runs Fig. 2 on the GPU
// (measured.cpp).
#include <cmath>
#include <limits>
#include <sstream>

#include "common/report/report.h"
#include "reproductions/welder/experiments/experiments.h"
#include "reproductions/welder/experiments/measured.h"

namespace dgs::welder {

namespace {
// §2: A [98304 x 64], B [64 x 128], C = A.B, D = Softmax(C); FP32.
constexpr int64_t kRows = kFig2Rows, kK = kFig2K, kN = kFig2N;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Sec2Graph {
  TileGraph g;
  int matmul = -1, softmax = -1;
};

Sec2Graph sec2_graph() {
  Sec2Graph s;
  s.g.name = "matmul_softmax";
  const int a = add_tensor(s.g, "A", {kRows, kK}, false);
  const int b = add_tensor(s.g, "B", {kK, kN}, true);
  s.matmul = add_matmul(s.g, "matmul", a, b);
  s.softmax = add_softmax(s.g, "softmax", s.g.ops[s.matmul].output);
  s.g.tensors[s.g.ops[s.softmax].output].graph_output = true;
  return s;
}

}  // namespace

// Fig. 2: each operator alone with its own best tile, the fused pair, and each operator run
// alone with the fused kernel's tile.
Fig2Model fig2_model(const WelderArch& arch) {
  const Sec2Graph s = sec2_graph();
  KernelGroup fused;
  fused.ops = {s.matmul, s.softmax};
  fused.edges[{s.matmul, s.softmax}] = Conn::Shared;
  SearchLimits lim;
  KernelGroup mm{{s.matmul}, {}}, sm{{s.softmax}, {}};
  const GroupResult rm = schedule_group(s.g, mm, arch, lim);
  const GroupResult rs = schedule_group(s.g, sm, arch, lim);
  const GroupResult rf = schedule_group(s.g, fused, arch, lim);
  for (const GroupResult* r : {&rm, &rs, &rf})
    if (!r->valid) throw Error("fig2: no valid tile for a Matmul/Softmax kernel: " + r->why);
  Fig2Model m;
  m.arch_name = arch.name;
  m.matmul_tile = rm.best.tile;
  m.softmax_tile = rs.best.tile;
  m.fused_tile = rf.best.tile;
  m.matmul_ms = rm.best.latency_us / 1000;
  m.softmax_ms = rs.best.latency_us / 1000;
  m.matmul_aligned_ms = profile_tile(s.g, mm, arch, rf.best.tile).latency_us / 1000;
  m.softmax_aligned_ms = profile_tile(s.g, sm, arch, rf.best.tile).latency_us / 1000;
  m.fused_ms = rf.best.latency_us / 1000;
  return m;
}

void run_fig2(ExperimentContext& ctx) {
  if (ctx.options().mode == RunMode::Measured) {
    measure_fig2(ctx);
    return;
  }
  const WelderArch arch = noted_experiment_arch(ctx, false);
  ctx.note(
      "workload: the §2 simplification (one shared B [64x128]); the artifact's Fig. 2 "
      "workload is BERT attention at batch 64 with 768 different B matrices");
  Sec2Graph s = sec2_graph();
  KernelGroup fused;
  fused.ops = {s.matmul, s.softmax};
  fused.edges[{s.matmul, s.softmax}] = Conn::Shared;
  const PaperData pd = ctx.paper_data("sec2.csv");
  Table t({"tile", "bytes_per_tile", "tiles", "total_MiB", "paper_bytes_per_tile", "paper_tiles",
           "paper_total_MiB"});
  std::vector<Claim> claims;
  for (int64_t rows : {4, 16}) {
    const TileConfig c = evaluate_tile(s.g, fused, arch, {rows, kN});
    const double total = c.tile_bytes * static_cast<double>(c.grid) / kMiB;
    const std::string tile = "[" + std::to_string(rows) + "x128]";
    Cell pb = Missing{}, pt = Missing{}, ptot = Missing{};
    if (rows == 4) {
      pb = *pd.value({{"quantity", "bytes_per_tile_4x128"}}, "value");
      pt = *pd.value({{"quantity", "tiles_4x128"}}, "value");
      ptot = *pd.value({{"quantity", "total_4x128"}}, "value");
      claims.push_back({"bytes per [4x128] tile", pd.source({{"quantity", "bytes_per_tile_4x128"}}),
                        std::get<double>(pb), c.tile_bytes, ClaimKind::Count, "B"});
      claims.push_back({"number of [4x128] tiles", pd.source({{"quantity", "tiles_4x128"}}),
                        std::get<double>(pt), static_cast<double>(c.grid), ClaimKind::Count,
                        "tiles"});
      claims.push_back({"total traffic, [4x128] tiles", pd.source({{"quantity", "total_4x128"}}),
                        std::get<double>(ptot), total, ClaimKind::Count, "MiB"});
    } else {
      ptot = *pd.value({{"quantity", "total_16x128"}}, "value");
      claims.push_back({"total traffic, [16x128] tiles", pd.source({{"quantity", "total_16x128"}}),
                        std::get<double>(ptot), total, ClaimKind::Count, "MiB"});
    }
    t.add_row({tile, c.tile_bytes, c.grid, total, pb, pt, ptot});
  }
  ctx.emit_table("Section 2 - global memory traffic of Matmul+Softmax with C kept in shared memory",
                 t, "_traffic");

  const Fig2Model m = fig2_model(arch);
  const PaperData p2 = ctx.paper_data("fig2.csv");
  Table f({"kernel", "tile", "latency_ms", "paper_latency_ms", "slowdown_vs_own_tile_pct",
           "paper_slowdown_vs_own_tile_pct"});
  const double unfused = m.unfused_ms();
  // §2: each operator run alone with the fused kernel's (aligned) tile, slower than with its own.
  const double mm_slow = 100 * (m.matmul_aligned_ms / m.matmul_ms - 1);
  const double sm_slow = 100 * (m.softmax_aligned_ms / m.softmax_ms - 1);
  const auto p_mm_slow = p2.value({{"quantity", "matmul_aligned_slowdown"}}, "value");
  const auto p_sm_slow = p2.value({{"quantity", "softmax_aligned_slowdown"}}, "value");
  f.add_row(
      {"Matmul (own tile)", tile_str(m.matmul_tile), m.matmul_ms, Missing{}, Missing{}, Missing{}});
  f.add_row({"Softmax (own tile)", tile_str(m.softmax_tile), m.softmax_ms, Missing{}, Missing{},
             Missing{}});
  f.add_row({"unfused", "-", unfused, p2.cell({{"quantity", "unfused_latency"}}, "value"),
             Missing{}, Missing{}});
  f.add_row({"Matmul (aligned tile)", tile_str(m.fused_tile), m.matmul_aligned_ms, Missing{},
             mm_slow, p_mm_slow ? Cell(*p_mm_slow) : Cell(Missing{})});
  f.add_row({"Softmax (aligned tile)", tile_str(m.fused_tile), m.softmax_aligned_ms, Missing{},
             sm_slow, p_sm_slow ? Cell(*p_sm_slow) : Cell(Missing{})});
  f.add_row({"fused", tile_str(m.fused_tile), m.fused_ms,
             p2.cell({{"quantity", "fused_latency"}}, "value"), Missing{}, Missing{}});
  ctx.emit_table("Figure 2 - Matmul+Softmax, unfused vs fused (model mode, " + arch.name + ")", f);
  ctx.note(std::string("Fig. 2 aligned-tile rows: each operator alone with the fused kernel's "
                       "tile, costed like every other row (") +
           (arch.gpu ? "the suite's GPU model" : "the cost model's roofline") +
           "); the tile is fixed, not searched");
  claims.push_back({"Fig. 2 fused speedup over unfused", p2.source({{"quantity", "speedup"}}),
                    *p2.value({{"quantity", "speedup"}}, "value"), unfused / m.fused_ms,
                    ClaimKind::Ratio, "x"});
  if (p_mm_slow)
    claims.push_back({"Matmul slowdown with the aligned tile (vs its own tile)",
                      p2.source({{"quantity", "matmul_aligned_slowdown"}}), *p_mm_slow, mm_slow,
                      ClaimKind::Percentage, "%"});
  if (p_sm_slow)
    claims.push_back({"Softmax slowdown with the aligned tile (vs its own tile)",
                      p2.source({{"quantity", "softmax_aligned_slowdown"}}), *p_sm_slow, sm_slow,
                      ClaimKind::Percentage, "%"});
  ctx.emit_claims(claims);
  BarChart chart{"Fig. 2: Matmul+Softmax latency (" + arch.name + ")",
                 "latency (ms)",
                 {"unfused", "fused"},
                 {{"ours (model)", {unfused, m.fused_ms}},
                  {"paper",
                   {p2.value({{"quantity", "unfused_latency"}}, "value").value_or(kNaN),
                    p2.value({{"quantity", "fused_latency"}}, "value").value_or(kNaN)}}}};
  ctx.emit_svg(bar_chart_svg(chart));
}

}  // namespace dgs::welder
