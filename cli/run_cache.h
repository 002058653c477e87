#pragma once
// The experiments' one run cache: a value computed once per key and kept for the rest of the
// process, so that the items of one `--all` share a run (a search, a schedule, a loaded network)
// instead of repeating it. Thread-safe: callers of different keys compute at the same time,
// concurrent callers of one key wait for its one computation and get the same object. A
// computation that throws caches nothing: the exception goes to its caller, and the next caller
// of the key (a waiting one included) computes again. Values are never evicted, so the returned
// reference stays valid for the life of the cache (declare it `static` in a function or at
// namespace scope of the experiment file that owns the runs).
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace dgs {

template <class Key, class Value>
class RunCache {
 public:
  // The value of `key`: `compute()` (returning a Value) runs on the first call only.
  template <class Compute>
  const Value& get(const Key& key, Compute&& compute) {
    Slot& slot = slot_of(key);
    std::unique_lock<std::mutex> lock(slot.mutex);
    slot.done.wait(lock, [&] { return !slot.computing; });
    if (slot.value) return *slot.value;
    slot.computing = true;
    lock.unlock();
    try {
      Value v = compute();
      lock.lock();
      slot.value.emplace(std::move(v));
    } catch (...) {
      lock.lock();
      slot.computing = false;
      slot.done.notify_all();
      throw;
    }
    slot.computing = false;
    slot.done.notify_all();
    return *slot.value;
  }

  // Whether `key` has a value (computed and kept).
  bool contains(const Key& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = slots_.find(key);
    if (it == slots_.end()) return false;
    std::lock_guard<std::mutex> slot_lock(it->second->mutex);
    return it->second->value.has_value();
  }

 private:
  struct Slot {
    std::mutex mutex;
    std::condition_variable done;
    bool computing = false;
    std::optional<Value> value;
  };

  Slot& slot_of(const Key& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<Slot>& s = slots_[key];
    if (!s) s = std::make_unique<Slot>();
    return *s;
  }

  mutable std::mutex mutex_;
  std::map<Key, std::unique_ptr<Slot>> slots_;
};

}  // namespace dgs
