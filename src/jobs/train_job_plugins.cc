#include "jobs/train_job_plugins.h"

#include <algorithm>
#include <set>
#include <vector>

#include "api/quantity.h"
#include "jobs/job_fields.h"
#include "jobs/train_job_runtime.h"

namespace kuota::jobs {
namespace {

constexpr const char* kTpNode = "node";
constexpr const char* kTpLauncher = "launcher";
constexpr const char* kTpCompletionIndexPath =
    "metadata.annotations['batch.kubernetes.io/job-completion-index']";
// Trainer's OpenMPIEnvDefaultValueRSHArgs.
constexpr const char* kTpRshArgs = "-o ConnectionAttempts=10";

// The whole units of a quantity, rounded up (resource.Quantity.Value()).
int64_t TpUnits(const Json& q) {
  std::string text;
  if (q.is_string()) {
    text = q.get<std::string>();
  } else if (q.is_number()) {
    text = q.dump();
  } else {
    return 0;
  }
  auto parsed = api::Quantity::Parse(text);
  if (!parsed.ok()) return 0;
  const int64_t m = parsed->milli();
  return m <= 0 ? 0 : (m + 999) / 1000;
}

// Trainer's GetNumGPUPerNode: a "*gpu" resource's limit (else request).
int64_t TpGpus(const Json& res) {
  for (const char* f : {"limits", "requests"}) {
    for (const auto& [k, v] : ObjAt(res, f).items()) {
      if (k.size() >= 3 && k.compare(k.size() - 3, 3, "gpu") == 0) {
        if (int64_t n = TpUnits(v); n > 0) return n;
      }
    }
  }
  return 0;
}

// Trainer's getNumCPUPerNode: the CPU request, else the limit.
int64_t TpCpus(const Json& res) {
  const int64_t req = TpUnits(ObjAt(res, "requests").value("cpu", Json()));
  return req > 0 ? req : TpUnits(ObjAt(res, "limits").value("cpu", Json()));
}

// Sets `name` in the container's env (replacing an entry of that name).
void TpSetEnv(Json& container, const std::string& name, Json value_or_from, bool from = false) {
  Json entry = {{"name", name}, {from ? "valueFrom" : "value", std::move(value_or_from)}};
  if (!container["env"].is_array()) container["env"] = Json::array();
  for (Json& e : container["env"]) {
    if (e.is_object() && StrAt(e, "name") == name) {
      e = std::move(entry);
      return;
    }
  }
  container["env"].push_back(std::move(entry));
}

void TpSetRank(Json& container, const std::string& name) {
  TpSetEnv(container, name, {{"fieldRef", {{"fieldPath", kTpCompletionIndexPath}}}}, true);
}

// Trainer's UpsertPort: the trainer port on the container.
void TpAddTrainerPort(Json& container) {
  if (!container["ports"].is_array()) container["ports"] = Json::array();
  for (const Json& p : container["ports"]) {
    if (p.is_object() && p.value("containerPort", Json()) == kTrainerMasterPort) return;
  }
  container["ports"].push_back({{"containerPort", kTrainerMasterPort}});
}

// The replicated job that is the trainer step (its ancestor label), or the
// one named `name` when `name` is given.
Json* TpReplicatedJob(Json& spec, const char* name) {
  if (!spec.contains("replicatedJobs") || !spec["replicatedJobs"].is_array()) return nullptr;
  for (Json& rjob : spec["replicatedJobs"]) {
    if (!rjob.is_object()) continue;
    if (name != nullptr) {
      if (StrAt(rjob, "name") == name) return &rjob;
      continue;
    }
    const Json& labels = ObjAt(ObjAt(ObjAt(rjob, "template"), "metadata"), "labels");
    if (StrAt(labels, kTrainJobAncestorLabel) == "trainer") return &rjob;
  }
  return nullptr;
}

std::string TpList(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : " ") + n;
  return "[" + list + "]";
}

void EnforceTorch(Json& node, const TrainerPolicyInput& in) {
  Json nproc = "auto";
  if (in.trainer.contains("numProcPerNode") && in.trainer["numProcPerNode"].is_number_integer()) {
    nproc = std::to_string(in.trainer["numProcPerNode"].get<int64_t>());
  }
  if (nproc == "auto" && TpGpus(in.node_resources) == 0) {
    nproc = std::to_string(std::max<int64_t>(1, TpCpus(in.node_resources)));
  }
  TpSetEnv(node, "PET_NNODES", std::to_string(in.trainer_count));
  TpSetEnv(node, "PET_NPROC_PER_NODE", nproc);
  TpSetRank(node, "PET_NODE_RANK");
  TpSetEnv(node, "PET_MASTER_ADDR", in.address);
  TpSetEnv(node, "PET_MASTER_PORT", std::to_string(kTrainerMasterPort));
  TpAddTrainerPort(node);
}

void EnforceJax(Json& node, const TrainerPolicyInput& in) {
  TpSetEnv(node, "JAX_NUM_PROCESSES", std::to_string(in.trainer_count));
  TpSetRank(node, "JAX_PROCESS_ID");
  TpSetEnv(node, "JAX_COORDINATOR_ADDRESS", in.address + ":" + std::to_string(kTrainerMasterPort));
  TpAddTrainerPort(node);
}

void EnforceXgboost(Json& node, const TrainerPolicyInput& in) {
  // One worker per GPU, else one per node.
  const int64_t per_node = std::max<int64_t>(1, TpGpus(in.node_resources));
  TpSetEnv(node, "DMLC_TRACKER_URI", in.address);
  TpSetEnv(node, "DMLC_TRACKER_PORT", std::to_string(kTrainerMasterPort));
  TpSetRank(node, "DMLC_TASK_ID");
  TpSetEnv(node, "DMLC_NUM_WORKER", std::to_string(in.trainer_count * per_node));
  TpAddTrainerPort(node);
}

// MPI's slots per node: the TrainJob's numProcPerNode, else the runtime's
// (1 by default), raised to the GPUs per node when the runtime says 1.
int64_t MpiSlots(const TrainerPolicyInput& in) {
  if (in.trainer.contains("numProcPerNode") && in.trainer["numProcPerNode"].is_number_integer()) {
    return std::max<int64_t>(1, in.trainer["numProcPerNode"].get<int64_t>());
  }
  const int64_t runtime = IntAt(ObjAt(in.ml, "mpi"), "numProcPerNode", 1);
  if (runtime == 1 && TpGpus(in.node_resources) > 1) return TpGpus(in.node_resources);
  return std::max<int64_t>(1, runtime);
}

void EnforceMpi(Json& spec, const TrainerPolicyInput& in) {
  Json* launcher = TpReplicatedJob(spec, kTpLauncher);
  Json* launcher_node = launcher == nullptr ? nullptr : TrainerNodeContainer(*launcher);
  if (launcher_node == nullptr) return;
  const int64_t slots = MpiSlots(in);
  int64_t hosts = 0;
  if (Json* nodes = TpReplicatedJob(spec, kTpNode); nodes != nullptr) {
    hosts += IntAt(ObjAt(ObjAt(*nodes, "template"), "spec"), "parallelism", 1);
  }
  if (ObjAt(in.ml, "mpi").value("runLauncherAsNode", false) == true) hosts += 1;
  std::string hostfile;
  for (int64_t i = 0; i < hosts; ++i) {
    hostfile += in.address + " slots=" + std::to_string(slots) + "\n";
  }
  TpSetEnv(*launcher_node, "OMPI_MCA_orte_keep_fqdn_hostnames", "true");
  TpSetEnv(*launcher_node, "OMPI_MCA_orte_set_default_slots", std::to_string(slots));
  TpSetEnv(*launcher_node, "OMPI_MCA_plm_rsh_args", kTpRshArgs);
  TpSetEnv(*launcher_node, "MPI_HOSTFILE_CONTENT", hostfile);
}

}  // namespace

Json* TrainerNodeContainer(Json& rjob) {
  Json* containers = nullptr;
  try {
    containers = &rjob.at("template").at("spec").at("template").at("spec").at("containers");
  } catch (const Json::exception&) {
    return nullptr;
  }
  if (!containers->is_array()) return nullptr;
  for (Json& c : *containers) {
    if (c.is_object() && StrAt(c, "name") == kTpNode) return &c;
  }
  return nullptr;
}

Status CheckTrainerReservedEnv(const TrainerPolicyInput& in) {
  if (!in.has_trainer) return Status::Ok();
  static const std::set<std::string> kTorch = {"PET_MASTER_ADDR", "PET_MASTER_PORT", "PET_NNODES",
                                               "PET_NODE_RANK", "PET_NPROC_PER_NODE"};
  static const std::set<std::string> kMpi = {
      "OMPI_MCA_orte_default_hostfile", "OMPI_MCA_plm_rsh_args",
      "OMPI_MCA_orte_keep_fqdn_hostnames", "OMPI_MCA_orte_set_default_slots"};
  static const std::set<std::string> kXgboost = {"DMLC_TRACKER_URI", "DMLC_TRACKER_PORT",
                                                 "DMLC_TASK_ID", "DMLC_NUM_WORKER"};
  const Json& env = ArrAt(in.trainer, "env");
  if (in.policy == "xgboost") {
    for (size_t i = 0; i < env.size(); ++i) {
      const std::string name = StrAt(env[i], "name");
      if (kXgboost.count(name) != 0) {
        return Status::Invalid("spec.trainer.env[" + std::to_string(i) + "]: Forbidden: " + name +
                               " is reserved for the XGBoost runtime");
      }
    }
    return Status::Ok();
  }
  const std::set<std::string>* reserved = in.policy == "torch" ? &kTorch
                                          : in.policy == "mpi" ? &kMpi
                                                               : nullptr;
  if (reserved == nullptr) return Status::Ok();
  std::vector<std::string> found;
  for (const Json& e : env) {
    if (reserved->count(StrAt(e, "name")) != 0) found.push_back(StrAt(e, "name"));
  }
  if (found.empty()) return Status::Ok();
  return InvalidValue("spec.trainer.env", env,
                      "must not have reserved envs, invalid envs configured: " + TpList(found));
}

void EnforceTrainerPolicy(Json& spec, const TrainerPolicyInput& in) {
  if (!in.has_trainer) return;  // Trainer's plugins configure only a TrainJob's trainer
  if (in.policy == "mpi") {
    EnforceMpi(spec, in);
    return;
  }
  Json* trainer_step = TpReplicatedJob(spec, nullptr);
  Json* node = trainer_step == nullptr ? nullptr : TrainerNodeContainer(*trainer_step);
  if (node == nullptr) return;
  if (in.policy == "torch") EnforceTorch(*node, in);
  if (in.policy == "jax") EnforceJax(*node, in);
  if (in.policy == "xgboost") EnforceXgboost(*node, in);
}

}  // namespace kuota::jobs
