#include "jobs/tf_job.h"

#include "jobs/job_fields.h"

namespace kuota::jobs {
namespace {

constexpr const char* kChief = "Chief";
constexpr const char* kEvaluator = "Evaluator";
constexpr const char* kTFContainer = "tensorflow";
constexpr const char* kTFPortName = "tfjob-port";
constexpr int64_t kTFDefaultPort = 2222;

Status TFValidateKind(const KubeflowJobKind& kind, const Json& job) {
  if (kind.ReplicaSpec(job, kChief) != nullptr &&
      kind.ReplicaSpec(job, kKubeflowMaster) != nullptr) {
    return Forbidden(kind.SpecsPath(), "must not have more than 1 Chief or Master role");
  }
  const Json& spec = *FieldOrNull(job, "spec");  // Validate checked it
  Result<std::string> policy = StringField(spec, "successPolicy", "spec");
  if (!policy.ok()) return policy.status();
  if (!policy.value().empty() && policy.value() != "AllWorkers") {
    return NotSupported("spec.successPolicy", policy.value(), {"", "AllWorkers"});
  }
  if (const Json* d = FieldOrNull(spec, "enableDynamicWorker"); d != nullptr && !d->is_boolean()) {
    return InvalidValue("spec.enableDynamicWorker", *d, "must be a boolean");
  }
  return Status::Ok();
}

std::vector<KubeflowHooks::EnvVar> TFPodEnv(const KubeflowJobKind& kind, const Json& job,
                                            const PodPosition& where, const std::string& type) {
  if (kind.TotalReplicas(job) == 1) return {};  // not distributed: no TF_CONFIG
  Json cluster = Json::object();
  for (const std::string& t : kind.PresentTypes(job)) {
    if (t == kEvaluator) continue;
    Json hosts = Json::array();
    for (int64_t i = 0; i < kind.ReplicaCount(job, t); ++i) {
      hosts.push_back(where.address + ":" + std::to_string(TFReplicaPort(kind, job, t, i)));
    }
    cluster[LowerAscii(t)] = std::move(hosts);
  }
  Json config = {{"cluster", std::move(cluster)},
                 {"task", {{"type", LowerAscii(type)}, {"index", where.index}}},
                 {"environment", "cloud"}};
  return {{"TF_CONFIG", config.dump()}};
}

bool TFIsMasterRole(const KubeflowJobKind& kind, const Json& job, const std::string& type,
                    int64_t index) {
  if (kind.ReplicaSpec(job, kChief) != nullptr ||
      kind.ReplicaSpec(job, kKubeflowMaster) != nullptr) {
    return type == kChief || type == kKubeflowMaster;
  }
  return type == kKubeflowWorker && index == 0;
}

bool TFSucceeded(const KubeflowJobKind& kind, const Json& job, const std::vector<PodSetDef>& sets,
                 const GroupObservation& seen) {
  PodSetObservation o;
  int64_t want = 0;
  if (kind.Observed(sets, seen, kChief, &o, &want) ||
      kind.Observed(sets, seen, kKubeflowMaster, &o, &want)) {
    return o.succeeded >= want;
  }
  if (kind.Observed(sets, seen, kKubeflowWorker, &o, &want)) return o.succeeded >= want;
  return kind.GroupJobKind::Succeeded(job, sets, seen);
}

}  // namespace

int64_t TFReplicaPort(const KubeflowJobKind& kind, const Json& job, const std::string& type,
                      int64_t index) {
  const std::vector<std::string> present = kind.PresentTypes(job);
  if (present.empty()) return kTFDefaultPort + index;
  const int64_t base =
      kind.NamedPort(job, present.front(), kTFContainer, kTFPortName, kTFDefaultPort);
  int64_t offset = 0;
  for (const std::string& t : present) {
    if (t == type) break;
    offset += kind.ReplicaCount(job, t);
  }
  return base + offset + index;
}

const KubeflowKindSpec& TFJobSpec() {
  static const KubeflowKindSpec kSpec{
      .info = CrdKindInfo("kubeflow.org", "v1", "TFJob", "tfjob",
                          {.columns = {KubeflowStateColumn(), KubeflowAgeColumn()}}),
      .traits = {.specs_field = "tfReplicaSpecs",
                 .types = {{kChief, "Never", 0},
                           {kKubeflowMaster, "Never", 0},
                           {"PS", "Never", 0},
                           {kKubeflowWorker, "Never", 0},
                           {kEvaluator, "Never", 0}},
                 .restart_policies = {"Always", "OnFailure", "Never", "ExitCode"},
                 .default_container = kTFContainer,
                 .image_required = true,
                 .operator_name = "tfjob-controller",
                 .default_backoff_limit = -1},
      .hooks = {TFValidateKind, ValidateTrainingJobName, TFPodEnv, TFIsMasterRole, TFSucceeded}};
  return kSpec;
}

}  // namespace kuota::jobs
