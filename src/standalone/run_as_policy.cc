#include "standalone/run_as_policy.h"

#include "jobctl/submitter.h"

namespace kuota::standalone {
namespace {

RunAsDecision Refuse(const char* reason, std::string message) {
  RunAsDecision d;
  d.reason = reason;
  d.message = std::move(message);
  return d;
}

}  // namespace

RunAsDecision DecideRunAs(const nlohmann::json& pod, const RunAsPolicy& policy,
                          const UserLookup& look_up) {
  if (!policy.require_submitter) return {};
  const std::string why = "kuotad runs a pod's processes only as the user who submitted it";
  Result<std::optional<uint32_t>> recorded = jobctl::SubmitterUid(pod);
  if (!recorded.ok()) {
    return Refuse(kNoSubmitterReason, recorded.status().message() + "; " + why);
  }
  if (!recorded->has_value()) {
    return Refuse(kNoSubmitterReason,
                  std::string("the pod has no ") + jobctl::kSubmitterUidAnnotation +
                      " annotation: " + why + " (the API server records it on every object " +
                      "it creates, and kuotad's controllers copy it from the job)");
  }
  const uint32_t uid = **recorded;
  const std::string uid_text = "uid " + std::to_string(uid);
  Result<runtime::RunAs> user = look_up ? look_up(uid) : Status::Internal("no user lookup");
  std::string name = user.ok() ? user->user_name : jobctl::SubmittedBy(pod);
  const std::string named = uid_text + (name.empty() ? "" : " (" + name + ")");

  if (uid != policy.daemon_uid && policy.daemon_uid != 0) {
    return Refuse(kCannotRunAsSubmitterReason,
                  "kuotad runs as uid " + std::to_string(policy.daemon_uid) +
                      " and cannot run processes as " + named +
                      "; start kuotad as root to run other users' jobs");
  }
  if (!user.ok()) {
    // kuotad's own uid needs no user to change to: it runs as kuotad.
    if (uid == policy.daemon_uid) return {};
    if (user.status().code() == StatusCode::kNotFound) {
      return Refuse(kUnknownSubmitterReason,
                    "the pod's submitter, " + named + ", has no passwd entry on this machine " +
                        "(" + user.status().message() +
                        "): kuotad cannot run processes as a user the system does not know");
    }
    return Refuse(kSubmitterLookupFailedReason,
                  "cannot look up the pod's submitter, " + named + ": " + user.status().message());
  }
  RunAsDecision d;
  d.run_as = std::move(user).value();
  return d;
}

}  // namespace kuota::standalone
