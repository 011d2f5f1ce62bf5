// JobKind: the small interface every job integration implements (Kueue's
// jobframework GenericJob): is a job managed by a queue, how it maps to a
// Workload's pod sets, and how to start (unsuspend with the admitted flavors'
// node labels and tolerations) or stop it. Works on JSON objects as stored.
// Implementations are stateless and thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace kuota::jobs {

using Json = nlohmann::json;

inline constexpr const char* kQueueNameLabel = "kueue.x-k8s.io/queue-name";
inline constexpr const char* kPriorityClassLabel = "kueue.x-k8s.io/priority-class";
inline constexpr const char* kMinParallelismAnnotation = "kueue.x-k8s.io/job-min-parallelism";
// Annotation holding the pod template's original nodeSelector/tolerations
// while the job runs with a flavor's injected ones.
inline constexpr const char* kOriginalPlacementAnnotation = "kuota.dev/original-placement";

// What admission decided for one pod set, to inject into the job.
struct PodSetPlacement {
  std::string name;
  int32_t count = 0;
  std::map<std::string, std::string> node_selector;  // flavors' nodeLabels
  Json tolerations = Json::array();                  // flavors' tolerations
};

class JobKind {
 public:
  virtual ~JobKind() = default;
  // The store key of the job resource, e.g. "jobs.batch".
  virtual std::string Resource() const = 0;
  virtual std::string ApiVersion() const = 0;
  virtual std::string Kind() const = 0;

  // The queue a job names (label, else annotation); empty when unmanaged.
  static std::string QueueName(const Json& job);

  // Kueue's webhook on create: a managed job starts suspended.
  virtual void DefaultOnCreate(Json& job) const = 0;
  // The Workload (kueue.x-k8s.io/v1beta1) that represents the job.
  virtual Result<Json> BuildWorkload(const Json& job) const = 0;
  virtual bool IsSuspended(const Json& job) const = 0;
  // Unsuspends with flavors injected; returns the new job object.
  virtual Json Start(const Json& job, const std::vector<PodSetPlacement>& placement) const = 0;
  // Suspends and restores the original template; returns the new job object.
  virtual Json Stop(const Json& job) const = 0;
  // True when the job finished; `succeeded` tells how.
  virtual bool IsFinished(const Json& job, bool* succeeded) const = 0;
};

// Name of the Workload for a job, as Kueue names it: "job-<name>-<hash5>".
std::string WorkloadNameFor(const std::string& kind, const std::string& job_name,
                            const std::string& job_uid);

}  // namespace kuota::jobs
