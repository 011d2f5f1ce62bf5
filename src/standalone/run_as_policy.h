// Run-as policy: which user a pod's processes run as. With authentication on,
// kuotad runs a pod only as the user who submitted it, as its API server
// recorded on the pod (jobctl/submitter.h; controllers copy it from the job):
// never as root unless root submitted it, never as another user when kuotad
// itself is not root. Without it (--insecure-http) pods run as kuotad's own
// user, unchanged. Pure (the user lookup is passed in); thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "runtime/process_spec.h"

namespace kuota::standalone {

// The reasons a pod is refused (its status.reason; the containers' too).
inline constexpr char kNoSubmitterReason[] = "NoSubmitter";
inline constexpr char kUnknownSubmitterReason[] = "UnknownSubmitter";
inline constexpr char kSubmitterLookupFailedReason[] = "SubmitterLookupFailed";
inline constexpr char kCannotRunAsSubmitterReason[] = "CannotRunAsSubmitter";

struct RunAsPolicy {
  // Run each pod as its submitter (kuota.dev/submitter-uid), refusing pods
  // without a valid one; false: every pod runs as kuotad's own user.
  bool require_submitter = false;
  // kuotad's effective uid: 0 may run pods of any user, any other uid only
  // its own.
  uint32_t daemon_uid = 0;
};

// The user a uid names, or NotFound when the system has none (the real one is
// runtime::LookUpUser).
using UserLookup = std::function<Result<runtime::RunAs>(uint32_t uid)>;

struct RunAsDecision {
  // Who the pod's processes run as when allowed; nullopt: as kuotad itself,
  // with nothing changed.
  std::optional<runtime::RunAs> run_as;
  // Empty when allowed; else one of the reasons above and a message naming
  // the annotation or the user, for the pod's status and its Event.
  std::string reason;
  std::string message;

  bool allowed() const { return reason.empty(); }
};

// Decides for `pod` (a Pod object as stored). With require_submitter:
//   no or a malformed kuota.dev/submitter-uid      -> NoSubmitter;
//   another uid than kuotad's while kuotad is not root -> CannotRunAsSubmitter
//     ("kuotad runs as uid 1000 and cannot run processes as uid 1001
//     (alice); start kuotad as root to run other users' jobs");
//   a uid with no passwd entry                     -> UnknownSubmitter (but
//     kuotad's own uid then runs as kuotad, unchanged: no user to change to);
//   a lookup that failed otherwise                 -> SubmitterLookupFailed;
//   else the user's RunAs (uid 0 only when root submitted the pod; kuotad's
//     own uid keeps kuotad's identity, the runtime changes no ids).
// `look_up` is called at most once, and only with require_submitter.
RunAsDecision DecideRunAs(const nlohmann::json& pod, const RunAsPolicy& policy,
                          const UserLookup& look_up);

}  // namespace kuota::standalone
