// repro_atomic: Atomic Dataflow, atom-level scheduling on a multi-engine accelerator. The
// experiments are listed in experiment_list.cpp.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

#include "cli/cli.h"
#include "reproductions/atomic/experiments/experiment_list.h"

int main(int argc, char** argv) {
#ifdef M_MXFAST
  // No fastbins: the DSA model's simulator frees hundreds of thousands of small regions and then
  // large buffers, and each large free makes glibc consolidate every fastbin chunk (6% of an
  // evaluation's time); without them small frees coalesce at once (about 8% faster, same output).
  mallopt(M_MXFAST, 0);
#endif
  return dgs::run_cli(argc, argv, dgs::atomic::paper_info(), dgs::atomic::experiments());
}
