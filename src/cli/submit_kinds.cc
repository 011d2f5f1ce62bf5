#include "cli/submit_kinds.h"

#include <cctype>
#include <utility>
#include <vector>

namespace kuota::cli {
namespace {

using Json = nlohmann::json;

struct SubmitKind {
  const char* name;
  std::vector<const char*> aliases;
};

const std::vector<SubmitKind>& SubmitKinds() {
  static const std::vector<SubmitKind> kinds = {
      {"job", {"jobs", "batch/job"}},
      {"pytorchjob", {"pytorchjobs", "kubeflow.org/pytorchjob"}},
      {"tfjob", {"tfjobs", "kubeflow.org/tfjob"}},
      {"jaxjob", {"jaxjobs", "kubeflow.org/jaxjob"}},
      {"paddlejob", {"paddlejobs", "kubeflow.org/paddlejob"}},
      {"xgboostjob", {"xgboostjobs", "kubeflow.org/xgboostjob"}},
      {"jobset", {"jobsets", "jobset.x-k8s.io/jobset"}},
      {"vcjob", {"vcjobs", "volcanojob", "batch.volcano.sh/job"}},
      {"pod", {"pods"}},
  };
  return kinds;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Status Invalid(const std::string& message) { return Status::Invalid(message); }

// The Job's pod template with its one container renamed (the operators look
// for their framework's default container: "pytorch", "tensorflow").
Json TemplateWithContainer(const Json& job, const char* container) {
  Json t = job.at("spec").at("template");
  if (container != nullptr) t["spec"]["containers"][0]["name"] = container;
  return t;
}

Json Metadata(const Json& job) { return job.at("metadata"); }

// A Kubeflow training job: its kind, replica specs field, the container its
// operator looks for, and whether one of the pods is a Master.
struct KubeflowShape {
  const char* name;
  const char* kind;
  const char* specs;
  const char* container;
  bool master;
};

const KubeflowShape* FindKubeflowShape(const std::string& k) {
  static const KubeflowShape kShapes[] = {
      {"pytorchjob", "PyTorchJob", "pytorchReplicaSpecs", "pytorch", true},
      {"tfjob", "TFJob", "tfReplicaSpecs", "tensorflow", false},
      {"jaxjob", "JAXJob", "jaxReplicaSpecs", "jax", false},
      {"paddlejob", "PaddleJob", "paddleReplicaSpecs", "paddle", true},
      {"xgboostjob", "XGBoostJob", "xgbReplicaSpecs", "xgboost", true},
  };
  for (const KubeflowShape& s : kShapes) {
    if (k == s.name) return &s;
  }
  return nullptr;
}

}  // namespace

std::string SubmitKindNames() {
  std::string out;
  for (const SubmitKind& k : SubmitKinds()) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

std::string CanonicalSubmitKind(const std::string& name) {
  const std::string l = Lower(name);
  for (const SubmitKind& k : SubmitKinds()) {
    if (l == k.name) return k.name;
    for (const char* a : k.aliases) {
      if (l == a) return k.name;
    }
  }
  return "";
}

Result<Json> ReshapeSubmitJob(const std::string& kind, const Json& job) {
  const std::string k = CanonicalSubmitKind(kind);
  if (k.empty()) {
    return Invalid("--kind: unknown kind \"" + kind + "\"; choose one of " + SubmitKindNames());
  }
  if (k == "job") return job;
  const Json& spec = job.at("spec");
  const int64_t pods = spec.value("parallelism", int64_t{1});
  if (spec.value("completions", pods) != pods || spec.value("completionMode", "") == "Indexed") {
    return Invalid("--completions/--indexed: only --kind job has completions; a " + k +
                   " runs --parallelism pods once each");
  }
  const int64_t backoff = spec.value("backoffLimit", int64_t{0});
  if (k == "pod") {
    if (pods != 1) return Invalid("--parallelism: a pod is one pod; use --kind job for more");
    Json t = TemplateWithContainer(job, nullptr);
    Json meta = Metadata(job);
    if (t.contains("metadata")) meta.update(t["metadata"]);
    return Json{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta}, {"spec", t["spec"]}};
  }
  if (const KubeflowShape* kf = FindKubeflowShape(k); kf != nullptr) {
    Json t = TemplateWithContainer(job, kf->container);
    Json replicas = Json::object();
    auto replica = [&](int64_t n) {
      return Json{{"replicas", n}, {"restartPolicy", "Never"}, {"template", t}};
    };
    if (kf->master) {
      replicas["Master"] = replica(1);
      if (pods > 1) replicas["Worker"] = replica(pods - 1);
    } else {
      replicas["Worker"] = replica(pods);
    }
    return Json{{"apiVersion", "kubeflow.org/v1"},
                {"kind", kf->kind},
                {"metadata", Metadata(job)},
                {"spec", {{"runPolicy", {{"backoffLimit", backoff}}}, {kf->specs, replicas}}}};
  }
  if (k == "jobset") {
    return Json{
        {"apiVersion", "jobset.x-k8s.io/v1alpha2"},
        {"kind", "JobSet"},
        {"metadata", Metadata(job)},
        {"spec",
         {{"replicatedJobs",
           Json::array(
               {{{"name", "workers"}, {"replicas", 1}, {"template", {{"spec", spec}}}}})}}}};
  }
  // vcjob: one task of `pods` replicas, started together (minAvailable).
  Json vc = {{"schedulerName", "volcano"},
             {"minAvailable", pods},
             {"plugins", {{"env", Json::array()}, {"svc", Json::array()}}},
             {"tasks", Json::array({{{"name", "worker"},
                                     {"replicas", pods},
                                     {"template", TemplateWithContainer(job, nullptr)}}})}};
  if (backoff > 0) vc["maxRetry"] = backoff;  // 0 means Volcano's default (3)
  return Json{{"apiVersion", "batch.volcano.sh/v1alpha1"},
              {"kind", "Job"},
              {"metadata", Metadata(job)},
              {"spec", vc}};
}

}  // namespace kuota::cli
