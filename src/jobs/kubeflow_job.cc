#include "jobs/kubeflow_job.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

#include "jobctl/job_conditions.h"
#include "jobs/job_fields.h"

namespace kuota::jobs {
namespace {

constexpr const char* kCreated = "Created";
constexpr const char* kRunning = "Running";
constexpr const char* kRestarting = "Restarting";
constexpr const char* kSucceeded = "Succeeded";
constexpr const char* kFailed = "Failed";
constexpr const char* kSuspended = "Suspended";

// Sets a condition the way kubeflow/common's updateJobConditions does: an
// unchanged condition is left alone; otherwise the old one of the type is
// dropped and the new one appended (so the last entry is the latest change),
// Running and Restarting replace each other, and Succeeded/Failed turn a
// Running condition False.
void UpdateCondition(Json& conds, const std::string& type, const std::string& status,
                     const std::string& reason, const std::string& message,
                     const std::string& now) {
  if (!conds.is_array()) conds = Json::array();
  if (const Json* old = jobctl::FindCondition(conds, type);
      old != nullptr && StrAt(*old, "status") == status && StrAt(*old, "reason") == reason &&
      StrAt(*old, "message") == message) {
    return;
  }
  Json c = MakeCondition(type, status, reason, message, now);
  Json out = Json::array();
  for (const Json& old : conds) {
    const std::string t = old.is_object() ? StrAt(old, "type") : "";
    if (type == kRestarting && t == kRunning) continue;
    if (type == kRunning && t == kRestarting) continue;
    if (t == type) {
      if (StrAt(old, "status") == status && old.contains("lastTransitionTime")) {
        c["lastTransitionTime"] = old["lastTransitionTime"];
      }
      continue;
    }
    Json kept = old;
    if ((type == kSucceeded || type == kFailed) && t == kRunning) kept["status"] = "False";
    out.push_back(std::move(kept));
  }
  out.push_back(std::move(c));
  conds = std::move(out);
}

Status RequiredWhy(const std::string& path, const std::string& why) {
  return Status::Invalid(path + ": Required value: " + why);
}

Status CheckRunPolicy(const Json& rp, const std::string& path) {
  if (!rp.is_object()) return InvalidValue(path, rp, "must be an object");
  KUOTA_RETURN_IF_ERROR(CheckBool(rp, "suspend", path));
  Result<std::string> clean = StringField(rp, "cleanPodPolicy", path);
  if (!clean.ok()) return clean.status();
  if (!clean.value().empty() && !Contains({"All", "Running", "None"}, clean.value())) {
    return NotSupported(path + ".cleanPodPolicy", clean.value(), {"All", "None", "Running"});
  }
  for (const char* f : {"backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished"}) {
    Result<int64_t> v = IntField(rp, f, path, 0, 0);
    if (!v.ok()) return v.status();
  }
  if (const Json* sp = FieldOrNull(rp, "schedulingPolicy"); sp != nullptr) {
    const std::string sp_path = path + ".schedulingPolicy";
    if (!sp->is_object()) return InvalidValue(sp_path, *sp, "must be an object");
    for (const char* f : {"minAvailable", "scheduleTimeoutSeconds"}) {
      Result<int64_t> v = IntField(*sp, f, sp_path, 0, 0);
      if (!v.ok()) return v.status();
    }
    for (const char* f : {"queue", "priorityClass"}) {
      Result<std::string> v = StringField(*sp, f, sp_path);
      if (!v.ok()) return v.status();
    }
  }
  return Status::Ok();
}

// The status fields every reader here relies on have the types it expects.
Status CheckStatus(const Json& st) {
  if (!st.is_object()) return InvalidValue("status", st, "must be an object");
  if (const Json* conds = FieldOrNull(st, "conditions"); conds != nullptr) {
    if (!conds->is_array()) return InvalidValue("status.conditions", *conds, "must be a list");
    for (size_t i = 0; i < conds->size(); ++i) {
      const std::string p = "status.conditions[" + std::to_string(i) + "]";
      const Json& c = (*conds)[i];
      if (!c.is_object()) return InvalidValue(p, c, "must be an object");
      for (const char* f : {"type", "status", "reason", "message"}) {
        Result<std::string> v = StringField(c, f, p);
        if (!v.ok()) return v.status();
      }
    }
  }
  if (const Json* rs = FieldOrNull(st, "replicaStatuses"); rs != nullptr) {
    if (!rs->is_object()) return InvalidValue("status.replicaStatuses", *rs, "must be an object");
    for (const auto& [type, r] : rs->items()) {
      const std::string p = "status.replicaStatuses." + type;
      if (r.is_null()) continue;
      if (!r.is_object()) return InvalidValue(p, r, "must be an object");
      for (const char* f : {"active", "succeeded", "failed"}) {
        Result<int64_t> v = IntField(r, f, p, 0, 0);
        if (!v.ok()) return v.status();
      }
    }
  }
  for (const char* f : {"startTime", "completionTime", "lastReconcileTime"}) {
    Result<std::string> v = StringField(st, f, "status");
    if (!v.ok()) return v.status();
  }
  Result<int64_t> restarts = IntField(st, "restarts", "status", 0, 0);
  return restarts.ok() ? Status::Ok() : restarts.status();
}

}  // namespace

const Json* FieldOrNull(const Json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it != obj.end() && !it->is_null() ? &*it : nullptr;
}

std::string LowerAscii(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

namespace {

// What kube says of a value that is not a DNS-1035 or RFC 1123 label.
constexpr const char* kDns1035Format =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
constexpr const char* kDns1123Format =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

// Kube's label checks: at most 63 characters of [a-z0-9-], ending in [a-z0-9]
// and starting in [a-z] (`alpha_first`) or [a-z0-9]; "" when valid, else
// kube's errors joined by `separator`, `format_error` for the characters.
std::string CheckDnsLabel(const std::string& value, bool alpha_first, const char* separator,
                          const char* format_error) {
  const auto ok_char = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  std::string errs;
  if (value.size() > 63) errs = "must be no more than 63 characters";
  const bool first_ok =
      !value.empty() &&
      (alpha_first ? value.front() >= 'a' && value.front() <= 'z' : ok_char(value.front()));
  bool valid = first_ok && ok_char(value.back());
  for (char c : value) valid = valid && (ok_char(c) || c == '-');
  if (!valid) {
    if (!errs.empty()) errs += separator;
    errs += format_error;
  }
  return errs;
}

}  // namespace

std::string CheckDns1035Label(const std::string& value) {
  return CheckDnsLabel(value, true, ",", kDns1035Format);
}

std::string CheckDns1123LabelValue(const std::string& value) {
  return CheckDnsLabel(value, false, ", ", kDns1123Format);
}

bool MasterTypeIsMasterRole(const KubeflowJobKind& /*kind*/, const Json& /*job*/,
                            const std::string& type, int64_t /*index*/) {
  return type == kKubeflowMaster;
}

bool MasterElseWorkersSucceeded(const KubeflowJobKind& kind, const Json& /*job*/,
                                const std::vector<PodSetDef>& sets, const GroupObservation& seen) {
  PodSetObservation o;
  int64_t want = 0;
  if (kind.Observed(sets, seen, kKubeflowMaster, &o, &want)) return o.succeeded >= want;
  if (kind.Observed(sets, seen, kKubeflowWorker, &o, &want)) return o.succeeded >= want;
  return false;
}

Status ValidateTrainingJobName(const KubeflowJobKind& /*kind*/, const Json& job) {
  const std::string name = JobName(job);
  if (name.empty()) return Status::Ok();  // generateName: the server names it
  const std::string errs = CheckDns1035Label(name);
  if (errs.empty()) return Status::Ok();
  return InvalidValue("metadata.name", name, "should match: " + errs);
}

Status NotSupported(const std::string& path, const Json& value,
                    const std::vector<std::string>& supported) {
  std::string list;
  for (const std::string& s : supported) list += (list.empty() ? "" : ", ") + Quoted(s);
  return Status::Invalid(path + ": Unsupported value: " + value.dump() +
                         ": supported values: " + list);
}

Status Forbidden(const std::string& path, const std::string& why) {
  return Status::Invalid(path + ": Forbidden: " + why);
}

// ---- Reading the job ----

std::string KubeflowJobKind::SpecsPath() const { return "spec." + Traits().specs_field; }

std::string KubeflowJobKind::TypePath(const std::string& type) const {
  return SpecsPath() + "." + type;
}

const Json* KubeflowJobKind::ReplicaSpec(const Json& job, const std::string& type) const {
  const Json* spec = FieldOrNull(job, "spec");
  const Json* specs = spec != nullptr ? FieldOrNull(*spec, Traits().specs_field.c_str()) : nullptr;
  const Json* r = specs != nullptr ? FieldOrNull(*specs, type.c_str()) : nullptr;
  return r != nullptr && r->is_object() ? r : nullptr;
}

std::vector<std::string> KubeflowJobKind::PresentTypes(const Json& job) const {
  std::vector<std::string> out;
  for (const KubeflowReplicaType& t : Traits().types) {
    if (ReplicaSpec(job, t.name) != nullptr) out.push_back(t.name);
  }
  return out;
}

std::string KubeflowJobKind::TypeOfSet(const std::string& set_name) const {
  for (const KubeflowReplicaType& t : Traits().types) {
    if (LowerAscii(t.name) == set_name) return t.name;
  }
  return "";
}

int64_t KubeflowJobKind::ReplicaCount(const Json& job, const std::string& type) const {
  const Json* r = ReplicaSpec(job, type);
  return r == nullptr ? 0 : std::max<int64_t>(0, IntAt(*r, "replicas", 1));
}

int64_t KubeflowJobKind::TotalReplicas(const Json& job) const {
  int64_t total = 0;
  for (const std::string& t : PresentTypes(job)) total += ReplicaCount(job, t);
  return total;
}

int64_t KubeflowJobKind::NamedPort(const Json& job, const std::string& type,
                                   const std::string& container, const std::string& port_name,
                                   int64_t fallback) const {
  const Json* r = ReplicaSpec(job, type);
  const Json* tmpl = r != nullptr ? FieldOrNull(*r, "template") : nullptr;
  const Json* spec = tmpl != nullptr ? FieldOrNull(*tmpl, "spec") : nullptr;
  const Json* containers = spec != nullptr ? FieldOrNull(*spec, "containers") : nullptr;
  if (containers == nullptr || !containers->is_array()) return fallback;
  for (const Json& c : *containers) {
    if (StrAt(c, "name") != container) continue;
    const Json* ports = FieldOrNull(c, "ports");
    if (ports == nullptr || !ports->is_array()) continue;
    for (const Json& p : *ports) {
      if (StrAt(p, "name") == port_name && IntAt(p, "containerPort", 0) > 0) {
        return IntAt(p, "containerPort", fallback);
      }
    }
  }
  return fallback;
}

std::string KubeflowJobKind::RestartPolicy(const Json& job, const std::string& type) const {
  std::string fallback;
  for (const KubeflowReplicaType& t : Traits().types) {
    if (t.name == type) fallback = t.default_restart_policy;
  }
  const Json* r = ReplicaSpec(job, type);
  const std::string rp = r != nullptr ? StrAt(*r, "restartPolicy") : "";
  return rp.empty() ? fallback : rp;
}

bool KubeflowJobKind::Observed(const std::vector<PodSetDef>& sets, const GroupObservation& seen,
                               const std::string& type, PodSetObservation* out,
                               int64_t* want) const {
  for (size_t i = 0; i < sets.size(); ++i) {
    if (sets[i].name != LowerAscii(type)) continue;
    *out = i < seen.sets.size() ? seen.sets[i] : PodSetObservation{};
    *want = sets[i].count;
    return true;
  }
  return false;
}

// ---- Validation ----

Status KubeflowJobKind::Validate(const Json& job) const {
  if (!job.is_object()) return InvalidValue("", job, "must be an object");
  KUOTA_RETURN_IF_ERROR(spec_.hooks.validate_name(*this, job));
  const Json* spec = FieldOrNull(job, "spec");
  if (spec == nullptr) return Required("spec");
  if (!spec->is_object()) return InvalidValue("spec", *spec, "must be an object");
  if (const Json* rp = FieldOrNull(*spec, "runPolicy"); rp != nullptr) {
    KUOTA_RETURN_IF_ERROR(CheckRunPolicy(*rp, "spec.runPolicy"));
  }
  const KubeflowTraits& traits = Traits();
  const Json* specs = FieldOrNull(*spec, traits.specs_field.c_str());
  if (specs == nullptr) return RequiredWhy(SpecsPath(), "must be required");
  if (!specs->is_object()) return InvalidValue(SpecsPath(), *specs, "must be an object");
  if (specs->empty()) return RequiredWhy(SpecsPath(), "must have replica specs");

  // Known types in Kueue's order, then any other key (sorted).
  std::vector<std::string> names;
  for (const KubeflowReplicaType& t : traits.types) names.push_back(t.name);
  std::vector<std::string> keys;
  for (const std::string& n : names) {
    if (specs->contains(n)) keys.push_back(n);
  }
  for (const auto& [k, v] : specs->items()) {
    if (!Contains(names, k)) keys.push_back(k);
  }
  for (const std::string& type : keys) {
    const std::string path = TypePath(type);
    if (!Contains(names, type)) return NotSupported(path, type, names);
    const Json& r = (*specs)[type];
    if (r.is_null()) return Required(path);
    if (!r.is_object()) return InvalidValue(path, r, "must be an object");
    Result<int64_t> replicas = IntField(r, "replicas", path, 1, 0);
    if (!replicas.ok()) return replicas.status();
    Result<std::string> rp = StringField(r, "restartPolicy", path);
    if (!rp.ok()) return rp.status();
    if (!rp.value().empty() && !Contains(traits.restart_policies, rp.value())) {
      return NotSupported(path + ".restartPolicy", rp.value(), traits.restart_policies);
    }
    Result<const Json*> tmpl = ObjectField(r, "template", path);
    if (!tmpl.ok()) return tmpl.status();
    KUOTA_RETURN_IF_ERROR(CheckPodTemplate(*tmpl.value(), path + ".template"));
    const std::string containers_path = path + ".template.spec.containers";
    const Json& containers = (*tmpl.value())["spec"]["containers"];
    bool named = false;
    for (size_t i = 0; i < containers.size(); ++i) {
      const Json& c = containers[i];
      if (traits.image_required && StrAt(c, "image").empty()) {
        return RequiredWhy(containers_path + "[" + std::to_string(i) + "].image",
                           "must be required");
      }
      named = named || StrAt(c, "name") == traits.default_container;
    }
    if (!traits.default_container.empty() && !named) {
      return RequiredWhy(containers_path,
                         "must have at least one container with name " +
                             (traits.quote_container_name ? Quoted(traits.default_container)
                                                          : traits.default_container));
    }
  }
  KUOTA_RETURN_IF_ERROR(spec_.hooks.validate_kind(*this, job));
  KUOTA_RETURN_IF_ERROR(ValidateTopology(job, traits.check_pod_set_groups));
  if (const Json* st = FieldOrNull(job, "status"); st != nullptr)
    KUOTA_RETURN_IF_ERROR(CheckStatus(*st));
  return Status::Ok();
}

// ---- Pod sets and pods ----

std::vector<PodSetDef> KubeflowJobKind::PodSets(const Json& job) const {
  const KubeflowTraits& traits = Traits();
  // Stages of the present types, ranked densely so the first one is 0.
  std::set<int> stages;
  for (const KubeflowReplicaType& t : traits.types) {
    if (ReplicaSpec(job, t.name) != nullptr) stages.insert(t.stage);
  }
  std::vector<PodSetDef> out;
  for (const KubeflowReplicaType& t : traits.types) {
    if (ReplicaSpec(job, t.name) == nullptr) continue;
    PodSetDef d;
    d.name = LowerAscii(t.name);
    d.template_path =
        Json::json_pointer("/spec/" + traits.specs_field + "/" + t.name + "/template");
    d.count = ReplicaCount(job, t.name);
    d.stage = static_cast<int>(std::distance(stages.begin(), stages.find(t.stage)));
    d.index_labels.pod_index_label = kKubeflowReplicaIndexLabel;
    out.push_back(std::move(d));
  }
  return out;
}

std::string KubeflowJobKind::TopologyMetadataPath(const PodSetDef& set) const {
  return SpecsPath() + "[" + TypeOfSet(set.name) + "].template.metadata";
}

Json::json_pointer KubeflowJobKind::SuspendPath() const {
  return Json::json_pointer("/spec/runPolicy/suspend");
}

void KubeflowJobKind::CustomizePod(const Json& job, const PodPosition& where, Json& pod) const {
  std::string set_name;
  if (where.sets != nullptr && where.set < where.sets->size()) {
    set_name = (*where.sets)[where.set].name;
  } else {
    std::vector<PodSetDef> sets = PodSets(job);
    if (where.set < sets.size()) set_name = sets[where.set].name;
  }
  const std::string type = TypeOfSet(set_name);
  if (type.empty()) return;
  // The replica's restartPolicy (OnFailure, ExitCode, ...) is applied by the
  // reconciler through OnPodEvent, so the pod itself never restarts in place.
  pod["spec"]["restartPolicy"] = "Never";
  const std::string job_name = JobName(job);
  if (!pod.is_object()) pod = Json::object();
  Json& meta = pod["metadata"];
  if (!meta.is_object()) meta = Json::object();
  Json& labels = meta["labels"];
  if (!labels.is_object()) labels = Json::object();
  labels[kKubeflowJobNameLabel] = job_name;
  labels[kKubeflowOperatorNameLabel] = Traits().operator_name;
  labels[kKubeflowReplicaTypeLabel] = LowerAscii(type);
  labels[kKubeflowReplicaIndexLabel] = std::to_string(where.index);
  if (spec_.hooks.is_master_role(*this, job, type, where.index))
    labels[kKubeflowJobRoleLabel] = "master";

  Json& spec = pod["spec"];
  if (!spec.is_object()) spec = Json::object();
  spec["hostname"] = job_name + "-" + LowerAscii(type) + "-" + std::to_string(where.index);
  const std::vector<EnvVar> env = spec_.hooks.pod_env(*this, job, where, type);
  auto containers = spec.find("containers");
  if (containers == spec.end() || !containers->is_array()) return;
  for (Json& c : *containers) {
    if (!c.is_object()) continue;
    Json& list = c["env"];
    if (!list.is_array()) list = Json::array();
    for (const auto& [name, value] : env) list.push_back({{"name", name}, {"value", value}});
  }
}

// ---- Status ----

Json KubeflowJobKind::NextStatus(const Json& job, const GroupObservation& seen) const {
  const Json* old = FieldOrNull(job, "status");
  Json st = old != nullptr && old->is_object() ? *old : Json::object();
  const std::string kind = Info().kind;
  const std::string name = JobName(job);
  const std::string& now = seen.now;
  Json conds =
      st.contains("conditions") && st["conditions"].is_array() ? st["conditions"] : Json::array();
  if (jobctl::FindCondition(conds, kCreated) == nullptr) {
    UpdateCondition(conds, kCreated, "True", kind + "Created", kind + " " + name + " is created.",
                    now);
  }

  const std::vector<PodSetDef> sets = PodSets(job);
  Json replicas = Json::object();
  bool all_up = !sets.empty();
  int64_t running = 0;
  std::string failed_note;  // "2 Worker replica(s) failed"
  for (size_t i = 0; i < sets.size(); ++i) {
    const PodSetObservation o = i < seen.sets.size() ? seen.sets[i] : PodSetObservation{};
    const std::string type = TypeOfSet(sets[i].name);
    Json r = Json::object();
    const int64_t active = seen.suspended ? 0 : o.running;
    if (active > 0) r["active"] = active;
    if (o.succeeded > 0) r["succeeded"] = o.succeeded;
    if (o.failed > 0) r["failed"] = o.failed;
    replicas[type] = std::move(r);
    all_up = all_up && o.running + o.succeeded >= sets[i].count;
    running += o.running;
    if (o.failed > 0 && failed_note.empty()) {
      failed_note = std::to_string(o.failed) + " " + type + " replica(s) failed";
    }
  }
  st["replicaStatuses"] = std::move(replicas);

  const bool finished =
      jobctl::IsConditionTrue(conds, kSucceeded) || jobctl::IsConditionTrue(conds, kFailed);
  if (!finished) {
    using Outcome = GroupObservation::Outcome;
    if (seen.outcome == Outcome::kSucceeded) {
      UpdateCondition(conds, kSucceeded, "True", kind + "Succeeded",
                      kind + " " + name + " is successfully completed.", now);
      if (!st.contains("completionTime")) st["completionTime"] = now;
    } else if (seen.outcome == Outcome::kFailed) {
      // The operators' own messages; the runtime's reason tells a backoff
      // limit apart.
      const std::string msg =
          seen.reason == "BackoffLimitExceeded"
              ? kind + " " + name + " has failed because it has reached the specified backoff limit"
              : kind + " " + name + " is failed" +
                    (failed_note.empty() ? "." : " because " + failed_note + ".");
      UpdateCondition(conds, kFailed, "True", kind + "Failed", msg, now);
      if (!st.contains("completionTime")) st["completionTime"] = now;
    } else if (seen.suspended) {
      const std::string msg = kind + " " + name + " is suspended.";
      if (jobctl::IsConditionTrue(conds, kRunning)) {
        UpdateCondition(conds, kRunning, "False", kind + "Suspended", msg, now);
      }
      UpdateCondition(conds, kSuspended, "True", kind + "Suspended", msg, now);
    } else {
      if (jobctl::IsConditionTrue(conds, kSuspended)) {
        UpdateCondition(conds, kSuspended, "False", kind + "Resumed",
                        kind + " " + name + " is resumed.", now);
        st["startTime"] = now;
      }
      if (!st.contains("startTime")) st["startTime"] = now;
      const int64_t old_restarts = Restarts(job);
      if (seen.restarting || seen.restarts > old_restarts) {
        const std::string msg = kind + " " + name + " is restarting" +
                                (failed_note.empty() ? "." : " because " + failed_note + ".");
        UpdateCondition(conds, kRestarting, "True", kind + "Restarting", msg, now);
      } else if (all_up && running > 0) {
        UpdateCondition(conds, kRunning, "True", kind + "Running",
                        kind + " " + name + " is running.", now);
      }
    }
  }
  if (seen.restarts > 0) st["restarts"] = seen.restarts;
  st["conditions"] = std::move(conds);
  return st;
}

int64_t KubeflowJobKind::Restarts(const Json& job) const {
  const Json* st = FieldOrNull(job, "status");
  return st != nullptr ? std::max<int64_t>(0, IntAt(*st, "restarts", 0)) : 0;
}

int64_t KubeflowJobKind::MaxRestarts(const Json& job) const {
  const Json* spec = FieldOrNull(job, "spec");
  const Json* rp = spec != nullptr ? FieldOrNull(*spec, "runPolicy") : nullptr;
  const int64_t fallback = Traits().default_backoff_limit;
  const int64_t limit = rp != nullptr ? IntAt(*rp, "backoffLimit", fallback) : fallback;
  return limit < 0 ? std::numeric_limits<int64_t>::max() : limit;
}

GroupAction KubeflowJobKind::OnPodEvent(const Json& job, const PodSetDef& set,
                                        PodEvent event) const {
  if (event == PodEvent::kSucceeded) return GroupAction::kNone;
  const std::string policy = RestartPolicy(job, TypeOfSet(set.name));
  if (policy == "Always" || policy == "OnFailure") return GroupAction::kRestartPod;
  if (policy == "ExitCode" && event == PodEvent::kEvicted) return GroupAction::kRestartPod;
  return GroupAction::kFailJob;
}

bool KubeflowJobKind::Succeeded(const Json& job, const std::vector<PodSetDef>& sets,
                                const GroupObservation& seen) const {
  return spec_.hooks.succeeded(*this, job, sets, seen);
}

std::string KubeflowJobKind::PodPriorityClass(const Json& job) const {
  const Json* spec = FieldOrNull(job, "spec");
  const Json* rp = spec != nullptr ? FieldOrNull(*spec, "runPolicy") : nullptr;
  const Json* sp = rp != nullptr ? FieldOrNull(*rp, "schedulingPolicy") : nullptr;
  const std::string pc = sp != nullptr ? StrAt(*sp, "priorityClass") : "";
  return !pc.empty() ? pc : GroupJobKind::PodPriorityClass(job);
}

bool KubeflowJobKind::IsFinished(const Json& job, bool* succeeded) const {
  const Json* st = FieldOrNull(job, "status");
  const Json* conds = st != nullptr ? FieldOrNull(*st, "conditions") : nullptr;
  if (conds == nullptr) return false;
  for (const char* type : {kSucceeded, kFailed}) {
    if (jobctl::IsConditionTrue(*conds, type)) {
      if (succeeded != nullptr) *succeeded = std::string(type) == kSucceeded;
      return true;
    }
  }
  return false;
}

bool KubeflowJobKind::PodsReady(const Json& job) const {
  if (IsSuspended(job)) return false;
  const Json* st = FieldOrNull(job, "status");
  const Json* rs = st != nullptr ? FieldOrNull(*st, "replicaStatuses") : nullptr;
  if (rs == nullptr || !rs->is_object()) return false;
  const std::vector<PodSetDef> sets = PodSets(job);
  for (const PodSetDef& set : sets) {
    const Json* r = FieldOrNull(*rs, TypeOfSet(set.name).c_str());
    const int64_t up = r != nullptr ? IntAt(*r, "active", 0) + IntAt(*r, "succeeded", 0) : 0;
    if (up < set.count) return false;
  }
  return !sets.empty();
}

PrinterColumn KubeflowStateColumn() {
  return {"State", "string", "", 0, [](const Json& job) -> Json {
            const Json* st = FieldOrNull(job, "status");
            const Json* conds = st != nullptr ? FieldOrNull(*st, "conditions") : nullptr;
            if (conds == nullptr || !conds->is_array() || conds->empty()) return nullptr;
            const Json& last = conds->back();
            const Json* type = FieldOrNull(last, "type");
            return type != nullptr && type->is_string() ? *type : Json(nullptr);
          }};
}

PrinterColumn KubeflowAgeColumn() {
  return {"Age", "date", "", 0, [](const Json& job) -> Json {
            const Json* meta = FieldOrNull(job, "metadata");
            const Json* ts = meta != nullptr ? FieldOrNull(*meta, "creationTimestamp") : nullptr;
            return ts != nullptr && ts->is_string() ? *ts : Json(nullptr);
          }};
}

}  // namespace kuota::jobs
