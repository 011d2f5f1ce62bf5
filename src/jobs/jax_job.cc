#include "jobs/jax_job.h"

namespace kuota::jobs {
namespace {

constexpr const char* kJaxContainer = "jax";
constexpr const char* kJaxPortName = "jaxjob-port";
constexpr int64_t kJaxDefaultPort = 6666;

Status JaxValidateKind(const KubeflowJobKind& /*kind*/, const Json& /*job*/) {
  return Status::Ok();  // the shared replica-spec checks are the whole webhook
}

std::vector<KubeflowHooks::EnvVar> JaxPodEnv(const KubeflowJobKind& kind, const Json& job,
                                             const PodPosition& where,
                                             const std::string& /*type*/) {
  const int64_t port =
      kind.NamedPort(job, kKubeflowWorker, kJaxContainer, kJaxPortName, kJaxDefaultPort);
  return {{"PYTHONUNBUFFERED", "1"},
          {"COORDINATOR_PORT", std::to_string(port)},
          {"COORDINATOR_ADDRESS", where.address},
          {"NUM_PROCESSES", std::to_string(kind.TotalReplicas(job))},
          {"PROCESS_ID", std::to_string(where.index)}};
}

bool JaxIsMasterRole(const KubeflowJobKind& /*kind*/, const Json& /*job*/,
                     const std::string& /*type*/, int64_t index) {
  return index == 0;
}

bool JaxSucceeded(const KubeflowJobKind& kind, const Json& /*job*/,
                  const std::vector<PodSetDef>& sets, const GroupObservation& seen) {
  PodSetObservation o;
  int64_t want = 0;
  return kind.Observed(sets, seen, kKubeflowWorker, &o, &want) && o.succeeded >= want;
}

}  // namespace

const KubeflowKindSpec& JAXJobSpec() {
  static const KubeflowKindSpec kSpec{
      .info = CrdKindInfo("kubeflow.org", "v1", "JAXJob", "jaxjob",
                          {.columns = {KubeflowStateColumn(), KubeflowAgeColumn()}}),
      .traits = {.specs_field = "jaxReplicaSpecs",
                 .types = {{kKubeflowWorker, "Never", 0}},
                 .restart_policies = {"Always", "OnFailure", "Never", "ExitCode"},
                 .default_container = kJaxContainer,
                 .image_required = true,
                 .operator_name = "jaxjob-controller",
                 .default_backoff_limit = -1},
      .hooks = {JaxValidateKind, ValidateTrainingJobName, JaxPodEnv, JaxIsMasterRole,
                JaxSucceeded}};
  return kSpec;
}

}  // namespace kuota::jobs
