#include "jobs/pytorch_job.h"

#include <cstdlib>

#include "jobs/job_fields.h"

namespace kuota::jobs {
namespace {

constexpr const char* kPyTorchContainer = "pytorch";
constexpr const char* kPyTorchPortName = "pytorchjob-port";
constexpr int64_t kPyTorchDefaultPort = 23456;

const Json* ElasticPolicy(const Json& job) {
  const Json* spec = FieldOrNull(job, "spec");
  const Json* ep = spec != nullptr ? FieldOrNull(*spec, "elasticPolicy") : nullptr;
  return ep != nullptr && ep->is_object() ? ep : nullptr;
}

// spec.nprocPerNode as written, or "" when unset.
std::string NprocPerNode(const Json& job) {
  const Json* spec = FieldOrNull(job, "spec");
  const Json* n = spec != nullptr ? FieldOrNull(*spec, "nprocPerNode") : nullptr;
  return n != nullptr && n->is_string() ? n->get<std::string>() : "";
}

// The operator's getNprocPerNodeInt: the integer nprocPerNode, else 1
// ("auto", "cpu", "gpu" and unset).
int64_t NprocPerNodeInt(const std::string& s) {
  if (s.empty()) return 1;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  return end != nullptr && *end == '\0' && v > 0 ? v : 1;
}

Status CheckElasticPolicy(const Json& ep, const std::string& path) {
  if (!ep.is_object()) return InvalidValue(path, ep, "must be an object");
  for (const char* f : {"minReplicas", "maxReplicas", "rdzvPort", "nProcPerNode", "maxRestarts"}) {
    Result<int64_t> v = IntField(ep, f, path, 0, 0);
    if (!v.ok()) return v.status();
  }
  for (const char* f : {"rdzvBackend", "rdzvHost", "rdzvId"}) {
    Result<std::string> v = StringField(ep, f, path);
    if (!v.ok()) return v.status();
  }
  if (const Json* s = FieldOrNull(ep, "standalone"); s != nullptr && !s->is_boolean()) {
    return InvalidValue(path + ".standalone", *s, "must be a boolean");
  }
  if (const Json* m = FieldOrNull(ep, "metrics"); m != nullptr && !m->is_array()) {
    return InvalidValue(path + ".metrics", *m, "must be a list");
  }
  if (const Json* conf = FieldOrNull(ep, "rdzvConf"); conf != nullptr) {
    if (!conf->is_array()) return InvalidValue(path + ".rdzvConf", *conf, "must be a list");
    for (size_t i = 0; i < conf->size(); ++i) {
      const std::string p = path + ".rdzvConf[" + std::to_string(i) + "]";
      if (!(*conf)[i].is_object()) return InvalidValue(p, (*conf)[i], "must be an object");
      for (const char* f : {"key", "value"}) {
        Result<std::string> v = StringField((*conf)[i], f, p);
        if (!v.ok()) return v.status();
      }
    }
  }
  return Status::Ok();
}

Status PyTorchValidateKind(const KubeflowJobKind& kind, const Json& job) {
  const Json& spec = *FieldOrNull(job, "spec");  // Validate checked it
  const Json* ep = FieldOrNull(spec, "elasticPolicy");
  if (ep != nullptr) {
    KUOTA_RETURN_IF_ERROR(CheckElasticPolicy(*ep, "spec.elasticPolicy"));
    if (kind.ReplicaSpec(job, kKubeflowWorker) == nullptr) {
      return Status::Invalid(kind.TypePath(kKubeflowWorker) +
                             ": Required value: must be configured if elastic policy is used");
    }
    if (FieldOrNull(*ep, "nProcPerNode") != nullptr &&
        FieldOrNull(spec, "nprocPerNode") != nullptr) {
      return Forbidden("spec.elasticPolicy.nProcPerNode",
                       "must not be used with spec.nprocPerNode");
    }
  }
  if (const Json* n = FieldOrNull(spec, "nprocPerNode"); n != nullptr && !n->is_string()) {
    return InvalidValue("spec.nprocPerNode", *n, "must be a string");
  }
  if (const Json* master = kind.ReplicaSpec(job, kKubeflowMaster); master != nullptr) {
    const Json* r = FieldOrNull(*master, "replicas");
    if (r == nullptr || !r->is_number_integer() || r->get<int64_t>() != 1) {
      return Forbidden(kind.TypePath(kKubeflowMaster) + ".replicas", "must be 1");
    }
  } else if (ep == nullptr) {
    return Status::Invalid(kind.TypePath(kKubeflowMaster) +
                           ": Required value: must be configured unless elasticPolicy is set");
  }
  if (const Json* worker = kind.ReplicaSpec(job, kKubeflowWorker); worker != nullptr) {
    const Json* r = FieldOrNull(*worker, "replicas");
    if (r != nullptr && r->is_number_integer() && r->get<int64_t>() < 1) {
      return Forbidden(kind.TypePath(kKubeflowWorker) + ".replicas", "must be at least 1");
    }
  }
  return Status::Ok();
}

std::vector<KubeflowHooks::EnvVar> PyTorchPodEnv(const KubeflowJobKind& kind, const Json& job,
                                                 const PodPosition& where,
                                                 const std::string& type) {
  std::vector<KubeflowHooks::EnvVar> env = {{"PYTHONUNBUFFERED", "1"}};
  const int64_t total = kind.TotalReplicas(job);
  const std::string nproc = NprocPerNode(job);
  if (kind.ReplicaSpec(job, kKubeflowMaster) != nullptr) {
    const std::string port = std::to_string(kind.NamedPort(job, kKubeflowMaster, kPyTorchContainer,
                                                           kPyTorchPortName, kPyTorchDefaultPort));
    const std::string rank =
        std::to_string(type == kKubeflowWorker ? where.index + 1 : where.index);
    env.push_back({"MASTER_PORT", port});
    env.push_back({"MASTER_ADDR", where.address});
    env.push_back({"PET_MASTER_PORT", port});
    env.push_back({"PET_MASTER_ADDR", where.address});
    env.push_back({"WORLD_SIZE", std::to_string(total * NprocPerNodeInt(nproc))});
    env.push_back({"RANK", rank});
    env.push_back({"PET_NODE_RANK", rank});
  }
  if (!nproc.empty()) env.push_back({"PET_NPROC_PER_NODE", nproc});
  const Json* ep = ElasticPolicy(job);
  if (ep == nullptr) {
    env.push_back({"PET_NNODES", std::to_string(total)});
    return env;
  }
  const Json& p = *ep;
  const Json* port = FieldOrNull(p, "rdzvPort");
  const int64_t rdzv_port = port != nullptr && port->is_number_integer()
                                ? port->get<int64_t>()
                                : kind.NamedPort(job, kKubeflowWorker, kPyTorchContainer,
                                                 kPyTorchPortName, kPyTorchDefaultPort);
  env.push_back({"PET_RDZV_ENDPOINT", where.address + ":" + std::to_string(rdzv_port)});
  const Json* backend = FieldOrNull(p, "rdzvBackend");
  env.push_back({"PET_RDZV_BACKEND", backend != nullptr && backend->is_string()
                                         ? backend->get<std::string>()
                                         : std::string("c10d")});
  const Json* min = FieldOrNull(p, "minReplicas");
  const Json* max = FieldOrNull(p, "maxReplicas");
  if (min != nullptr && max != nullptr && min->is_number_integer() && max->is_number_integer()) {
    env.push_back({"PET_NNODES", std::to_string(min->get<int64_t>()) + ":" +
                                     std::to_string(max->get<int64_t>())});
  } else {
    env.push_back({"PET_NNODES", std::to_string(kind.ReplicaCount(job, kKubeflowWorker))});
  }
  if (const Json* v = FieldOrNull(p, "maxRestarts"); v != nullptr && v->is_number_integer()) {
    env.push_back({"PET_MAX_RESTARTS", std::to_string(v->get<int64_t>())});
  }
  if (const Json* v = FieldOrNull(p, "nProcPerNode"); v != nullptr && v->is_number_integer()) {
    env.push_back({"PET_NPROC_PER_NODE", std::to_string(v->get<int64_t>())});
  }
  if (const Json* v = FieldOrNull(p, "rdzvId"); v != nullptr && v->is_string()) {
    env.push_back({"PET_RDZV_ID", v->get<std::string>()});
  }
  if (const Json* conf = FieldOrNull(p, "rdzvConf"); conf != nullptr && conf->is_array()) {
    std::string joined;
    for (const Json& kv : *conf) {
      if (!kv.is_object()) continue;
      if (!joined.empty()) joined += ",";
      joined += kv.value("key", std::string()) + "=" + kv.value("value", std::string());
    }
    if (!joined.empty()) env.push_back({"PET_RDZV_CONF", joined});
  }
  if (const Json* v = FieldOrNull(p, "standalone");
      v != nullptr && v->is_boolean() && v->get<bool>()) {
    env.push_back({"PET_STANDALONE", ""});
  }
  return env;
}

}  // namespace

const KubeflowKindSpec& PyTorchJobSpec() {
  static const KubeflowKindSpec kSpec{
      .info = CrdKindInfo("kubeflow.org", "v1", "PyTorchJob", "pytorchjob",
                          {.columns = {KubeflowStateColumn(), KubeflowAgeColumn()}}),
      .traits = {.specs_field = "pytorchReplicaSpecs",
                 .types = {{kKubeflowMaster, "OnFailure", 0}, {kKubeflowWorker, "OnFailure", 1}},
                 .restart_policies = {"Always", "OnFailure", "Never", "ExitCode"},
                 .default_container = kPyTorchContainer,
                 .image_required = true,
                 .operator_name = "pytorchjob-controller",
                 .default_backoff_limit = -1},
      .hooks = {PyTorchValidateKind, ValidateTrainingJobName, PyTorchPodEnv, MasterTypeIsMasterRole,
                MasterElseWorkersSucceeded}};
  return kSpec;
}

}  // namespace kuota::jobs
