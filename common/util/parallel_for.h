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
#include <type_traits>
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

// f(i) for every i in [0, n) on `threads` workers, each result into its own slot, returned in
// index order: the result does not depend on the order in which the indices finish. T (f's
// result) must be default-constructible and not bool (slots are written concurrently). If any
// f(i) throws, no further index starts and, once every worker has joined, the exception of the
// lowest index that threw is rethrown -- the one a loop in index order would have thrown, since
// indices are handed out in increasing order (every lower index has run by then).
template <typename F>
auto parallel_map(int64_t n, int threads, F&& f) {
  using T = std::decay_t<std::invoke_result_t<F&, int64_t>>;
  static_assert(!std::is_same_v<T, bool>, "parallel_map: vector<bool> slots are not independent");
  std::vector<T> out(static_cast<size_t>(std::max<int64_t>(0, n)));
  std::vector<std::exception_ptr> failed(out.size());
  try {
    parallel_for(n, threads, [&](int64_t i) {
      try {
        out[static_cast<size_t>(i)] = f(i);
      } catch (...) {
        failed[static_cast<size_t>(i)] = std::current_exception();
        throw;  // parallel_for stops handing out indices
      }
    });
  } catch (...) {
    for (const std::exception_ptr& e : failed)
      if (e) std::rethrow_exception(e);
    throw;
  }
  return out;
}

// The workers a CPU-bound search may use: the CPUs this process may run on (at least 1).
inline int available_cpus() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace dgs
