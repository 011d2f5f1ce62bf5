// WorkloadLookup: finds the Kueue Workload a user means by a name — the
// Workload itself, or the one kuotad made for a Job of that name (labelled
// kueue.x-k8s.io/job-uid and owned by the Job; named job-<name>-<hash>).
// Used by `kuota why` and `kuota stop|resume workload`. Calling thread only.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "cli/api_client.h"

namespace kuota::cli {

struct WorkloadLookup {
  nlohmann::json workload;
  std::string job_name;  // set when found through a Job
};

// NotFound (with a message saying what exists) when neither is there, or when
// the Job has no Workload (not queued, or not yet seen by kuotad).
Result<WorkloadLookup> FindWorkload(const ApiClient& client, const std::string& ns,
                                    const std::string& name);

}  // namespace kuota::cli
