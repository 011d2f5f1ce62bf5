// SparkApplicationKind: the Kubeflow Spark operator's
// sparkoperator.k8s.io/v1beta2 SparkApplication as Kueue's
// "sparkoperator.k8s.io/sparkapplication" integration. Pod sets "driver"
// (1) and "executor" (spec.executor.instances), their templates as Kueue
// builds them from spec.driver and spec.executor (spark_pod_templates.h);
// suspended through spec.suspend; admission's nodeSelector, tolerations,
// labels and annotations go into spec.driver and spec.executor (a
// spec.nodeSelector moves there, as Kueue moves it), and come out on
// eviction. Checks: the CRD's schema, the operator's webhook and, for a
// queued application, Kueue's (cluster mode only, no dynamic allocation,
// the topology annotations at spec.driver / spec.executor).
//
// Here it runs as Spark on Kubernetes would: the driver pod (named as the
// operator names it), then once it runs `instances` executor pods
// (<prefix>-exec-<id>), with Spark's and the operator's labels and env. The
// application is COMPLETED when the driver succeeds (the executors are
// then stopped) and FAILED when it fails, unless spec.restartPolicy reruns
// it; the status is the operator's (applicationState, executorState,
// driverInfo, attempts and times). Stateless; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "jobs/group_job_kind.h"

namespace kuota::jobs {

class SparkApplicationKind final : public GroupJobKind {
 public:
  const KindInfo& Info() const override;
  // The CRD's schema, the operator's webhook, Kueue's for a queued one.
  Status Validate(const Json& job) const override;
  // The operator's defaults (type, mode, restart policy, cores, memory,
  // executor instances), for an application not yet submitted.
  void Default(Json& job) const override;
  // The job with the pods Spark makes at "kuotaSparkPods" (driver,
  // executor), for the local runtime.
  std::optional<Json> Expand(const Json& job) const override;
  Result<Json> BuildWorkload(const Json& job) const override;
  Json Start(const Json& job, const std::vector<PodSetPlacement>& placement) const override;
  Json Stop(const Json& job) const override;
  // Kueue's: COMPLETED, or FAILED / SUBMISSION_FAILED.
  bool IsFinished(const Json& job, bool* succeeded) const override;
  // Kueue's: RUNNING, and as many executors RUNNING or COMPLETED as asked.
  bool PodsReady(const Json& job) const override;
  std::string PodSetTemplateField(const Json& job, size_t index) const override;

  std::vector<PodSetDef> PodSets(const Json& job) const override;
  std::string PodName(const Json& job, const PodSetDef& set, int64_t index) const override;
  void CustomizePod(const Json& job, const PodPosition& where, Json& pod) const override;
  Json NextStatus(const Json& job, const GroupObservation& seen) const override;
  int64_t MaxRestarts(const Json& job) const override;
  GroupAction OnPodEvent(const Json& job, const PodSetDef& set, PodEvent event) const override;
  bool Succeeded(const Json& job, const std::vector<PodSetDef>& sets,
                 const GroupObservation& seen) const override;
  std::string TopologyMetadataPath(const PodSetDef& set) const override;

  // The driver pod's name: spec.driver.podName, else sparkConf's
  // spark.kubernetes.driver.pod.name, else "<app>-driver".
  static std::string DriverPodName(const Json& job);
  // The submission the pods being made belong to: the current one while one
  // runs, else the next (1 for a new application).
  static int64_t Submission(const Json& job);
  // Spark's application id of submission `n`: "spark-" + 32 hex digits.
  static std::string ApplicationId(const Json& job, int64_t n);
};

}  // namespace kuota::jobs
