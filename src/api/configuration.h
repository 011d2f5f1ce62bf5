// Configuration (config.kueue.x-k8s.io/v1beta1): the parts of Kueue's manager
// configuration that change scheduling decisions (fair sharing,
// waitForPodsReady) and which jobs are managed (integrations.frameworks,
// manageJobsWithoutQueueName). Other known sections are accepted and
// ignored. Plain struct.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/time.h"

namespace kuota::api {

enum class FairSharingStrategy { kLessThanOrEqualToFinalShare, kLessThanInitialShare };

struct FairSharingConfig {
  bool enable = false;
  // Default: [LessThanOrEqualToFinalShare, LessThanInitialShare].
  std::vector<FairSharingStrategy> preemption_strategies = {
      FairSharingStrategy::kLessThanOrEqualToFinalShare,
      FairSharingStrategy::kLessThanInitialShare};
};

enum class RequeuingTimestamp { kEviction, kCreation };

struct RequeuingStrategy {
  RequeuingTimestamp timestamp = RequeuingTimestamp::kEviction;
  std::optional<int32_t> backoff_limit_count;  // absent: requeue forever
  int32_t backoff_base_seconds = 60;
  int32_t backoff_max_seconds = 3600;
};

struct WaitForPodsReady {
  bool enable = false;
  Duration timeout{300'000};
  bool block_admission = false;
  std::optional<Duration> recovery_timeout;
  RequeuingStrategy requeuing_strategy;
};

// integrations: which job kinds Kueue manages, by Kueue's framework names
// ("batch/job", "kubeflow.org/pytorchjob"). Absent: every kind Kuota knows.
struct Integrations {
  std::optional<std::vector<std::string>> frameworks;
};

// admissionFairSharing: how LocalQueues' usage is remembered (a half-life,
// folded in every sampling interval) and weighed per resource (absent: 1).
struct AdmissionFairSharingConfig {
  Duration usage_half_life_time;
  Duration usage_sampling_interval;
  std::map<std::string, double> resource_weights;
};

// multiKueue: how the MultiKueue manager keeps its workers (Kueue's defaults).
struct MultiKueueSettings {
  Duration gc_interval{60'000};           // orphans on workers collected this often; 0: never
  std::string origin = "multikueue";      // the kueue.x-k8s.io/multikueue-origin label's value
  Duration worker_lost_timeout{900'000};  // a worker unreachable this long loses its workloads
  // kueue.x-k8s.io/multikueue-dispatcher-all-at-once or -incremental.
  std::string dispatcher_name = "kueue.x-k8s.io/multikueue-dispatcher-all-at-once";
};

struct Configuration {
  // The controller's namespace: where MultiKueueCluster Secrets live. Unset:
  // kuotad's default (kueue-system standalone, the driver's own namespace on
  // a cluster).
  std::optional<std::string> namespace_;
  MultiKueueSettings multi_kueue;
  FairSharingConfig fair_sharing;
  // Present: admission fair sharing is on (Kueue's gate is on by default).
  std::optional<AdmissionFairSharingConfig> admission_fair_sharing;
  WaitForPodsReady wait_for_pods_ready;
  Integrations integrations;
  // Manage jobs of enabled kinds that name no queue (they wait for a queue).
  bool manage_jobs_without_queue_name = false;
};

}  // namespace kuota::api
