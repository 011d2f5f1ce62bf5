// The job integrations Kuota knows, listed explicitly in one place.
// Immutable; thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "jobs/job_kind.h"

namespace kuota::jobs {

const std::vector<std::unique_ptr<JobKind>>& JobKinds();
// The integration for a store resource key ("jobs.batch"), or nullptr.
const JobKind* FindJobKind(const std::string& resource);

}  // namespace kuota::jobs
