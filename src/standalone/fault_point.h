// Fault injection for crash tests: named points along a pod container's start
// in kuotad where, when armed, the daemon kills itself with SIGKILL
// (kill(getpid(), SIGKILL)), as kill -9 would; the keepers it forked live on.
// The crash test (tests/e2e/crash_start_test.sh) arms each point in turn and
// checks that every Job's command still runs exactly once.
//
// Armed by the environment: KUOTA_FAULT_POINT=<point>[@<pod name prefix>],
// read once when kuotad starts (FaultInjector::FromEnvironment). With a
// prefix, only starts of pods whose name begins with it crash, so a restarted
// kuotad armed for the next pod recovers the previous one undisturbed. The
// points, in the order a start passes them:
//   before-starting  before runtime.json records "starting" for the container
//   after-starting   after that record, before the keeper is forked
//   after-fork       the keeper and its waiting command exist; their
//                    identity is not recorded yet
//   after-started    "started" (the identity) recorded; "go" not sent
//   after-go         "go" sent: the command has been exec'd
//   after-running    the pod's Running status written
// and one outside pod starts (its prefix is left empty):
//   after-upgrade-batch  a batch of the store's upgrade to v1beta2 committed
//                        (server/storage_upgrade.h), the upgrade unfinished
// Unset, Reach costs one comparison. Immutable once built; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace kuota::standalone {

enum class FaultPoint {
  kNone,
  kBeforeStarting,
  kAfterStarting,
  kAfterFork,
  kAfterStarted,
  kAfterGo,
  kAfterRunning,
  kAfterUpgradeBatch,
};

// "after-go" for kAfterGo; "" for kNone.
std::string_view FaultPointName(FaultPoint point);

inline constexpr char kFaultPointEnv[] = "KUOTA_FAULT_POINT";

class FaultInjector {
 public:
  FaultInjector() = default;  // disarmed

  // Parses "<point>[@<pod name prefix>]"; "" disarms. Invalid for an unknown
  // point (the message lists the known ones).
  static Result<FaultInjector> Parse(std::string_view spec);
  // Parse(getenv(KUOTA_FAULT_POINT)), the variable unset meaning disarmed.
  static Result<FaultInjector> FromEnvironment();

  bool armed() const { return point_ != FaultPoint::kNone; }
  // "after-go" or "after-go@j07-"; "" when disarmed.
  std::string ToString() const;

  // Kills this process with SIGKILL when `point` is the armed point and
  // `pod_name` begins with the armed prefix; otherwise returns.
  void Reach(FaultPoint point, std::string_view pod_name) const {
    if (point == point_) Fire(pod_name);
  }

 private:
  void Fire(std::string_view pod_name) const;

  FaultPoint point_ = FaultPoint::kNone;
  std::string pod_prefix_;
};

}  // namespace kuota::standalone
