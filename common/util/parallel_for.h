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
#include <numeric>
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

// The jobs [0, sizes.size()) ordered by decreasing size, ties by increasing job index: the order
// parallel_for_largest_first hands them out in. Size: any type with operator> that is a strict
// weak order over `sizes` (no NaN).
template <typename Size>
std::vector<int64_t> largest_first_order(const std::vector<Size>& sizes) {
  std::vector<int64_t> order(sizes.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return sizes[static_cast<size_t>(a)] > sizes[static_cast<size_t>(b)];
  });
  return order;
}

// Runs `work(job)` for every job in [0, sizes.size()) on `threads` workers, handing the jobs out
// in largest_first_order(sizes): sizes[job] is an estimate of the job's time, and with the longest
// started first no CPU is left running a long one alone at the end. Only the order of the work
// changes: `work` is called with the job's index (not its position in that order), so a caller
// that writes each job's result to the job's own slot gets a result independent of the order and
// of the thread count. Exceptions follow parallel_for's rule over the positions in that order: no
// further job starts once one has thrown, and the exception rethrown is that of the job earliest
// in the handed-out order (the largest, then the lowest index) among those that threw -- the one
// a loop over the jobs in that order would throw -- not that of the lowest job index.
template <typename Size, typename F>
void parallel_for_largest_first(const std::vector<Size>& sizes, int threads, F&& work) {
  const std::vector<int64_t> order = largest_first_order(sizes);
  parallel_for(static_cast<int64_t>(order.size()), threads,
               [&](int64_t k) { work(order[static_cast<size_t>(k)]); });
}

// The workers a CPU-bound search may use: the CPUs this process may run on (at least 1).
inline int available_cpus() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace dgs
