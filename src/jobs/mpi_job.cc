#include "jobs/mpi_job.h"

#include "jobs/job_fields.h"

namespace kuota::jobs {
namespace {

constexpr const char* kLauncher = "Launcher";
constexpr const char* kRshArgs = "-o ConnectionAttempts=10";

std::string Implementation(const Json& job) {
  const Json* spec = FieldOrNull(job, "spec");
  const Json* impl = spec != nullptr ? FieldOrNull(*spec, "mpiImplementation") : nullptr;
  return impl != nullptr && impl->is_string() && !impl->get<std::string>().empty()
             ? impl->get<std::string>()
             : "OpenMPI";
}

int64_t SlotsPerWorker(const Json& job) {
  const Json* spec = FieldOrNull(job, "spec");
  const Json* slots = spec != nullptr ? FieldOrNull(*spec, "slotsPerWorker") : nullptr;
  return slots != nullptr && slots->is_number_integer() ? slots->get<int64_t>() : 1;
}

bool RunLauncherAsWorker(const Json& job) {
  const Json* spec = FieldOrNull(job, "spec");
  const Json* v = spec != nullptr ? FieldOrNull(*spec, "runLauncherAsWorker") : nullptr;
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

Status MpiValidateName(const KubeflowJobKind& kind, const Json& job) {
  const std::string name = JobName(job);
  if (name.empty()) return Status::Ok();
  int64_t replicas = 1;
  if (const Json* w = kind.ReplicaSpec(job, kKubeflowWorker); w != nullptr) {
    const Json* r = FieldOrNull(*w, "replicas");
    if (r != nullptr && r->is_number_integer() && r->get<int64_t>() > 0) {
      replicas = r->get<int64_t>();
    }
  }
  const std::string host = name + "-worker-" + std::to_string(replicas - 1);
  const std::string errs = CheckDns1123LabelValue(host);
  if (errs.empty()) return Status::Ok();
  return InvalidValue(
      "metadata.name", name,
      "will not able to create pod with invalid DNS label \"" + host + "\": " + errs);
}

Status MpiValidateKind(const KubeflowJobKind& kind, const Json& job) {
  const Json* launcher = kind.ReplicaSpec(job, kLauncher);
  if (launcher == nullptr) {
    return Status::Invalid(kind.TypePath(kLauncher) +
                           ": Required value: must have Launcher replica spec");
  }
  if (const Json* r = FieldOrNull(*launcher, "replicas"); r != nullptr && *r != 1) {
    return InvalidValue(kind.TypePath(kLauncher) + ".replicas", *r, "must be 1");
  }
  if (const Json* worker = kind.ReplicaSpec(job, kKubeflowWorker); worker != nullptr) {
    const Json* r = FieldOrNull(*worker, "replicas");
    const Json replicas = r != nullptr ? *r : Json(0);  // mpi-operator defaults it to 0
    if (replicas.get<int64_t>() <= 0) {
      return InvalidValue(kind.TypePath(kKubeflowWorker) + ".replicas", replicas,
                          "must be greater than or equal to 1");
    }
  }
  const Json& spec = *FieldOrNull(job, "spec");  // Validate checked it
  Result<int64_t> slots = IntField(spec, "slotsPerWorker", "spec", 1, 0);
  if (!slots.ok()) return slots.status();
  Result<std::string> ssh = StringField(spec, "sshAuthMountPath", "spec");
  if (!ssh.ok()) return ssh.status();
  Result<std::string> impl = StringField(spec, "mpiImplementation", "spec");
  if (!impl.ok()) return impl.status();
  if (!impl.value().empty() && impl.value() != "OpenMPI" && impl.value() != "Intel" &&
      impl.value() != "MPICH") {
    return NotSupported("spec.mpiImplementation", impl.value(), {"Intel", "MPICH", "OpenMPI"});
  }
  Result<std::string> creation = StringField(spec, "launcherCreationPolicy", "spec");
  if (!creation.ok()) return creation.status();
  if (!creation.value().empty() && creation.value() != "AtStartup" &&
      creation.value() != "WaitForWorkersReady") {
    return NotSupported("spec.launcherCreationPolicy", creation.value(),
                        {"AtStartup", "WaitForWorkersReady"});
  }
  if (const Json* v = FieldOrNull(spec, "runLauncherAsWorker"); v != nullptr && !v->is_boolean()) {
    return InvalidValue("spec.runLauncherAsWorker", *v, "must be a boolean");
  }
  return Status::Ok();
}

std::vector<KubeflowHooks::EnvVar> MpiPodEnv(const KubeflowJobKind& kind, const Json& job,
                                             const PodPosition& where, const std::string& type) {
  if (type != kLauncher) return {{"K_MPI_JOB_ROLE", "worker"}};
  const std::string impl = Implementation(job);
  const std::string slots = std::to_string(SlotsPerWorker(job));
  std::vector<KubeflowHooks::EnvVar> env = {{"K_MPI_JOB_ROLE", "launcher"}};
  if (impl == "Intel") {
    env.push_back({"I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS", kRshArgs});
    env.push_back({"I_MPI_PERHOST", slots});
  } else if (impl == "MPICH") {
    env.push_back({"HYDRA_LAUNCH_EXTRA_ARGS", kRshArgs});
  } else {
    env.push_back({"OMPI_MCA_orte_keep_fqdn_hostnames", "true"});
    env.push_back({"OMPI_MCA_plm_rsh_args", kRshArgs});
    env.push_back({"OMPI_ALLOW_RUN_AS_ROOT", "1"});
    env.push_back({"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"});
    env.push_back({"OMPI_MCA_orte_set_default_slots", slots});
  }
  const std::string line = impl == "OpenMPI" ? where.address + " slots=" + slots + "\n"
                                             : where.address + ":" + slots + "\n";
  std::string hostfile;
  if (RunLauncherAsWorker(job)) hostfile += line;
  for (int64_t i = 0; i < kind.ReplicaCount(job, kKubeflowWorker); ++i) hostfile += line;
  env.push_back({"MPI_HOSTFILE_CONTENT", hostfile});
  return env;
}

bool MpiIsMasterRole(const KubeflowJobKind& /*kind*/, const Json& /*job*/, const std::string& type,
                     int64_t /*index*/) {
  return type == kLauncher;
}

bool MpiSucceeded(const KubeflowJobKind& kind, const Json& /*job*/,
                  const std::vector<PodSetDef>& sets, const GroupObservation& seen) {
  PodSetObservation o;
  int64_t want = 0;
  return kind.Observed(sets, seen, kLauncher, &o, &want) && o.succeeded >= want;
}

}  // namespace

const KubeflowKindSpec& MPIJobSpec() {
  static const KubeflowKindSpec kSpec{
      // v2beta1's CRD declares no printer columns: kubectl prints NAME and AGE.
      .info = CrdKindInfo("kubeflow.org", "v2beta1", "MPIJob", "mpijob",
                          {.short_names = {"mpij"}, .columns = {KubeflowAgeColumn()}}),
      .traits = {.specs_field = "mpiReplicaSpecs",
                 .types = {{kLauncher, "OnFailure", 1}, {kKubeflowWorker, "Never", 0}},
                 .restart_policies = {"Never", "OnFailure"},
                 .default_container = "",
                 .image_required = false,
                 .operator_name = "mpi-operator",
                 .default_backoff_limit = 6,
                 .check_pod_set_groups = true},
      .hooks = {MpiValidateKind, MpiValidateName, MpiPodEnv, MpiIsMasterRole, MpiSucceeded}};
  return kSpec;
}

}  // namespace kuota::jobs
