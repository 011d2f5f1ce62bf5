#include "jobs/tf_job.h"

#include "jobs/job_fields.h"

namespace kuota::jobs {
namespace {

constexpr const char* kChief = "Chief";
constexpr const char* kEvaluator = "Evaluator";
constexpr const char* kTFContainer = "tensorflow";
constexpr const char* kTFPortName = "tfjob-port";
constexpr int64_t kTFDefaultPort = 2222;

}  // namespace

const KindInfo& TFJobKind::Info() const {
  static const KindInfo kInfo =
      CrdKindInfo("kubeflow.org", "v1", "TFJob", "tfjob",
                  {.columns = {KubeflowStateColumn(), KubeflowAgeColumn()}});
  return kInfo;
}

const KubeflowTraits& TFJobKind::Traits() const {
  static const KubeflowTraits kTraits = [] {
    KubeflowTraits t;
    t.specs_field = "tfReplicaSpecs";
    t.types = {{kChief, "Never", 0},
               {kKubeflowMaster, "Never", 0},
               {"PS", "Never", 0},
               {kKubeflowWorker, "Never", 0},
               {kEvaluator, "Never", 0}};
    t.restart_policies = {"Always", "OnFailure", "Never", "ExitCode"};
    t.default_container = kTFContainer;
    t.image_required = true;
    t.operator_name = "tfjob-controller";
    t.default_backoff_limit = -1;
    return t;
  }();
  return kTraits;
}

Status TFJobKind::ValidateName(const Json& job) const { return ValidateTrainingJobName(job); }

Status TFJobKind::ValidateKind(const Json& job) const {
  if (ReplicaSpec(job, kChief) != nullptr && ReplicaSpec(job, kKubeflowMaster) != nullptr) {
    return Forbidden(SpecsPath(), "must not have more than 1 Chief or Master role");
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

int64_t TFJobKind::ReplicaPort(const Json& job, const std::string& type, int64_t index) const {
  const std::vector<std::string> present = PresentTypes(job);
  if (present.empty()) return kTFDefaultPort + index;
  const int64_t base = NamedPort(job, present.front(), kTFContainer, kTFPortName, kTFDefaultPort);
  int64_t offset = 0;
  for (const std::string& t : present) {
    if (t == type) break;
    offset += ReplicaCount(job, t);
  }
  return base + offset + index;
}

std::vector<KubeflowJobKind::EnvVar> TFJobKind::PodEnv(const Json& job, const PodPosition& where,
                                                       const std::string& type) const {
  if (TotalReplicas(job) == 1) return {};  // not distributed: no TF_CONFIG
  Json cluster = Json::object();
  for (const std::string& t : PresentTypes(job)) {
    if (t == kEvaluator) continue;
    Json hosts = Json::array();
    for (int64_t i = 0; i < ReplicaCount(job, t); ++i) {
      hosts.push_back(where.address + ":" + std::to_string(ReplicaPort(job, t, i)));
    }
    cluster[LowerAscii(t)] = std::move(hosts);
  }
  Json config = {{"cluster", std::move(cluster)},
                 {"task", {{"type", LowerAscii(type)}, {"index", where.index}}},
                 {"environment", "cloud"}};
  return {{"TF_CONFIG", config.dump()}};
}

bool TFJobKind::IsMasterRole(const Json& job, const std::string& type, int64_t index) const {
  if (ReplicaSpec(job, kChief) != nullptr || ReplicaSpec(job, kKubeflowMaster) != nullptr) {
    return type == kChief || type == kKubeflowMaster;
  }
  return type == kKubeflowWorker && index == 0;
}

bool TFJobKind::Succeeded(const Json& job, const std::vector<PodSetDef>& sets,
                          const GroupObservation& seen) const {
  PodSetObservation o;
  int64_t want = 0;
  if (Observed(sets, seen, kChief, &o, &want) || Observed(sets, seen, kKubeflowMaster, &o, &want)) {
    return o.succeeded >= want;
  }
  if (Observed(sets, seen, kKubeflowWorker, &o, &want)) return o.succeeded >= want;
  return GroupJobKind::Succeeded(job, sets, seen);
}

}  // namespace kuota::jobs
