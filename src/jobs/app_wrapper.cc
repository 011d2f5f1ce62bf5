#include "jobs/app_wrapper.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "jobctl/submitter.h"
#include "jobs/job_fields.h"
#include "jobs/topology_request.h"

namespace kuota::jobs {
namespace {

constexpr const char* kAwApiVersion = "workload.codeflare.dev/v1beta2";
constexpr const char* kAwKind = "AppWrapper";
constexpr const char* kAwComponentsPath = "spec.components";
// Kueue's limit on a Workload's pod sets, which the AppWrapper webhook enforces.
constexpr size_t kAwMaxPodSets = 8;
constexpr const char* kAwJobCompletionIndex = "batch.kubernetes.io/job-completion-index";
constexpr const char* kAwKubeflowReplicaIndex = "training.kubeflow.org/replica-index";
constexpr const char* kAwJobSetJobIndex = "jobset.sigs.k8s.io/job-index";
// The labels the AppWrapper webhook puts on every AppWrapper it admits.
constexpr const char* kAwUserLabel = "workload.codeflare.dev/user";
constexpr const char* kAwUserIdLabel = "workload.codeflare.dev/userid";

// The AppWrapper's SanitizeLabel: at most 63 characters, each not in
// [-_.A-Za-z0-9] replaced by '_', then '-', '_' and '.' trimmed at both ends.
std::string AwSanitizeLabel(std::string v) {
  if (v.size() > 63) v.resize(63);
  for (char& ch : v) {
    const unsigned char u = static_cast<unsigned char>(ch);
    if (!(std::isalnum(u) || ch == '-' || ch == '_' || ch == '.')) ch = '_';
  }
  const size_t b = v.find_first_not_of("-_.");
  if (b == std::string::npos) return "";
  return v.substr(b, v.find_last_not_of("-_.") - b + 1);
}

std::string AwComponentPath(size_t i) {
  return std::string(kAwComponentsPath) + "[" + std::to_string(i) + "]";
}

// The value at `path` inside `component`, or null when the path does not
// lead anywhere.
const Json* AwAt(const Json& component, const std::string& path) {
  Result<Json::json_pointer> p = AppWrapperPathPointer(path);
  if (!p.ok()) return nullptr;
  try {
    return component.contains(*p) ? &component.at(*p) : nullptr;
  } catch (const Json::exception&) {
    return nullptr;  // a token that does not index an array
  }
}

// The AppWrapper controller's GetPodTemplateSpec check: the value at `path`
// is an object whose spec reads as a PodSpec. "" when it does, else why not.
std::string AwPodTemplateProblem(const Json& component, const std::string& path) {
  Result<Json::json_pointer> p = AppWrapperPathPointer(path);
  if (!p.ok()) return p.status().message();
  const Json* at = AwAt(component, path);
  if (at == nullptr) return "at path position '" + path + "' missing field";
  if (!at->is_object()) return "at path position '" + path + "' non-map value";
  auto spec = at->find("spec");
  if (spec == at->end() || !spec->is_object()) {
    return "content at " + path + " does not contain a spec";
  }
  Status st = CheckPodTemplate(*at, path);
  return st.ok() ? "" : st.message();
}

// The count at `path` (the AppWrapper's inferReplicas): 1 when absent or
// null, the integer when one, else Invalid.
Result<int64_t> AwInferReplicas(const Json& component, const std::string& path) {
  const Json* v = AwAt(component, path);
  if (v == nullptr || v->is_null()) return int64_t{1};
  if (!v->is_number_integer()) {
    return Status::Invalid("at path position '" + path + "' non-int value " + v->dump());
  }
  return v->get<int64_t>();
}

// An integer at `path`, or nullopt (GetReplicas failing).
std::optional<int64_t> AwIntAt(const Json& component, const std::string& path) {
  const Json* v = AwAt(component, path);
  if (v == nullptr || !v->is_number_integer()) return std::nullopt;
  return v->get<int64_t>();
}

AppWrapperPodSet AwPodSet(std::string path, int64_t replicas, Json annotations = Json::object()) {
  AppWrapperPodSet ps;
  ps.path = std::move(path);
  ps.replicas = replicas;
  ps.annotations = std::move(annotations);
  return ps;
}

// A Ray cluster's pod sets below `prefix` ("template.spec."): the head, then
// each worker group with a template.
Result<std::vector<AppWrapperPodSet>> AwInferRay(const Json& component, const std::string& prefix) {
  std::vector<AppWrapperPodSet> out;
  out.push_back(AwPodSet(prefix + "headGroupSpec.template", 1));
  const Json* workers = AwAt(component, prefix + "workerGroupSpecs");
  if (workers != nullptr && workers->is_array()) {
    for (size_t i = 0; i < workers->size(); ++i) {
      const std::string group = prefix + "workerGroupSpecs[" + std::to_string(i) + "].";
      if (AwAt(component, group + "template") == nullptr) continue;
      KUOTA_ASSIGN_OR_RETURN(int64_t replicas, AwInferReplicas(component, group + "replicas"));
      out.push_back(AwPodSet(group + "template", replicas));
    }
  }
  return out;
}

// The AppWrapper controller's InferPodSets for the kinds it knows; none for
// the others.
Result<std::vector<AppWrapperPodSet>> AwInfer(const Json& component) {
  const Json& tmpl = ObjAt(component, "template");
  const std::string gvk = StrAt(tmpl, "apiVersion") + ":" + StrAt(tmpl, "kind");
  std::vector<AppWrapperPodSet> out;
  if (gvk == "batch/v1:Job") {
    int64_t replicas = AwIntAt(component, "template.spec.parallelism").value_or(1);
    if (auto c = AwIntAt(component, "template.spec.completions"); c && *c < replicas) replicas = *c;
    out.push_back(AwPodSet("template.spec.template", replicas,
                           {{kAppWrapperTasPodIndexLabel, kAwJobCompletionIndex}}));
  } else if (gvk == "jobset.x-k8s.io/v1alpha2:JobSet") {
    const Json* jobs = AwAt(component, "template.spec.replicatedJobs");
    if (jobs != nullptr && jobs->is_array()) {
      for (size_t i = 0; i < jobs->size(); ++i) {
        const std::string job = "template.spec.replicatedJobs[" + std::to_string(i) + "].";
        if (AwAt(component, job + "template") == nullptr) continue;
        int64_t pods = AwIntAt(component, job + "template.spec.parallelism").value_or(1);
        if (auto c = AwIntAt(component, job + "template.spec.completions"); c && *c < pods) {
          pods = *c;
        }
        const int64_t replicas = AwIntAt(component, job + "replicas").value_or(1);
        out.push_back(AwPodSet(job + "template.spec.template", replicas * pods,
                               {{kAppWrapperTasPodIndexLabel, kAwJobCompletionIndex},
                                {kAppWrapperTasSubGroupIndexLabel, kAwJobSetJobIndex},
                                {kAppWrapperTasSubGroupCount, std::to_string(replicas)}}));
      }
    }
  } else if (gvk == "kubeflow.org/v1:PyTorchJob") {
    for (const char* type : {"Master", "Worker"}) {
      const std::string prefix = std::string("template.spec.pytorchReplicaSpecs.") + type + ".";
      if (AwAt(component, prefix + "template") == nullptr) continue;
      KUOTA_ASSIGN_OR_RETURN(int64_t replicas, AwInferReplicas(component, prefix + "replicas"));
      out.push_back(AwPodSet(prefix + "template", replicas,
                             {{kAppWrapperTasPodIndexLabel, kAwKubeflowReplicaIndex}}));
    }
  } else if (gvk == "ray.io/v1:RayCluster") {
    return AwInferRay(component, "template.spec.");
  } else if (gvk == "ray.io/v1:RayJob") {
    return AwInferRay(component, "template.spec.rayClusterSpec.");
  } else if (gvk == "v1:Pod") {
    if (AwAt(component, "template") != nullptr) out.push_back(AwPodSet("template", 1));
  } else if (gvk == "apps/v1:Deployment" || gvk == "apps/v1:StatefulSet") {
    if (AwAt(component, "template.spec.template") != nullptr) {
      KUOTA_ASSIGN_OR_RETURN(int64_t replicas,
                             AwInferReplicas(component, "template.spec.replicas"));
      out.push_back(AwPodSet("template.spec.template", replicas));
    }
  }
  for (const AppWrapperPodSet& ps : out) {
    if (std::string why = AwPodTemplateProblem(component, ps.path); !why.empty()) {
      return Status::Invalid(ps.path + " does not refer to a v1.PodSpecTemplate: " + why);
    }
  }
  return out;
}

// The component's declared pod sets as written (types checked by Validate).
std::vector<AppWrapperPodSet> AwDeclared(const Json& component) {
  std::vector<AppWrapperPodSet> out;
  for (const Json& ps : ArrAt(component, "podSets")) {
    AppWrapperPodSet p = AwPodSet(StrAt(ps, "path"), IntAt(ps, "replicas", 1));
    const Json& ann = ObjAt(ps, "annotations");
    if (!ann.empty()) p.annotations = ann;
    out.push_back(std::move(p));
  }
  return out;
}

// The AppWrapper's ValidatePodSets: declared pod sets have distinct paths
// and, where the kind is known, match the inferred ones.
std::string AwPodSetsMismatch(const std::vector<AppWrapperPodSet>& declared,
                              const std::vector<AppWrapperPodSet>& inferred) {
  if (declared.empty()) return "";
  std::map<std::string, int64_t> by_path;
  for (const AppWrapperPodSet& p : declared) {
    if (!by_path.emplace(p.path, p.replicas).second) {
      return "multiple DeclaredPodSets with path '" + p.path + "'";
    }
  }
  if (inferred.empty()) return "";
  if (inferred.size() != declared.size()) {
    return "DeclaredPodSet count " + std::to_string(declared.size()) +
           " differs from inferred count " + std::to_string(inferred.size());
  }
  for (const AppWrapperPodSet& ips : inferred) {
    auto it = by_path.find(ips.path);
    if (it == by_path.end()) return "PodSet with path '" + ips.path + "' is missing";
    if (it->second != ips.replicas) {
      return "replica count " + std::to_string(it->second) + " differs from inferred count " +
             std::to_string(ips.replicas) + " for PodSet at path position '" + ips.path + "'";
    }
  }
  return "";
}

// A map of strings at obj[key] (the CRD's map[string]string), else Invalid.
Status AwCheckStringMap(const Json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return Status::Ok();
  const std::string field = path + "." + key;
  if (!it->is_object()) return InvalidValue(field, *it, "must be an object");
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) return InvalidValue(field + "[" + k + "]", v, "must be a string");
  }
  return Status::Ok();
}

// The CRD's schema of one component.
Status AwCheckComponentSchema(const Json& c, const std::string& path) {
  if (!c.is_object()) return InvalidValue(path, c, "must be an object");
  KUOTA_RETURN_IF_ERROR(AwCheckStringMap(c, "annotations", path));
  KUOTA_ASSIGN_OR_RETURN(const Json* tmpl, ObjectField(c, "template", path));
  // x-kubernetes-embedded-resource: apiVersion and kind are required.
  for (const char* f : {"apiVersion", "kind"}) {
    KUOTA_ASSIGN_OR_RETURN(std::string v, StringField(*tmpl, f, path + ".template"));
    if (v.empty()) return Required(path + ".template." + f);
  }
  if (auto m = tmpl->find("metadata"); m != tmpl->end() && !m->is_null() && !m->is_object()) {
    return InvalidValue(path + ".template.metadata", *m, "must be an object");
  }
  for (const char* list : {"podSets", "podSetInfos"}) {
    auto it = c.find(list);
    if (it == c.end() || it->is_null()) continue;
    const std::string lpath = path + "." + list;
    if (!it->is_array()) return InvalidValue(lpath, *it, "must be an array");
    for (size_t j = 0; j < it->size(); ++j) {
      const Json& e = (*it)[j];
      const std::string epath = lpath + "[" + std::to_string(j) + "]";
      if (!e.is_object()) return InvalidValue(epath, e, "must be an object");
      KUOTA_RETURN_IF_ERROR(AwCheckStringMap(e, "annotations", epath));
      if (std::string(list) == "podSets") {
        KUOTA_RETURN_IF_ERROR(StringField(e, "path", epath).status());
        KUOTA_RETURN_IF_ERROR(
            IntField(e, "replicas", epath, 1, std::numeric_limits<int32_t>::min()).status());
      } else {
        KUOTA_RETURN_IF_ERROR(AwCheckStringMap(e, "labels", epath));
        KUOTA_RETURN_IF_ERROR(AwCheckStringMap(e, "nodeSelector", epath));
        for (const char* arr : {"tolerations", "schedulingGates"}) {
          auto a = e.find(arr);
          if (a != e.end() && !a->is_null() && !a->is_array()) {
            return InvalidValue(epath + "." + arr, *a, "must be an array");
          }
        }
      }
    }
  }
  return Status::Ok();
}

// "template.spec.template" -> ".spec.template" (the dotted field after the
// component's template).
std::string AwAfterTemplate(const std::string& path) { return path.substr(8); }

// Whether `existing` (a map) holds a key of `add` with another value: the
// AppWrapper controller's HaveConflict.
std::string AwConflict(const Json& existing, const Json& add) {
  if (!existing.is_object() || !add.is_object()) return "";
  for (const auto& [k, v] : add.items()) {
    auto it = existing.find(k);
    if (it != existing.end() && *it != v) {
      return "key " + Quoted(k) + " conflict: " + it->dump() + " vs " + v.dump();
    }
  }
  return "";
}

// `existing` with the keys of `add` that it lacks (MergeKeepFirst).
void AwMergeKeepFirst(Json& existing, const Json& add) {
  if (!existing.is_object()) existing = Json::object();
  for (const auto& [k, v] : add.items()) {
    if (!existing.contains(k)) existing[k] = v;
  }
}

Json AwStringMap(const std::map<std::string, std::string>& m) {
  Json out = Json::object();
  for (const auto& [k, v] : m) out[k] = v;
  return out;
}

bool AwConditionTrue(const Json& job, const char* type) {
  for (const Json& c : ArrAt(ObjAt(job, "status"), "conditions")) {
    if (StrAt(c, "type") == type) return StrAt(c, "status") == "True";
  }
  return false;
}

}  // namespace

Result<Json::json_pointer> AppWrapperPathPointer(const std::string& path) {
  const std::string head = "template";
  if (path.compare(0, head.size(), head) != 0) {
    return Status::Invalid("first element of the path must be 'template'");
  }
  std::string pointer = "/template";
  size_t i = head.size();
  while (i < path.size()) {
    if (path[i] == '[') {
      const size_t end = path.find(']', i);
      if (end == std::string::npos) {
        return Status::Invalid("at path position '" + path.substr(0, i) +
                               "' invalid array index '" + path.substr(i) + "'");
      }
      const std::string idx = path.substr(i + 1, end - i - 1);
      if (idx.empty() ||
          !std::all_of(idx.begin(), idx.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return Status::Invalid("at path position '" + path.substr(0, i) +
                               "' invalid index expression '" + idx + "'");
      }
      pointer += "/" + idx;
      i = end + 1;
    } else if (path[i] == '.') {
      size_t end = path.find_first_of(".[", i + 1);
      if (end == std::string::npos) end = path.size();
      const std::string key = path.substr(i + 1, end - i - 1);
      if (key.empty()) {
        return Status::Invalid("at path position '" + path.substr(0, i + 1) +
                               "' invalid path element '" + path.substr(i + 1) + "'");
      }
      std::string escaped;
      for (char c : key) {
        if (c == '~') {
          escaped += "~0";
        } else if (c == '/') {
          escaped += "~1";
        } else {
          escaped += c;
        }
      }
      pointer += "/" + escaped;
      i = end;
    } else {
      return Status::Invalid("at path position '" + path.substr(0, i) + "' invalid path element '" +
                             path.substr(i) + "'");
    }
  }
  return Json::json_pointer(pointer);
}

const KindInfo& AppWrapperKind::Info() const {
  // The CRD's additionalPrinterColumns.
  static const KindInfo kInfo =
      CrdKindInfo("workload.codeflare.dev", "v1beta2", "AppWrapper", "AppWrapper",
                  {.short_names = {"aw"},
                   .columns = {
                       {"Status", "string", "", 0,
                        [](const Json& aw) {
                          const Json& st = ObjAt(aw, "status");
                          auto p = st.find("phase");
                          return p != st.end() && p->is_string() ? *p : Json();
                        }},
                       {"Quota Reserved", "string", "", 0,
                        [](const Json& aw) -> Json {
                          for (const Json& c : ArrAt(ObjAt(aw, "status"), "conditions")) {
                            if (StrAt(c, "type") == "QuotaReserved") return StrAt(c, "status");
                          }
                          return nullptr;
                        }},
                       {"Resources Deployed", "string", "", 0,
                        [](const Json& aw) -> Json {
                          for (const Json& c : ArrAt(ObjAt(aw, "status"), "conditions")) {
                            if (StrAt(c, "type") == "ResourcesDeployed") return StrAt(c, "status");
                          }
                          return nullptr;
                        }},
                       {"Unhealthy", "string", "", 0,
                        [](const Json& aw) -> Json {
                          for (const Json& c : ArrAt(ObjAt(aw, "status"), "conditions")) {
                            if (StrAt(c, "type") == "Unhealthy") return StrAt(c, "status");
                          }
                          return nullptr;
                        }},
                       {"Age", "date", "", 0,
                        [](const Json& aw) -> Json {
                          std::string t = MetaStr(aw, "creationTimestamp");
                          return t.empty() ? Json() : Json(t);
                        }},
                   }});
  return kInfo;
}

Result<std::vector<AppWrapperPodSet>> AppWrapperKind::PodSets(const Json& job) {
  std::vector<AppWrapperPodSet> out;
  const Json& components = ArrAt(SpecOf(job), "components");
  for (size_t i = 0; i < components.size(); ++i) {
    std::vector<AppWrapperPodSet> sets = AwDeclared(components[i]);
    if (sets.empty()) {
      Result<std::vector<AppWrapperPodSet>> inferred = AwInfer(components[i]);
      if (!inferred.ok()) {
        return Status::Invalid(AwComponentPath(i) + ".template: Invalid value: " +
                               Quoted(StrAt(ObjAt(components[i], "template"), "kind")) +
                               ": error inferring PodSets: " + inferred.status().message());
      }
      sets = std::move(*inferred);
    }
    for (size_t j = 0; j < sets.size(); ++j) {
      sets[j].component = i;
      sets[j].index = j;
      Result<Json::json_pointer> p = AppWrapperPathPointer(sets[j].path);
      if (!p.ok()) {
        return Status::Invalid(AwComponentPath(i) + ".podSets[" + std::to_string(j) +
                               "].path: Invalid value: " + Quoted(sets[j].path) + ": " +
                               p.status().message());
      }
      sets[j].pointer = *p;
      out.push_back(std::move(sets[j]));
    }
  }
  return out;
}

Status AppWrapperKind::Validate(const Json& job) const {
  if (!job.is_object()) return InvalidValue("", job, "must be an object");
  KUOTA_ASSIGN_OR_RETURN(const Json* spec, ObjectField(job, "spec", ""));
  KUOTA_RETURN_IF_ERROR(CheckBool(*spec, "suspend", "spec"));
  KUOTA_RETURN_IF_ERROR(StringField(*spec, "managedBy", "spec").status());
  auto comps = spec->find("components");
  if (comps == spec->end() || comps->is_null()) return Required(kAwComponentsPath);
  if (!comps->is_array()) return InvalidValue(kAwComponentsPath, *comps, "must be an array");
  const std::string ns = MetaStr(job, "namespace");
  size_t pod_sets = 0;
  for (size_t i = 0; i < comps->size(); ++i) {
    const Json& c = (*comps)[i];
    const std::string cpath = AwComponentPath(i);
    KUOTA_RETURN_IF_ERROR(AwCheckComponentSchema(c, cpath));
    const Json& tmpl = c["template"];
    // 1. No AppWrapper inside an AppWrapper.
    if (StrAt(tmpl, "apiVersion") == kAwApiVersion && StrAt(tmpl, "kind") == kAwKind) {
      return Status::Invalid(cpath + ".template: Forbidden: Nested AppWrappers are forbidden");
    }
    // 2. Only objects of the AppWrapper's own namespace.
    const std::string cns = MetaStr(tmpl, "namespace");
    if (!cns.empty() && cns != ns) {
      return Status::Invalid(cpath +
                             ".template.metadata.namespace: Forbidden: AppWrappers cannot create "
                             "objects in other namespaces");
    }
    // 4. Every declared pod set leads to a pod template.
    const Json& declared_json = ArrAt(c, "podSets");
    for (size_t j = 0; j < declared_json.size(); ++j) {
      const std::string ppath = cpath + ".podSets[" + std::to_string(j) + "].path";
      const std::string path = StrAt(declared_json[j], "path");
      if (path.empty())
        return Status::Invalid(ppath + ": Required value: podspec must specify path");
      if (std::string why = AwPodTemplateProblem(c, path); !why.empty()) {
        return InvalidValue(ppath, path, "path does not refer to a v1.PodSpecTemplate: " + why);
      }
    }
    // 5. The declared pod sets agree with what the kind infers.
    Result<std::vector<AppWrapperPodSet>> inferred = AwInfer(c);
    if (!inferred.ok()) {
      return Status::Invalid(cpath + ".template: Invalid value: " + Quoted(StrAt(tmpl, "kind")) +
                             ": error inferring PodSets: " + inferred.status().message());
    }
    const std::vector<AppWrapperPodSet> declared = AwDeclared(c);
    pod_sets += std::max(declared.size(), inferred->size());
    if (std::string why = AwPodSetsMismatch(declared, *inferred); !why.empty()) {
      return Status::Invalid(cpath + ".podSets: Invalid value: " + declared_json.dump() + ": " +
                             why);
    }
  }
  // 6. Kueue's bounds on a Workload's pod sets.
  if (pod_sets == 0) {
    return Status::Invalid(std::string(kAwComponentsPath) +
                           ": Invalid value: \"array\": components contains no podspecs");
  }
  if (pod_sets > kAwMaxPodSets) {
    return Status::Invalid(std::string(kAwComponentsPath) +
                           ": Invalid value: \"array\": " + "components contains " +
                           std::to_string(pod_sets) + " podspecs; at most 8 are allowed");
  }
  if (QueueName(job).empty()) return Status::Ok();
  // Kueue's checks of a queued AppWrapper's pod sets: the topology
  // annotations on each template.
  KUOTA_ASSIGN_OR_RETURN(std::vector<AppWrapperPodSet> sets, PodSets(job));
  for (const AppWrapperPodSet& ps : sets) {
    const Json& tmpl = (*comps)[ps.component].at(ps.pointer);
    const std::string meta_path =
        AwComponentPath(ps.component) + ".template" + AwAfterTemplate(ps.path) + ".metadata";
    const Json& meta = ObjAt(tmpl, "metadata");
    KUOTA_RETURN_IF_ERROR(ValidateTopologyAnnotations(meta, meta_path));
    KUOTA_RETURN_IF_ERROR(ValidateSliceSizeUpperBound(meta, meta_path, ps.replicas));
  }
  return Status::Ok();
}

Status AppWrapperKind::ValidateUpdate(const Json& old_job, const Json& job) const {
  const std::string msg = ": Forbidden: attempt to change immutable field";
  const Json& old_c = ArrAt(SpecOf(old_job), "components");
  const Json& new_c = ArrAt(SpecOf(job), "components");
  if (old_c.size() != new_c.size()) return Status::Invalid(kAwComponentsPath + msg);
  for (size_t i = 0; i < new_c.size(); ++i) {
    const std::string cpath = AwComponentPath(i);
    if (ObjAt(old_c[i], "template") != ObjAt(new_c[i], "template")) {
      return Status::Invalid(cpath + ".template.raw" + msg);
    }
    const Json& old_ps = ArrAt(old_c[i], "podSets");
    const Json& new_ps = ArrAt(new_c[i], "podSets");
    if (old_ps.size() != new_ps.size()) return Status::Invalid(cpath + ".podsets" + msg);
    for (size_t j = 0; j < new_ps.size(); ++j) {
      const std::string ppath = cpath + ".podsets[" + std::to_string(j) + "]";
      if (IntAt(old_ps[j], "replicas", 1) != IntAt(new_ps[j], "replicas", 1)) {
        return Status::Invalid(ppath + ".replicas" + msg);
      }
      if (StrAt(old_ps[j], "path") != StrAt(new_ps[j], "path")) {
        return Status::Invalid(ppath + ".path" + msg);
      }
    }
  }
  const Json& old_spec = SpecOf(old_job);
  const Json& new_spec = SpecOf(job);
  if (old_spec.value("managedBy", Json()) != new_spec.value("managedBy", Json())) {
    return Status::Invalid("spec.managedBy" + msg);
  }
  for (const char* label : {kAwUserLabel, kAwUserIdLabel}) {
    if (MetaMapValue(old_job, "labels", label) != MetaMapValue(job, "labels", label)) {
      return Status::Invalid(std::string("metadata.labels[") + label + "]" + msg);
    }
  }
  return Status::Ok();
}

void AppWrapperKind::Default(Json& job) const {
  if (!job.is_object() || !job["metadata"].is_object()) return;
  const std::string user = MetaMapValue(job, "annotations", jobctl::kSubmittedByAnnotation);
  const std::string uid = MetaMapValue(job, "annotations", jobctl::kSubmitterUidAnnotation);
  if (user.empty() && uid.empty()) return;
  Json& labels = job["metadata"]["labels"];
  if (!labels.is_object()) labels = Json::object();
  // The webhook's values win over the user's (MergeKeepFirst, its map first).
  labels[kAwUserLabel] = AwSanitizeLabel(user);
  labels[kAwUserIdLabel] = AwSanitizeLabel(uid);
}

void AppWrapperKind::DefaultOnCreate(Json& job) const { job["spec"]["suspend"] = true; }

Result<Json> AppWrapperKind::BuildWorkload(const Json& job) const {
  const std::string name = JobName(job), uid = MetaStr(job, "uid");
  if (name.empty() || uid.empty()) return Status::Invalid("job has no name or uid yet");
  KUOTA_ASSIGN_OR_RETURN(std::vector<AppWrapperPodSet> sets, PodSets(job));
  const Json& comps = ArrAt(SpecOf(job), "components");
  Json pod_sets = Json::array();
  std::string priority_class;
  for (size_t i = 0; i < sets.size(); ++i) {
    const AppWrapperPodSet& ps = sets[i];
    if (ps.component >= comps.size() || !comps[ps.component].contains(ps.pointer)) {
      return Status::Invalid(PodSetTemplateField(job, i) + ": Required value");
    }
    const Json& tmpl = comps[ps.component].at(ps.pointer);
    Json out_tmpl = Json::object();
    Json meta = Json::object();
    for (const char* f : {"labels", "annotations"}) {
      const Json& m = ObjAt(ObjAt(tmpl, "metadata"), f);
      if (!m.empty()) meta[f] = m;
    }
    if (!meta.empty()) out_tmpl["metadata"] = meta;
    out_tmpl["spec"] = ObjAt(tmpl, "spec");
    if (priority_class.empty()) priority_class = StrAt(out_tmpl["spec"], "priorityClassName");
    std::string lower = name + "-" + std::to_string(i);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    Json pod_set = {{"name", lower}, {"count", ps.replicas}, {"template", out_tmpl}};
    PodSetIndexLabels labels;
    labels.pod_index_label = StrAt(ps.annotations, kAppWrapperTasPodIndexLabel);
    labels.sub_group_index_label = StrAt(ps.annotations, kAppWrapperTasSubGroupIndexLabel);
    if (const std::string n = StrAt(ps.annotations, kAppWrapperTasSubGroupCount); !n.empty()) {
      char* end = nullptr;
      const long long v = std::strtoll(n.c_str(), &end, 10);
      // A malformed count is ignored, as Kueue logs and ignores it.
      if (end != nullptr && *end == '\0') labels.sub_group_count = v;
    }
    KUOTA_ASSIGN_OR_RETURN(Json topology, BuildTopologyRequest(ObjAt(tmpl, "metadata"), labels));
    if (!topology.is_null()) pod_set["topologyRequest"] = std::move(topology);
    pod_sets.push_back(std::move(pod_set));
  }
  Json wl = MakeJobWorkload("AppWrapper", kAwApiVersion, kAwKind, name, MetaStr(job, "namespace"),
                            uid, QueueName(job), std::move(pod_sets));
  if (const std::string wpc = MetaMapValue(job, "labels", kPriorityClassLabel); !wpc.empty()) {
    SetPriorityClassRef(wl, wpc, true);
  } else if (!priority_class.empty()) {
    SetPriorityClassRef(wl, priority_class, false);
  }
  return wl;
}

bool AppWrapperKind::IsSuspended(const Json& job) const {
  auto s = SpecOf(job).find("suspend");
  return s != SpecOf(job).end() && s->is_boolean() && s->get<bool>();
}

Json AppWrapperKind::Start(const Json& job, const std::vector<PodSetPlacement>& placement) const {
  Json out = job;
  Result<std::vector<AppWrapperPodSet>> sets = PodSets(job);
  Json& comps = out["spec"]["components"];
  if (sets.ok() && comps.is_array()) {
    const std::string name = JobName(job);
    for (Json& c : comps) c["podSetInfos"] = Json::array();
    for (size_t i = 0; i < sets->size(); ++i) {
      const AppWrapperPodSet& ps = (*sets)[i];
      std::string want = name + "-" + std::to_string(i);
      std::transform(want.begin(), want.end(), want.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      Json info = Json::object();
      for (const PodSetPlacement& p : placement) {
        if (p.name != want) continue;
        if (!p.node_selector.empty()) info["nodeSelector"] = AwStringMap(p.node_selector);
        if (p.tolerations.is_array() && !p.tolerations.empty()) info["tolerations"] = p.tolerations;
        if (!p.labels.empty()) info["labels"] = AwStringMap(p.labels);
        if (!p.annotations.empty()) info["annotations"] = AwStringMap(p.annotations);
        for (const std::string& g : p.scheduling_gates) {
          info["schedulingGates"].push_back({{"name", g}});
        }
      }
      Json& infos = comps[ps.component]["podSetInfos"];
      while (infos.size() <= ps.index) infos.push_back(Json::object());
      infos[ps.index] = std::move(info);
    }
  }
  out["spec"]["suspend"] = false;
  return out;
}

Json AppWrapperKind::Stop(const Json& job) const {
  Json out = job;
  Json& comps = out["spec"]["components"];
  if (comps.is_array()) {
    for (Json& c : comps) {
      if (c.is_object()) c.erase("podSetInfos");
    }
  }
  out["spec"]["suspend"] = true;
  return out;
}

bool AppWrapperKind::IsFinished(const Json& job, bool* succeeded) const {
  const std::string phase = StrAt(ObjAt(job, "status"), "phase");
  if (phase == "Succeeded") {
    if (succeeded) *succeeded = true;
    return true;
  }
  // A failed AppWrapper still deleting its resources holds its quota.
  if (phase == "Failed" && !AwConditionTrue(job, "ResourcesDeployed")) {
    if (succeeded) *succeeded = false;
    return true;
  }
  return false;
}

bool AppWrapperKind::PodsReady(const Json& job) const { return AwConditionTrue(job, "PodsReady"); }

std::string AppWrapperKind::PodSetTemplateField(const Json& job, size_t index) const {
  Result<std::vector<AppWrapperPodSet>> sets = PodSets(job);
  if (!sets.ok() || index >= sets->size()) return kAwComponentsPath;
  const AppWrapperPodSet& ps = (*sets)[index];
  return AwComponentPath(ps.component) + ".template" + AwAfterTemplate(ps.path);
}

Result<Json> AppWrapperKind::ComponentObject(const Json& job, size_t index) {
  const Json& comps = ArrAt(SpecOf(job), "components");
  if (index >= comps.size()) return Status::Invalid(AwComponentPath(index) + ": Required value");
  KUOTA_ASSIGN_OR_RETURN(std::vector<AppWrapperPodSet> sets, PodSets(job));
  const Json& component = comps[index];
  const std::string name = JobName(job);
  const std::string ns = MetaStr(job, "namespace");
  Json obj = ObjAt(component, "template");
  Json& meta = obj["metadata"];
  if (!meta.is_object()) meta = Json::object();
  const std::string cns = meta.value("namespace", "");
  if (!cns.empty() && cns != ns) {
    return Status::Invalid("component namespace " + Quoted(cns) +
                           " is different from appwrapper namespace " + Quoted(ns));
  }
  meta["namespace"] = ns;
  const Json aw_label = {{kAppWrapperLabel, name}};
  AwMergeKeepFirst(meta["labels"], aw_label);
  const Json& infos = ArrAt(component, "podSetInfos");
  for (const AppWrapperPodSet& ps : sets) {
    if (ps.component != index) continue;
    const Json info = ps.index < infos.size() ? infos[ps.index] : Json::object();
    // The set's template inside the object (its pointer without "/template").
    const Json::json_pointer at(ps.pointer.to_string().substr(std::string("/template").size()));
    if (!obj.contains(at) || !obj.at(at).is_object()) {
      return Status::Invalid(ps.path + ": not a pod template");
    }
    Json& tmpl = obj.at(at);
    Json& tmeta = tmpl["metadata"];
    if (!tmeta.is_object()) tmeta = Json::object();
    Json& tspec = tmpl["spec"];
    if (!tspec.is_object()) return Status::Invalid(ps.path + ".spec: Required value");
    if (const Json& a = ObjAt(info, "annotations"); !a.empty()) {
      if (std::string c = AwConflict(ObjAt(tmeta, "annotations"), a); !c.empty()) {
        return Status::Invalid("conflict updating annotations: " + c);
      }
      AwMergeKeepFirst(tmeta["annotations"], a);
    }
    Json labels = ObjAt(info, "labels");
    AwMergeKeepFirst(labels, aw_label);
    if (std::string c = AwConflict(ObjAt(tmeta, "labels"), labels); !c.empty()) {
      return Status::Invalid("conflict updating labels: " + c);
    }
    AwMergeKeepFirst(tmeta["labels"], labels);
    if (const Json& sel = ObjAt(info, "nodeSelector"); !sel.empty()) {
      if (std::string c = AwConflict(ObjAt(tspec, "nodeSelector"), sel); !c.empty()) {
        return Status::Invalid("conflict updating nodeSelector: " + c);
      }
      AwMergeKeepFirst(tspec["nodeSelector"], sel);
    }
    if (const Json& tol = ArrAt(info, "tolerations"); !tol.empty()) {
      if (!tspec["tolerations"].is_array()) tspec["tolerations"] = Json::array();
      for (const Json& t : tol) tspec["tolerations"].push_back(t);
    }
    if (const Json& gates = ArrAt(info, "schedulingGates"); !gates.empty()) {
      Json& have = tspec["schedulingGates"];
      if (!have.is_array()) have = Json::array();
      std::set<std::string> names;
      for (const Json& g : have) names.insert(StrAt(g, "name"));
      for (const Json& g : gates) {
        if (names.insert(StrAt(g, "name")).second) have.push_back({{"name", StrAt(g, "name")}});
      }
    }
  }
  Json refs = Json::array();
  for (const Json& r : ArrAt(meta, "ownerReferences")) {
    if (!r.value("controller", false)) refs.push_back(r);
  }
  refs.push_back(ControllerOwnerRef(kAwApiVersion, kAwKind, name, MetaStr(job, "uid")));
  meta["ownerReferences"] = refs;
  return obj;
}

}  // namespace kuota::jobs
