#include "standalone/fault_point.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace kuota::standalone {
namespace {

constexpr FaultPoint kAllPoints[] = {
    FaultPoint::kBeforeStarting,    FaultPoint::kAfterStarting, FaultPoint::kAfterFork,
    FaultPoint::kAfterStarted,      FaultPoint::kAfterGo,       FaultPoint::kAfterRunning,
    FaultPoint::kAfterUpgradeBatch,
};

}  // namespace

std::string_view FaultPointName(FaultPoint point) {
  switch (point) {
    case FaultPoint::kNone:
      return "";
    case FaultPoint::kBeforeStarting:
      return "before-starting";
    case FaultPoint::kAfterStarting:
      return "after-starting";
    case FaultPoint::kAfterFork:
      return "after-fork";
    case FaultPoint::kAfterStarted:
      return "after-started";
    case FaultPoint::kAfterGo:
      return "after-go";
    case FaultPoint::kAfterRunning:
      return "after-running";
    case FaultPoint::kAfterUpgradeBatch:
      return "after-upgrade-batch";
  }
  return "";
}

Result<FaultInjector> FaultInjector::Parse(std::string_view spec) {
  FaultInjector f;
  if (spec.empty()) return f;
  const size_t at = spec.find('@');
  const std::string_view name = spec.substr(0, at);
  if (at != std::string_view::npos) f.pod_prefix_ = std::string(spec.substr(at + 1));
  std::string known;
  for (FaultPoint p : kAllPoints) {
    if (FaultPointName(p) == name) f.point_ = p;
    known += (known.empty() ? "" : ", ") + std::string(FaultPointName(p));
  }
  if (f.point_ == FaultPoint::kNone) {
    return Status::Invalid(std::string(kFaultPointEnv) + "=" + std::string(spec) +
                           ": unknown fault point \"" + std::string(name) + "\" (known: " + known +
                           "; optionally @<pod name prefix>)");
  }
  return f;
}

Result<FaultInjector> FaultInjector::FromEnvironment() {
  const char* spec = std::getenv(kFaultPointEnv);
  return Parse(spec == nullptr ? "" : spec);
}

std::string FaultInjector::ToString() const {
  if (!armed()) return "";
  return std::string(FaultPointName(point_)) + (pod_prefix_.empty() ? "" : "@" + pod_prefix_);
}

void FaultInjector::Fire(std::string_view pod_name) const {
  if (pod_name.substr(0, pod_prefix_.size()) != pod_prefix_) return;
  std::fprintf(stderr, "kuotad: fault point %s reached (pod %.*s): SIGKILL\n",
               std::string(FaultPointName(point_)).c_str(), static_cast<int>(pod_name.size()),
               pod_name.data());
  std::fflush(stderr);
  kill(getpid(), SIGKILL);
}

}  // namespace kuota::standalone
