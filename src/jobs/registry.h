// The job integrations Kuota knows, listed explicitly in one place: adding a
// kind means writing its adapter and adding it here. Immutable; thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "jobs/group_job_kind.h"
#include "jobs/job_kind.h"

namespace kuota::jobs {

const std::vector<std::unique_ptr<JobKind>>& JobKinds();
// The integration for a store resource key ("jobs.batch"), or nullptr.
const JobKind* FindJobKind(const std::string& resource);
// The same when the kind's pods are made by ReconcileGroup, else nullptr.
const GroupJobKind* FindGroupJobKind(const std::string& resource);
// The integration Kueue names `framework` ("kubeflow.org/pytorchjob"), or nullptr.
const JobKind* FindFramework(const std::string& framework);

}  // namespace kuota::jobs
