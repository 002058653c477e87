#pragma once
// Runs `work(i)` for every i in [0, n) on `threads` workers (the calling thread is one of them)
// that take indices from a shared counter. The order in which indices run is unspecified: a
// caller that needs a deterministic result writes each index's result to its own slot. An
// exception thrown by `work` stops the handing out of indices; once every worker has joined,
// parallel_for rethrows, on the calling thread, the exception of the lowest index that threw --
// the one a loop in index order would have thrown, since indices are handed out in increasing
// order (every lower index has run by then) -- so a worker's error reaches the caller instead
// of terminating the process, and which error does not depend on the thread count.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace dgs {

template <typename F>
void parallel_for(int64_t n, int threads, F&& work) {
  std::atomic<int64_t> next{0};
  std::mutex failed;
  std::exception_ptr first;  // of the lowest index that threw
  int64_t first_index = n;
  auto worker = [&] {
    for (int64_t i = next++; i < n; i = next++) {
      try {
        work(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failed);
        if (i < first_index) {
          first = std::current_exception();
          first_index = i;
        }
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

// f(i) for every i in [0, n) on `threads` workers, each result into its own slot, returned in
// index order: the result does not depend on the order in which the indices finish. T (f's
// result) must be default-constructible and not bool (slots are written concurrently). If any
// f(i) throws, parallel_for's rule applies: no further index starts and the exception of the
// lowest index that threw is rethrown.
template <typename F>
auto parallel_map(int64_t n, int threads, F&& f) {
  using T = std::decay_t<std::invoke_result_t<F&, int64_t>>;
  static_assert(!std::is_same_v<T, bool>, "parallel_map: vector<bool> slots are not independent");
  std::vector<T> out(static_cast<size_t>(std::max<int64_t>(0, n)));
  parallel_for(n, threads, [&](int64_t i) { out[static_cast<size_t>(i)] = f(i); });
  return out;
}

// The workers a CPU-bound search may use: the CPUs this process may run on (at least 1).
inline int available_cpus() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace dgs
