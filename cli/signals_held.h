#pragma once
// SignalsHeld: the guard under which the front end writes a set of files that belong together.
#include <csignal>

namespace dgs {

// Holds SIGINT, SIGTERM and SIGHUP back while it lives (they are delivered when it ends), so that
// an interrupted run writes an item's files all or none (each file is also written atomically).
class SignalsHeld {
 public:
  SignalsHeld() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGHUP);
    held_ = sigprocmask(SIG_BLOCK, &s, &old_) == 0;
  }
  ~SignalsHeld() {
    if (held_) sigprocmask(SIG_SETMASK, &old_, nullptr);
  }
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t old_;
  bool held_ = false;
};

}  // namespace dgs
