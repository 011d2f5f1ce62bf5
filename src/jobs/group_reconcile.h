// Group reconcile: what the local runtime does for one job of a GroupJobKind,
// given the job and its pods as stored: which pods to create (stage by stage,
// each from its pod set's template with the kind's environment), which to
// delete (suspended, restarted, finished), and the status to write. The same
// decisions for every kind; the kind supplies its policies and status shape.
// Pure function; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "jobs/group_job_kind.h"

namespace kuota::jobs {

struct GroupEvent {
  std::string type;  // "Normal" or "Warning"
  std::string reason;
  std::string message;
};

struct GroupActions {
  // Full Pod objects, named, carrying the job's submitter annotations
  // (jobctl/submitter.h) and no others.
  std::vector<Json> create_pods;
  std::vector<std::string> delete_pods;  // pod names
  std::optional<Json> status;            // the job's new status, when it changed
  std::vector<GroupEvent> events;
};

// `pods`: the pods whose controller is the job. `now`: RFC 3339.
Result<GroupActions> ReconcileGroup(const GroupJobKind& kind, const Json& job,
                                    const std::vector<Json>& pods, const std::string& now);

}  // namespace kuota::jobs
