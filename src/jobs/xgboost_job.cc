#include "jobs/xgboost_job.h"

namespace kuota::jobs {
namespace {

constexpr const char* kXgbContainer = "xgboost";
constexpr const char* kXgbPortName = "xgboostjob-port";
constexpr int64_t kXgbDefaultPort = 9999;

Status XgbValidateKind(const KubeflowJobKind& kind, const Json& job) {
  const Json* master = kind.ReplicaSpec(job, kKubeflowMaster);
  if (master == nullptr) {
    return Status::Invalid(kind.TypePath(kKubeflowMaster) + ": Required value: must be present");
  }
  const Json* r = FieldOrNull(*master, "replicas");
  if (r == nullptr || !r->is_number_integer() || r->get<int64_t>() != 1) {
    return Forbidden(kind.TypePath(kKubeflowMaster) + ".replicas", "must be 1");
  }
  return Status::Ok();
}

std::vector<KubeflowHooks::EnvVar> XgbPodEnv(const KubeflowJobKind& kind, const Json& job,
                                             const PodPosition& where, const std::string& type) {
  const int64_t total = kind.TotalReplicas(job);
  const int64_t rank =
      type == kKubeflowWorker ? where.index + kind.ReplicaCount(job, kKubeflowMaster) : where.index;
  const int64_t master_port =
      kind.NamedPort(job, kKubeflowMaster, kXgbContainer, kXgbPortName, kXgbDefaultPort);
  std::vector<KubeflowHooks::EnvVar> env = {{"MASTER_PORT", std::to_string(master_port)},
                                            {"MASTER_ADDR", where.address},
                                            {"WORLD_SIZE", std::to_string(total)},
                                            {"RANK", std::to_string(rank)},
                                            {"PYTHONUNBUFFERED", "1"}};
  if (total > 1) {
    const int64_t worker_port =
        kind.NamedPort(job, kKubeflowWorker, kXgbContainer, kXgbPortName, kXgbDefaultPort);
    std::string addrs;
    for (int64_t i = 0; i + 1 < total; ++i) addrs += (i == 0 ? "" : ",") + where.address;
    env.push_back({"WORKER_PORT", std::to_string(worker_port)});
    env.push_back({"WORKER_ADDRS", addrs});
  }
  return env;
}

bool XgbSucceeded(const KubeflowJobKind& kind, const Json& /*job*/,
                  const std::vector<PodSetDef>& sets, const GroupObservation& seen) {
  PodSetObservation o;
  int64_t want = 0;
  return kind.Observed(sets, seen, kKubeflowMaster, &o, &want) && o.succeeded >= want;
}

}  // namespace

const KubeflowKindSpec& XGBoostJobSpec() {
  static const KubeflowKindSpec kSpec{
      .info = CrdKindInfo("kubeflow.org", "v1", "XGBoostJob", "xgboostjob",
                          {.columns = {KubeflowStateColumn(), KubeflowAgeColumn()}}),
      .traits = {.specs_field = "xgbReplicaSpecs",
                 .types = {{kKubeflowMaster, "Never", 0}, {kKubeflowWorker, "Never", 0}},
                 .restart_policies = {"Always", "OnFailure", "Never", "ExitCode"},
                 .default_container = kXgbContainer,
                 .image_required = true,
                 .operator_name = "xgboostjob-controller",
                 .default_backoff_limit = -1},
      .hooks = {XgbValidateKind, ValidateTrainingJobName, XgbPodEnv, MasterTypeIsMasterRole,
                XgbSucceeded}};
  return kSpec;
}

}  // namespace kuota::jobs
