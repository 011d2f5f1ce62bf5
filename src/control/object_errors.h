// ObjectErrors: how kuotad's background loops (controller, job reconciler,
// pod runner) report a stored object they cannot use — a value of the wrong
// type, a field a reader cannot follow, an exception from a JSON accessor —
// as that object's own error, never as a process-wide one: a Warning Event
// and an `Invalid` condition in the object's status, written once per
// distinct message so the loops never feed on their own reports.
// Not thread-safe: each loop owns its ObjectErrors.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "store/object_store.h"

namespace kuota::control {

// The condition type set on an object a reader could not use.
inline constexpr char kInvalidCondition[] = "Invalid";

class ObjectErrors {
 public:
  // `store` and `clock` must outlive this. `component` names the reporter
  // in Events ("kuota-controller", "job-controller", "kubelet").
  ObjectErrors(store::ObjectStore& store, const Clock& clock, std::string component);

  // Reports that `object` of `resource` (a store key, e.g. "jobs.batch")
  // could not be used: logs, records a Warning Event with `reason`, and sets
  // status.conditions[type=Invalid] (a pod also gets phase Failed) — unless
  // the same message was already reported for this object. Never throws.
  void Report(const std::string& resource, const nlohmann::json& object, const std::string& reason,
              const std::string& message);
  // Forgets what was reported for the object (deleted, or usable again).
  void Forget(const std::string& resource, const nlohmann::json& object);
  // The number of distinct reports written (for tests and logs).
  int64_t reported() const { return reported_; }

 private:
  store::ObjectStore& store_;
  const Clock& clock_;
  const std::string component_;
  std::map<std::string, std::string> last_;  // resource/ns/name -> last message
  int64_t reported_ = 0;
};

// Runs `fn`, turning any exception it throws into a returned message
// (empty when it returned normally). For the loops' per-object steps.
template <typename Fn>
std::string CatchAll(Fn&& fn) {
  try {
    fn();
    return "";
  } catch (const std::exception& e) {
    return std::string("internal error reading the object: ") + e.what();
  } catch (...) {
    return "internal error reading the object: unknown exception";
  }
}

}  // namespace kuota::control
