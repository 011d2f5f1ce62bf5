// BatchJob: the batch/v1 Job integration. One pod set "main" whose count is
// the parallelism (capped by completions); kueue.x-k8s.io/job-min-parallelism
// enables partial admission. Validation and the pods themselves are the
// Job controller's (jobctl). Stateless; thread-safe.
#pragma once

#include "jobs/job_kind.h"

namespace kuota::jobs {

class BatchJob final : public JobKind {
 public:
  const KindInfo& Info() const override;
  Status Validate(const Json& job) const override;
  void DefaultOnCreate(Json& job) const override;
  Result<Json> BuildWorkload(const Json& job) const override;
  bool IsSuspended(const Json& job) const override;
  Json Start(const Json& job, const std::vector<PodSetPlacement>& placement) const override;
  Json Stop(const Json& job) const override;
  bool IsFinished(const Json& job, bool* succeeded) const override;
  bool PodsReady(const Json& job) const override;
};

}  // namespace kuota::jobs
