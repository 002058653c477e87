// repro_atomic: Atomic Dataflow, atom-level scheduling on a multi-engine accelerator. The
// experiments are listed in experiment_list.cpp.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

#include "cli/cli.h"
#include "reproductions/atomic/experiments/experiment_list.h"

// jemalloc's options (linked in when CMake finds it; it reads this symbol at start-up, and with
// glibc's malloc or a sanitizer's it is an unused string): one arena. The model runs start their
// worker threads anew for every parallel loop (common/util/parallel_for.h), and jemalloc gives
// each new thread the arena with the fewest threads, one of 4 per CPU: memory freed in one arena
// was not reused by the next loop's threads in another, which faulted fresh pages in instead.
// With one arena (the same output): repro_atomic --table 2 about 4.1 -> 2.5 million minor
// faults, --all 8.9 -> 4.4 million and about 3% fewer CPU seconds (the kernel's 25-28 s halved,
// user time up a little: the two threads share the arena behind their thread caches).
//
// dirty_decay_ms:-1: freed pages stay with the process instead of going back to the kernel after
// 10 s (jemalloc's default), to be faulted in and zeroed again by the next candidate's DAG and
// simulation. Table II alone (2 cores, busy machine): 2.50 -> 1.43 million minor faults, 6.7 -> 4.1
// system seconds, the same user seconds; its peak RSS 4.4 -> 5.7 GB (the pages once used).
extern "C" {
const char* malloc_conf = "narenas:1,dirty_decay_ms:-1";
}

int main(int argc, char** argv) {
#ifdef M_MXFAST
  // No fastbins: the DSA model's simulator frees hundreds of thousands of small regions and then
  // large buffers, and each large free makes glibc consolidate every fastbin chunk (6% of an
  // evaluation's time); without them small frees coalesce at once (about 8% faster, same output).
  mallopt(M_MXFAST, 0);
#endif
  return dgs::run_cli(argc, argv, dgs::atomic::paper_info(), dgs::atomic::experiments());
}
