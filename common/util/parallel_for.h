#pragma once
// Runs `work(i)` for every i in [0, n) on `threads` workers (the calling thread is one of them)
// that take indices from a shared counter. The order in which indices run is unspecified: a
// caller that needs a deterministic result writes each index's result to its own slot. An
// exception thrown by `work` stops the handing out of indices; parallel_for rethrows the first
// one after every worker has joined, on the calling
// thread, so a worker's error reaches the caller instead of terminating the process.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace dgs {

template <typename F>
void parallel_for(int64_t n, int threads, F&& work) {
  std::atomic<int64_t> next{0};
  std::mutex failed;
  std::exception_ptr first;
  auto worker = [&] {
    for (int64_t i = next++; i < n; i = next++) {
      try {
        work(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failed);
        if (!first) first = std::current_exception();
        next = n;  // no more indices
      }
    }
  };
  std::vector<std::thread> pool;
  const int64_t workers = std::min<int64_t>(std::max(1, threads), std::max<int64_t>(1, n));
  for (int64_t t = 1; t < workers; ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (first) std::rethrow_exception(first);
}

// The workers a CPU-bound search may use: the CPUs this process may run on (at least 1).
inline int available_cpus() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace dgs
