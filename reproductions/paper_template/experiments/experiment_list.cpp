// The experiments of repro_paper_template: one Experiment per figure or table of the paper, with
// the paper's caption, in the paper's order.
#include "reproductions/paper_template/experiments/experiment_list.h"

#include "reproductions/paper_template/experiments/experiments.h"

namespace dgs::paper_template {

PaperInfo paper_info() {
  return {.key = "paper_template",
          .title = "The template of a paper folder (not a paper)",
          .paper_file = "paper_template.txt"};
}

std::vector<Experiment> experiments() {
  return {
      {.kind = "table",
       .number = "1",
       .caption = "Latency of the template scheduler's plan on zoo models, priced by evaluate().",
       .run = run_table1,
       .default_hardware = "a100"},
  };
}

}  // namespace dgs::paper_template
