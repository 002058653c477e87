// The comparison's per-plan pricing (repro_compare): evaluate() of each registered scheduler's
// plan for ResNet-50 and BERT-base at batch 1 on a100, stcp920 and atomic_mesh, the default
// comparison's pairs (issue target: the whole default comparison, scheduling included, under 60 s
// on 2 cores). Each plan is made once, outside the timing; a scheduler that does not apply to a
// pair has no benchmark. Benchmarks are named Pricing/<scheduler>/<model>/<hw>.
#include <benchmark/benchmark.h>

#include <memory>

#include "common/evaluate/evaluate.h"
#include "common/hw/hardware_spec.h"
#include "compare/scheduler_registry.h"
#include "models/zoo.h"

namespace {

using namespace dgs;

struct Priced {
  std::shared_ptr<const Graph> graph;
  std::shared_ptr<const HardwareSpec> hw;
  ScheduleResult schedule;
};

void register_all() {
  static const SchedulerList list = all_schedulers();
  for (const std::string model : {"resnet50", "bert_base"}) {
    const auto g = std::make_shared<const Graph>(build_zoo_model(model, {.batch = 1}));
    for (const std::string hw_name : {"a100", "stcp920", "atomic_mesh"}) {
      const auto hw = std::make_shared<const HardwareSpec>(load_hardware(hw_name));
      for (const auto& s : list) {
        if (s->cannot_target(*hw)) continue;
        auto p = std::make_shared<Priced>();
        p->graph = g;
        p->hw = hw;
        try {
          p->schedule = run_scheduler(*s, *g, *hw);
        } catch (const Error&) {
          continue;  // not applicable to this graph (repro_compare's row says why)
        }
        benchmark::RegisterBenchmark(("Pricing/" + s->name() + "/" + model + "/" + hw_name).c_str(),
                                     [p](benchmark::State& state) {
                                       for (auto _ : state) {
                                         const EvaluationResult r =
                                             evaluate(*p->graph, p->schedule.plan, *p->hw,
                                                      p->schedule.evaluation);
                                         benchmark::DoNotOptimize(r.latency_us);
                                       }
                                     })
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
