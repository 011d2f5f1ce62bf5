// Clock: the injected source of time. The engine never reads the system
// clock; drivers pass a RealClock, tests and the simulator a ManualClock.
// RealClock is thread-safe; ManualClock is not (single-threaded use).
#pragma once

#include "base/time.h"

namespace kuota {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Time Now() const = 0;
};

class RealClock final : public Clock {
 public:
  Time Now() const override;
};

// A clock that moves only when told to: for tests and virtual time.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(Time start) : now_(start) {}
  Time Now() const override { return now_; }
  void Set(Time t) { now_ = t; }
  void Advance(Duration d) { now_ = now_ + d; }

 private:
  Time now_;
};

}  // namespace kuota
