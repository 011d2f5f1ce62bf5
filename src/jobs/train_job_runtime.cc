#include "jobs/train_job_runtime.h"

#include <algorithm>
#include <vector>

#include "jobs/job_fields.h"
#include "jobs/train_job_plugins.h"

namespace kuota::jobs {
namespace {

constexpr const char* kTjTrainerStep = "trainer";
constexpr const char* kTjNodeContainer = "node";
constexpr const char* kTjCompletionIndexPath =
    "metadata.annotations['batch.kubernetes.io/job-completion-index']";

// Labels, annotations, nodeSelector: the patch's keys win.
void TjMergeMap(Json& into, const Json& from) {
  if (!from.is_object() || from.empty()) return;
  if (!into.is_object()) into = Json::object();
  for (const auto& [k, v] : from.items()) into[k] = v;
}

// A list keyed by `key` (env by name, volumeMounts by mountPath): an entry of
// the patch replaces the one with its key, or is added.
void TjMergeKeyed(Json& into, const Json& from, const char* key) {
  if (!from.is_array() || from.empty()) return;
  if (!into.is_array()) into = Json::array();
  for (const Json& p : from) {
    if (!p.is_object()) continue;
    auto same = std::find_if(into.begin(), into.end(), [&](const Json& e) {
      return e.is_object() && e.contains(key) && p.contains(key) && e[key] == p[key];
    });
    if (same != into.end()) {
      *same = p;
    } else {
      into.push_back(p);
    }
  }
}

// Containers (and init containers) patched by name; a patch naming a
// container the runtime lacks is left out (Trainer: "Runtime must have this
// container").
void TjMergeContainers(Json& into, const Json& from) {
  if (!from.is_array() || !into.is_array()) return;
  for (const Json& p : from) {
    for (Json& c : into) {
      if (!c.is_object() || StrAt(c, "name") != StrAt(p, "name")) continue;
      TjMergeKeyed(c["env"], ArrAt(p, "env"), "name");
      TjMergeKeyed(c["volumeMounts"], ArrAt(p, "volumeMounts"), "mountPath");
      if (p.contains("securityContext") && p["securityContext"].is_object()) {
        c["securityContext"] = p["securityContext"];
      }
      if (c["env"].empty()) c.erase("env");
      if (c["volumeMounts"].empty()) c.erase("volumeMounts");
    }
  }
}

// A PodSpecPatch merged as Trainer's strategic merge does it: maps merged,
// lists with a merge key merged by it, the rest (tolerations, affinity)
// replaced.
void TjMergePodSpec(Json& spec, const Json& patch) {
  if (!patch.is_object() || patch.empty()) return;
  if (!spec.is_object()) spec = Json::object();
  TjMergeMap(spec["nodeSelector"], ObjAt(patch, "nodeSelector"));
  if (spec["nodeSelector"].is_null()) spec.erase("nodeSelector");
  for (const char* f : {"tolerations", "affinity", "securityContext", "serviceAccountName",
                        "terminationGracePeriodSeconds"}) {
    auto v = patch.find(f);
    if (v == patch.end() || v->is_null()) continue;
    if ((v->is_array() || v->is_object()) && v->empty()) continue;
    spec[f] = *v;
  }
  for (const char* f : {"schedulingGates", "imagePullSecrets", "volumes"}) {
    if (ArrAt(patch, f).empty()) continue;
    TjMergeKeyed(spec[f], ArrAt(patch, f), "name");
  }
  for (const char* f : {"containers", "initContainers"}) {
    if (spec.contains(f)) TjMergeContainers(spec[f], ArrAt(patch, f));
  }
}

void TjMergeMetadata(Json& meta, const Json& patch) {
  if (!patch.is_object() || patch.empty()) return;
  for (const char* f : {"labels", "annotations"}) {
    if (ObjAt(patch, f).empty()) continue;
    TjMergeMap(meta[f], ObjAt(patch, f));
  }
}

// One runtime patch's template.spec (a JobSetSpecPatch) on the JobSet spec.
void TjApplyPatch(Json& spec, const Json& patch) {
  for (const Json& rp : ArrAt(patch, "replicatedJobs")) {
    for (Json& rjob : spec["replicatedJobs"]) {
      if (!rjob.is_object() || StrAt(rjob, "name") != StrAt(rp, "name")) continue;
      const Json& jt = ObjAt(rp, "template");
      if (!ObjAt(jt, "metadata").empty()) {
        TjMergeMetadata(rjob["template"]["metadata"], ObjAt(jt, "metadata"));
      }
      const Json& pt = ObjAt(ObjAt(jt, "spec"), "template");
      if (pt.empty()) continue;
      Json& tmpl = rjob["template"]["spec"]["template"];
      if (!ObjAt(pt, "metadata").empty()) TjMergeMetadata(tmpl["metadata"], ObjAt(pt, "metadata"));
      TjMergePodSpec(tmpl["spec"], ObjAt(pt, "spec"));
    }
  }
}

// Trainer's MergeResourceRequirements: the TrainJob's requests and limits
// replace the runtime's resource by resource.
Json TjMergeResources(const Json& base, const Json& over) {
  Json out = base.is_object() ? base : Json::object();
  for (const char* f : {"requests", "limits"}) {
    if (ObjAt(over, f).empty()) continue;
    TjMergeMap(out[f], ObjAt(over, f));
  }
  return out;
}

}  // namespace

std::string TrainingRuntimePolicy(const Json& runtime) {
  const Json& ml = ObjAt(SpecOf(runtime), "mlPolicy");
  for (const char* p : {"torch", "mpi", "jax", "xgboost", "flux"}) {
    if (ml.contains(p) && ml[p].is_object()) return p;
  }
  return "";
}

Result<Json> BuildTrainJobSet(const Json& train_job, const Json& runtime,
                              const TrainJobBuildOptions& options) {
  const Json& rspec = SpecOf(runtime);
  const std::string where = StrAt(runtime, "kind") + " " + Quoted(MetaStr(runtime, "name"));
  Json spec = ObjAt(ObjAt(rspec, "template"), "spec");
  if (!spec.contains("replicatedJobs") || !spec["replicatedJobs"].is_array() ||
      spec["replicatedJobs"].empty()) {
    return Status::Invalid(where + ": spec.template.spec.replicatedJobs: Required value");
  }
  for (const Json& patch : ArrAt(SpecOf(train_job), "runtimePatches")) {
    if (options.without_kueue_patch && StrAt(patch, "manager") == kKueueRuntimePatchManager) {
      continue;
    }
    TjApplyPatch(spec, ObjAt(ObjAt(ObjAt(patch, "trainingRuntimeSpec"), "template"), "spec"));
  }

  const Json& ml = ObjAt(rspec, "mlPolicy");
  const bool has_ml = rspec.contains("mlPolicy") && rspec["mlPolicy"].is_object();
  const std::string policy = TrainingRuntimePolicy(runtime);
  const bool has_trainer =
      SpecOf(train_job).contains("trainer") && SpecOf(train_job)["trainer"].is_object();
  const Json& trainer = ObjAt(SpecOf(train_job), "trainer");
  const bool launcher_as_node =
      policy == "mpi" && ObjAt(ml, "mpi").value("runLauncherAsNode", false) == true;

  TrainerPolicyInput plugin{
      .policy = policy, .ml = ml, .trainer = trainer, .has_trainer = has_trainer};
  KUOTA_RETURN_IF_ERROR(CheckTrainerReservedEnv(plugin));

  int64_t trainer_count = 1;
  Json runtime_node_resources = Json::object();
  for (Json& rjob : spec["replicatedJobs"]) {
    if (!rjob.is_object()) continue;
    const Json& labels = ObjAt(ObjAt(ObjAt(rjob, "template"), "metadata"), "labels");
    const bool is_trainer = StrAt(labels, kTrainJobAncestorLabel) == kTjTrainerStep;
    const bool is_launcher_node = launcher_as_node && StrAt(rjob, "name") == kTjNodeContainer;
    int64_t count = IntAt(ObjAt(ObjAt(rjob, "template"), "spec"), "parallelism", 1);
    if (is_trainer && has_ml) count = IntAt(ml, "numNodes", 1);
    Json* node = TrainerNodeContainer(rjob);
    if (is_trainer && node != nullptr) runtime_node_resources = ObjAt(*node, "resources");
    if (has_trainer && trainer.contains("resourcesPerNode") && node != nullptr &&
        ((is_trainer && has_ml) || is_launcher_node)) {
      (*node)["resources"] =
          TjMergeResources(ObjAt(*node, "resources"), ObjAt(trainer, "resourcesPerNode"));
    }
    // The ML plugins' EnforceMLPolicy: the TrainJob's numNodes wins, for
    // the trainer step, or for MPI the "node" job (one node fewer when the
    // launcher is a node too).
    if (has_trainer && trainer.contains("numNodes") && trainer["numNodes"].is_number_integer()) {
      const int64_t n = trainer["numNodes"].get<int64_t>();
      if (policy == "mpi" && StrAt(rjob, "name") == kTjNodeContainer) {
        count = launcher_as_node ? std::max<int64_t>(n - 1, 1) : n;
      } else if (is_trainer && policy != "mpi") {
        count = n;
      }
    }
    rjob["template"]["spec"]["parallelism"] = count;
    rjob["template"]["spec"]["completions"] = count;
    if (is_trainer) {
      rjob["replicas"] = 1;
      trainer_count = count;
      if (node != nullptr && has_trainer) {
        for (const char* f : {"image", "command", "args"}) {
          if (trainer.contains(f) && !trainer[f].is_null()) (*node)[f] = trainer[f];
        }
      }
    }
    if ((is_trainer || is_launcher_node) && node != nullptr && has_trainer) {
      TjMergeKeyed((*node)["env"], ArrAt(trainer, "env"), "name");
      if ((*node)["env"].empty()) node->erase("env");
    }
  }

  plugin.trainer_count = trainer_count;
  plugin.node_resources = trainer.contains("resourcesPerNode") ? ObjAt(trainer, "resourcesPerNode")
                                                               : runtime_node_resources;
  plugin.address = options.master_address;
  EnforceTrainerPolicy(spec, plugin);
  return spec;
}

}  // namespace kuota::jobs
