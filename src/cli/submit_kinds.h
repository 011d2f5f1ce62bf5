// The job kinds `kuota submit --kind` can make from a command line: the
// batch/v1 Job that BuildSubmitJob makes, reshaped into a PyTorchJob (master
// + workers), TFJob, JAXJob, PaddleJob, XGBoostJob, JobSet, Volcano Job or
// plain Pod with the same pod template, queue and priority labels. Pure
// functions; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace kuota::cli {

// The names --kind takes, for help and errors: "job, pytorchjob, ...".
std::string SubmitKindNames();

// The canonical --kind for `name` (case-insensitive, aliases such as
// "volcanojob" for "vcjob"); empty when unknown.
std::string CanonicalSubmitKind(const std::string& name);

// `job` (a batch/v1 Job from BuildSubmitJob) as a `kind` object: its pod
// template runs the command in every pod; parallelism is the pod count
// (PyTorchJob, PaddleJob, XGBoostJob: 1 master + parallelism-1 workers). Invalid naming the flag
// when the kind cannot express the Job (e.g. --completions for a PyTorchJob).
Result<nlohmann::json> ReshapeSubmitJob(const std::string& kind, const nlohmann::json& job);

}  // namespace kuota::cli
