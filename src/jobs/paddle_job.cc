#include "jobs/paddle_job.h"

#include "jobs/job_fields.h"

namespace kuota::jobs {
namespace {

constexpr const char* kPaddleContainer = "paddle";
constexpr const char* kPaddlePortName = "master";
constexpr int64_t kPaddleDefaultPort = 36543;

// spec.elasticPolicy as PaddleElasticPolicy types it (the operator's webhook
// checks nothing more; its CRD schema checks these).
Status PaddleCheckElasticPolicy(const Json& ep, const std::string& path) {
  if (!ep.is_object()) return InvalidValue(path, ep, "must be an object");
  for (const char* f : {"minReplicas", "maxReplicas", "maxRestarts"}) {
    Result<int64_t> v = IntField(ep, f, path, 0, 0);
    if (!v.ok()) return v.status();
  }
  if (const Json* m = FieldOrNull(ep, "metrics"); m != nullptr && !m->is_array()) {
    return InvalidValue(path + ".metrics", *m, "must be a list");
  }
  return Status::Ok();
}

Status PaddleValidateKind(const KubeflowJobKind& /*kind*/, const Json& job) {
  const Json& spec = *FieldOrNull(job, "spec");  // Validate checked it
  if (const Json* ep = FieldOrNull(spec, "elasticPolicy"); ep != nullptr) {
    return PaddleCheckElasticPolicy(*ep, "spec.elasticPolicy");
  }
  return Status::Ok();
}

std::vector<KubeflowHooks::EnvVar> PaddlePodEnv(const KubeflowJobKind& kind, const Json& job,
                                                const PodPosition& where, const std::string& type) {
  std::vector<KubeflowHooks::EnvVar> env = {
      {"PYTHONUNBUFFERED", "1"},
      {"PADDLE_JOB_ID", JobName(job)},
      {"PADDLE_NNODES", std::to_string(kind.TotalReplicas(job))}};
  // PS mode with a Master (its replica 0 is the rendezvous), else collective
  // mode (worker 0 is).
  const bool ps_mode = kind.ReplicaSpec(job, kKubeflowMaster) != nullptr;
  const std::string rendezvous_type = ps_mode ? kKubeflowMaster : kKubeflowWorker;
  const std::string endpoint = where.address + ":" +
                               std::to_string(kind.NamedPort(job, rendezvous_type, kPaddleContainer,
                                                             kPaddlePortName, kPaddleDefaultPort));
  if (where.index == 0 && (!ps_mode || type == kKubeflowMaster)) {
    env.push_back({"POD_IP_DUMMY", where.address});
  }
  env.push_back({"PADDLE_MASTER", endpoint});
  if (ps_mode) {
    env.push_back({type == kKubeflowMaster ? "PADDLE_SERVER_NUM" : "PADDLE_TRAINER_NUM", "1"});
  }
  return env;
}

}  // namespace

const KubeflowKindSpec& PaddleJobSpec() {
  static const KubeflowKindSpec kSpec{
      .info = CrdKindInfo("kubeflow.org", "v1", "PaddleJob", "paddlejob",
                          {.columns = {KubeflowStateColumn(), KubeflowAgeColumn()}}),
      .traits = {.specs_field = "paddleReplicaSpecs",
                 .types = {{kKubeflowMaster, "OnFailure", 0}, {kKubeflowWorker, "OnFailure", 0}},
                 .restart_policies = {"Always", "OnFailure", "Never", "ExitCode"},
                 .default_container = kPaddleContainer,
                 .image_required = true,
                 .operator_name = "paddlejob-controller",
                 .default_backoff_limit = -1,
                 .quote_container_name = true},
      .hooks = {PaddleValidateKind, ValidateTrainingJobName, PaddlePodEnv, MasterTypeIsMasterRole,
                MasterElseWorkersSucceeded}};
  return kSpec;
}

}  // namespace kuota::jobs
