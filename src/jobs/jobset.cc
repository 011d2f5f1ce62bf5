#include "jobs/jobset.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>

#include "jobctl/job_conditions.h"
#include "jobs/job_fields.h"

namespace kuota::jobs {
namespace {

constexpr const char* kJobSetNameKey = "jobset.sigs.k8s.io/jobset-name";
constexpr const char* kReplicatedJobNameKey = "jobset.sigs.k8s.io/replicatedjob-name";
constexpr const char* kJobIndexKey = "jobset.sigs.k8s.io/job-index";
constexpr const char* kJobGlobalIndexKey = "jobset.sigs.k8s.io/job-global-index";
constexpr const char* kReplicatedJobReplicasKey = "jobset.sigs.k8s.io/replicatedjob-replicas";
constexpr const char* kGlobalReplicasKey = "jobset.sigs.k8s.io/global-replicas";
constexpr const char* kRestartsKey = "jobset.sigs.k8s.io/restart-attempt";
constexpr const char* kJobSetUidKey = "jobset.sigs.k8s.io/jobset-uid";
constexpr const char* kCoordinatorKey = "jobset.sigs.k8s.io/coordinator";
constexpr const char* kCompletionIndexKey = "batch.kubernetes.io/job-completion-index";

const std::vector<std::string>& FailureActions() {
  static const std::vector<std::string> kActions = {"FailJobSet", "RestartJobSet",
                                                    "RestartJobSetAndIgnoreMaxRestarts",
                                                    "RestartJob", "RestartJobAndIgnoreMaxRestarts"};
  return kActions;
}
const std::vector<std::string>& FailureReasons() {
  static const std::vector<std::string> kReasons = {"BackoffLimitExceeded", "DeadlineExceeded",
                                                    "FailedIndexes", "MaxFailedIndexesExceeded",
                                                    "PodFailurePolicy"};
  return kReasons;
}

const Json& RJobs(const Json& job) { return ArrAt(SpecOf(job), "replicatedJobs"); }
const Json& RJob(const Json& job, size_t i) {
  const Json& r = RJobs(job);
  return i < r.size() && r[i].is_object() ? r[i] : EmptyObject();
}
// The Job spec of a replicated job (template.spec).
const Json& JobSpec(const Json& rjob) { return ObjAt(ObjAt(rjob, "template"), "spec"); }
int64_t Replicas(const Json& rjob) { return std::max<int64_t>(0, IntAt(rjob, "replicas", 1)); }
size_t RJobIndex(const Json& job, const std::string& name) {
  for (size_t i = 0; i < RJobs(job).size(); ++i) {
    if (StrAt(RJob(job, i), "name") == name) return i;
  }
  return RJobs(job).size();
}
bool Indexed(const Json& rjob) {
  const std::string mode = StrAt(JobSpec(rjob), "completionMode");
  return mode.empty() || mode == "Indexed";  // JobSet defaults it to Indexed
}
bool HasFailurePolicy(const Json& job) {
  return SpecOf(job).contains("failurePolicy") && SpecOf(job)["failurePolicy"].is_object();
}

// A condition as metav1.Condition has it (no lastUpdateTime).
Json JobSetCondition(const std::string& type, const std::string& status, const std::string& reason,
                     const std::string& message, const std::string& now) {
  Json c = MakeCondition(type, status, reason, message, now);
  c.erase("lastUpdateTime");
  return c;
}

// Whether the JobSet's status holds condition `type` with status True.
bool StatusConditionTrue(const Json& job, const std::string& type) {
  return jobctl::IsConditionTrue(ArrAt(ObjAt(job, "status"), "conditions"), type);
}

// The stage of each replicated job: InOrder starts each after the one before;
// dependsOn starts one after the job it names.
std::vector<int> Stages(const Json& job) {
  const size_t n = RJobs(job).size();
  std::vector<int> stage(n, 0);
  const bool in_order =
      StrAt(ObjAt(SpecOf(job), "startupPolicy"), "startupPolicyOrder") == "InOrder";
  for (size_t i = 0; i < n; ++i) {
    if (in_order) {
      stage[i] = static_cast<int>(i);
      continue;
    }
    for (const Json& d : ArrAt(RJob(job, i), "dependsOn")) {
      const size_t dep = RJobIndex(job, StrAt(d, "name"));
      if (dep < i) stage[i] = std::max(stage[i], stage[dep] + 1);
    }
  }
  return stage;
}

Status CheckTargets(const Json& obj, const std::string& path, const std::set<std::string>& names,
                    const std::string& where) {
  auto t = obj.find("targetReplicatedJobs");
  if (t == obj.end() || t->is_null()) return Status::Ok();
  if (!t->is_array()) return InvalidValue(path + ".targetReplicatedJobs", *t, "must be an array");
  for (size_t i = 0; i < t->size(); ++i) {
    const Json& n = (*t)[i];
    if (!n.is_string() || !names.count(n.get<std::string>())) {
      return InvalidValue(path + ".targetReplicatedJobs[" + std::to_string(i) + "]", n,
                          "invalid replicatedJob name " + n.dump() + where +
                              " does not appear in .spec.ReplicatedJobs");
    }
  }
  return Status::Ok();
}

bool RuleNameValid(const std::string& name) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto alnum_ = [&](char c) { return alpha(c) || (c >= '0' && c <= '9') || c == '_'; };
  if (name.empty() || name.size() > 128 || !alpha(name.front()) || !alnum_(name.back())) {
    return false;
  }
  for (char c : name) {
    if (!alnum_(c) && c != ',' && c != ':') return false;
  }
  return true;
}

Status CheckFailurePolicy(const Json& spec, const std::set<std::string>& names) {
  auto fp = spec.find("failurePolicy");
  if (fp == spec.end() || fp->is_null()) return Status::Ok();
  const std::string path = "spec.failurePolicy";
  if (!fp->is_object()) return InvalidValue(path, *fp, "must be an object");
  KUOTA_RETURN_IF_ERROR(IntField(*fp, "maxRestarts", path, 0, 0).status());
  KUOTA_ASSIGN_OR_RETURN(std::string strategy, StringField(*fp, "restartStrategy", path));
  if (!strategy.empty() &&
      !Contains({"Recreate", "BlockingRecreate", "InPlaceRestart"}, strategy)) {
    return NotSupportedValue(path + ".restartStrategy", strategy,
                             {"Recreate", "BlockingRecreate", "InPlaceRestart"});
  }
  auto rules = fp->find("rules");
  if (rules == fp->end() || rules->is_null()) return Status::Ok();
  if (!rules->is_array()) return InvalidValue(path + ".rules", *rules, "must be an array");
  std::set<std::string> rule_names;
  for (size_t i = 0; i < rules->size(); ++i) {
    const Json& r = (*rules)[i];
    const std::string at = path + ".rules[" + std::to_string(i) + "]";
    if (!r.is_object()) return InvalidValue(at, r, "must be an object");
    KUOTA_ASSIGN_OR_RETURN(std::string name, StringField(r, "name", at));
    if (!name.empty()) {  // empty names are defaulted to failurePolicyRule<i>
      if (!RuleNameValid(name)) {
        return InvalidValue(at + ".name", name,
                            "a failure policy rule name must start with an alphabetic character, "
                            "optionally followed by a string of alphanumeric characters or "
                            "'_,:', and must end with an alphanumeric character or '_'");
      }
      if (!rule_names.insert(name).second) {
        return Status::Invalid(at + ".name: Duplicate value: " + Quoted(name));
      }
    }
    KUOTA_ASSIGN_OR_RETURN(std::string action, StringField(r, "action", at));
    if (action.empty()) return Required(at + ".action");
    if (!Contains(FailureActions(), action)) {
      return NotSupportedValue(at + ".action", action, FailureActions());
    }
    KUOTA_RETURN_IF_ERROR(CheckTargets(r, at, names, " in failure policy"));
    const Json& reasons = ArrAt(r, "onJobFailureReasons");
    for (size_t j = 0; j < reasons.size(); ++j) {
      const std::string reason = reasons[j].is_string() ? reasons[j].get<std::string>() : "";
      if (!Contains(FailureReasons(), reason)) {
        return NotSupportedValue(at + ".onJobFailureReasons[" + std::to_string(j) + "]", reason,
                                 FailureReasons());
      }
    }
  }
  return Status::Ok();
}

}  // namespace

int64_t JobSetKind::PodsPerJob(const Json& rjob) {
  const Json& spec = JobSpec(rjob);
  const int64_t parallelism = std::max<int64_t>(0, IntAt(spec, "parallelism", 1));
  const int64_t completions = IntAt(spec, "completions", parallelism);
  return std::max<int64_t>(0, std::min(parallelism, completions));
}

const KindInfo& JobSetKind::Info() const {
  static const KindInfo kInfo =
      CrdKindInfo("jobset.x-k8s.io", "v1alpha2", "JobSet", "jobset",
                  {.columns = {
                       {"TerminalState", "string", "Final state of JobSet", 0,
                        [](const Json& job) -> Json {
                          std::string s = StrAt(ObjAt(job, "status"), "terminalState");
                          return s.empty() ? Json() : Json(s);
                        }},
                       {"Restarts", "string", "Number of restarts", 0,
                        [](const Json& job) -> Json {
                          const Json& st = ObjAt(job, "status");
                          return st.contains("restarts") ? st["restarts"] : Json();
                        }},
                       {"Completed", "string", "", 0,
                        [](const Json& job) -> Json {
                          for (const Json& c : ArrAt(ObjAt(job, "status"), "conditions")) {
                            if (StrAt(c, "type") == "Completed") return StrAt(c, "status");
                          }
                          return nullptr;
                        }},
                       {"Suspended", "string", "JobSet suspended", 0,
                        [](const Json& job) -> Json {
                          auto s = SpecOf(job).find("suspend");
                          if (s == SpecOf(job).end() || !s->is_boolean()) return nullptr;
                          return s->get<bool>() ? "true" : "false";
                        }},
                       {"Age", "date", "Time this JobSet was created", 0,
                        [](const Json& job) -> Json {
                          const Json& m = ObjAt(job, "metadata");
                          return m.contains("creationTimestamp") ? m["creationTimestamp"] : Json();
                        }},
                   }});
  return kInfo;
}

Status JobSetKind::Validate(const Json& job) const {
  if (!job.is_object()) return InvalidValue("", job, "must be an object");
  KUOTA_ASSIGN_OR_RETURN(const Json* spec_ptr, ObjectField(job, "spec", ""));
  const Json& spec = *spec_ptr;
  if (auto s = spec.find("suspend"); s != spec.end() && !s->is_null() && !s->is_boolean()) {
    return InvalidValue("spec.suspend", *s, "must be a boolean");
  }
  KUOTA_RETURN_IF_ERROR(IntField(spec, "ttlSecondsAfterFinished", "spec", 0, 0).status());
  auto rjobs = spec.find("replicatedJobs");
  if (rjobs == spec.end() || rjobs->is_null() || (rjobs->is_array() && rjobs->empty())) {
    return Required("spec.replicatedJobs");
  }
  if (!rjobs->is_array()) return InvalidValue("spec.replicatedJobs", *rjobs, "must be an array");
  const std::string js_name = JobName(job);
  std::set<std::string> names;
  for (size_t i = 0; i < rjobs->size(); ++i) {
    const Json& r = (*rjobs)[i];
    const std::string at = "spec.replicatedJobs[" + std::to_string(i) + "]";
    if (!r.is_object()) return InvalidValue(at, r, "must be an object");
    KUOTA_ASSIGN_OR_RETURN(std::string name, StringField(r, "name", at));
    if (name.empty()) return Required(at + ".name");
    if (std::string why = CheckDns1123(name); !why.empty()) {
      return InvalidValue(at + ".name", name, why);
    }
    if (!names.insert(name).second) {
      return Status::Invalid(at + ".name: Duplicate value: " + Quoted(name));
    }
    KUOTA_ASSIGN_OR_RETURN(int64_t replicas, IntField(r, "replicas", at, 1, 0));
    KUOTA_RETURN_IF_ERROR(StringField(r, "groupName", at).status());
    KUOTA_ASSIGN_OR_RETURN(const Json* tmpl, ObjectField(r, "template", at));
    KUOTA_ASSIGN_OR_RETURN(const Json* jspec, ObjectField(*tmpl, "spec", at + ".template"));
    const std::string jat = at + ".template.spec";
    KUOTA_ASSIGN_OR_RETURN(int64_t parallelism, IntField(*jspec, "parallelism", jat, 1, 0));
    KUOTA_ASSIGN_OR_RETURN(int64_t completions, IntField(*jspec, "completions", jat, -1, 0));
    KUOTA_RETURN_IF_ERROR(IntField(*jspec, "backoffLimit", jat, 6, 0).status());
    KUOTA_ASSIGN_OR_RETURN(std::string mode, StringField(*jspec, "completionMode", jat));
    if (!mode.empty() && mode != "Indexed" && mode != "NonIndexed") {
      return NotSupportedValue(jat + ".completionMode", mode, {"NonIndexed", "Indexed"});
    }
    if (parallelism * replicas > INT32_MAX) {
      return InvalidValue(at + ".replicas", replicas,
                          "the product of replicas and parallelism must not exceed " +
                              std::to_string(INT32_MAX) + " for replicatedJob '" + name + "'");
    }
    auto ptmpl = jspec->find("template");
    if (ptmpl == jspec->end() || ptmpl->is_null()) return Required(jat + ".template");
    KUOTA_RETURN_IF_ERROR(CheckPodTemplate(*ptmpl, jat + ".template"));
    const std::string rp = StrAt(ObjAt(*ptmpl, "spec"), "restartPolicy");
    if (!rp.empty() && rp != "OnFailure" && rp != "Never") {
      return NotSupportedValue(jat + ".template.spec.restartPolicy", rp, {"OnFailure", "Never"});
    }
    if (!js_name.empty()) {
      const std::string last_job =
          js_name + "-" + name + "-" + std::to_string(std::max<int64_t>(replicas - 1, 0));
      if (last_job.size() > kMaxLabelLength) {
        return InvalidValue(at + ".name", name,
                            "JobSet name is too long, job names generated for this JobSet will "
                            "exceed 63 characters");
      }
      if ((mode.empty() || mode == "Indexed") && completions > 0) {
        const std::string last_pod = last_job + "-" + std::to_string(completions - 1) + "-abcde";
        if (last_pod.size() > kMaxLabelLength) {
          return InvalidValue(at + ".name", name,
                              "JobSet name is too long, pod names generated for this JobSet will "
                              "exceed 63 characters");
        }
      }
    }
    if (auto d = r.find("dependsOn"); d != r.end() && !d->is_null()) {
      if (!d->is_array()) return InvalidValue(at + ".dependsOn", *d, "must be an array");
      if (i == 0) {
        return Status::Invalid(at +
                               ".dependsOn: Forbidden: DependsOn can't be set for the "
                               "first ReplicatedJob");
      }
      if (d->size() > 1) {
        return Status::Invalid(at + ".dependsOn: Too many: " + std::to_string(d->size()) +
                               ": must have at most 1 items");
      }
      for (size_t j = 0; j < d->size(); ++j) {
        const std::string dat = at + ".dependsOn[" + std::to_string(j) + "]";
        const Json& dep = (*d)[j];
        if (!dep.is_object()) return InvalidValue(dat, dep, "must be an object");
        const std::string dname = StrAt(dep, "name");
        if (!names.count(dname) || dname == name) {
          return InvalidValue(
              dat + ".name", dep.value("name", Json()),
              "replicatedJob: " + name + " cannot depend on replicatedJob: " + dname);
        }
        const std::string status = StrAt(dep, "status");
        if (status != "Ready" && status != "Complete") {
          return NotSupportedValue(dat + ".status", status, {"Ready", "Complete"});
        }
      }
    }
  }

  if (auto sp = spec.find("successPolicy"); sp != spec.end() && !sp->is_null()) {
    if (!sp->is_object()) return InvalidValue("spec.successPolicy", *sp, "must be an object");
    KUOTA_ASSIGN_OR_RETURN(std::string op, StringField(*sp, "operator", "spec.successPolicy"));
    if (op.empty()) return Required("spec.successPolicy.operator");
    if (op != "All" && op != "Any") {
      return NotSupportedValue("spec.successPolicy.operator", op, {"All", "Any"});
    }
    KUOTA_RETURN_IF_ERROR(CheckTargets(*sp, "spec.successPolicy", names, ""));
  }
  KUOTA_RETURN_IF_ERROR(CheckFailurePolicy(spec, names));
  if (auto su = spec.find("startupPolicy"); su != spec.end() && !su->is_null()) {
    if (!su->is_object()) return InvalidValue("spec.startupPolicy", *su, "must be an object");
    const std::string order = StrAt(*su, "startupPolicyOrder");
    if (order != "AnyOrder" && order != "InOrder") {
      return NotSupportedValue("spec.startupPolicy.startupPolicyOrder", order,
                               {"AnyOrder", "InOrder"});
    }
    if (order == "InOrder") {
      for (const Json& r : *rjobs) {
        if (r.contains("dependsOn") && !r["dependsOn"].is_null()) {
          return InvalidValue("spec", "InOrder",
                              "StartupPolicy and DependsOn APIs are mutually exclusive");
        }
      }
    }
  }
  if (auto net = spec.find("network"); net != spec.end() && !net->is_null()) {
    if (!net->is_object()) return InvalidValue("spec.network", *net, "must be an object");
    KUOTA_ASSIGN_OR_RETURN(std::string sub, StringField(*net, "subdomain", "spec.network"));
    if (!sub.empty()) {
      if (std::string why = CheckDns1123(sub); !why.empty()) {
        return InvalidValue("spec.network.subdomain", sub, why);
      }
    }
    for (const char* f : {"enableDNSHostnames", "publishNotReadyAddresses"}) {
      auto b = net->find(f);
      if (b != net->end() && !b->is_null() && !b->is_boolean()) {
        return InvalidValue(std::string("spec.network.") + f, *b, "must be a boolean");
      }
    }
  }
  if (auto co = spec.find("coordinator"); co != spec.end() && !co->is_null()) {
    if (!co->is_object()) return InvalidValue("spec.coordinator", *co, "must be an object");
    const std::string rj = StrAt(*co, "replicatedJob");
    const size_t idx = RJobIndex(job, rj);
    if (idx >= RJobs(job).size()) {
      return InvalidValue("spec.coordinator.replicatedJob", rj, "replicatedJob does not exist");
    }
    KUOTA_ASSIGN_OR_RETURN(int64_t ji, IntField(*co, "jobIndex", "spec.coordinator", 0, 0));
    KUOTA_ASSIGN_OR_RETURN(int64_t pi, IntField(*co, "podIndex", "spec.coordinator", 0, 0));
    if (ji >= Replicas(RJob(job, idx))) {
      return InvalidValue("spec.coordinator.jobIndex", ji, "jobIndex is out of range");
    }
    if (pi >= PodsPerJob(RJob(job, idx))) {
      return InvalidValue("spec.coordinator.podIndex", pi, "podIndex is out of range");
    }
  }
  // Kueue's webhook: the topology annotations and the pod set groups.
  return ValidateTopology(job, true);
}

void JobSetKind::Default(Json& job) const {
  if (job.contains("spec") && job["spec"].is_object()) {
    Json& spec = job["spec"];
    if (!spec.contains("successPolicy") || spec["successPolicy"].is_null()) {
      spec["successPolicy"] = {{"operator", "All"}};
    }
    if (!spec.contains("startupPolicy") || spec["startupPolicy"].is_null()) {
      spec["startupPolicy"] = {{"startupPolicyOrder", "AnyOrder"}};
    }
    if (!spec.contains("network") || !spec["network"].is_object()) spec["network"] = Json::object();
    for (const char* f : {"enableDNSHostnames", "publishNotReadyAddresses"}) {
      if (!spec["network"].contains(f) || spec["network"][f].is_null()) spec["network"][f] = true;
    }
    if (spec.contains("replicatedJobs") && spec["replicatedJobs"].is_array()) {
      for (Json& r : spec["replicatedJobs"]) {
        if (!r.is_object() || !r.contains("template") || !r["template"].is_object()) continue;
        Json& jspec = r["template"]["spec"];
        if (!jspec.is_object()) continue;
        if (StrAt(jspec, "completionMode").empty()) jspec["completionMode"] = "Indexed";
        Json& pt = jspec["template"];
        if (pt.is_object() && pt.contains("spec") && pt["spec"].is_object() &&
            StrAt(pt["spec"], "restartPolicy").empty()) {
          pt["spec"]["restartPolicy"] = "OnFailure";
        }
      }
    }
    if (spec.contains("failurePolicy") && spec["failurePolicy"].is_object() &&
        spec["failurePolicy"].contains("rules") && spec["failurePolicy"]["rules"].is_array()) {
      Json& rules = spec["failurePolicy"]["rules"];
      for (size_t i = 0; i < rules.size(); ++i) {
        if (rules[i].is_object() && StrAt(rules[i], "name").empty()) {
          rules[i]["name"] = "failurePolicyRule" + std::to_string(i);
        }
      }
    }
  }
}

std::vector<PodSetDef> JobSetKind::PodSets(const Json& job) const {
  std::vector<PodSetDef> sets;
  const std::vector<int> stages = Stages(job);
  for (size_t i = 0; i < RJobs(job).size(); ++i) {
    const Json& r = RJob(job, i);
    PodSetDef s;
    s.name = StrAt(r, "name");
    s.template_path =
        Json::json_pointer("/spec/replicatedJobs/" + std::to_string(i) + "/template/spec/template");
    s.count = Replicas(r) * PodsPerJob(r);
    s.stage = stages[i];
    // Pods numbered within their Job, Jobs within the replicated job.
    s.index_labels = {kCompletionIndexKey, kJobIndexKey, Replicas(r)};
    sets.push_back(std::move(s));
  }
  return sets;
}

std::string JobSetKind::PodName(const Json& job, const PodSetDef& set, int64_t index) const {
  const int64_t per_job = std::max<int64_t>(1, PodsPerJob(RJob(job, RJobIndex(job, set.name))));
  return JobName(job) + "-" + set.name + "-" + std::to_string(index / per_job) + "-" +
         std::to_string(index % per_job);
}

void JobSetKind::CustomizePod(const Json& job, const PodPosition& where, Json& pod) const {
  const Json& rjob = RJob(job, where.set);
  const std::string js = JobName(job);
  const std::string rname = StrAt(rjob, "name");
  const int64_t per_job = std::max<int64_t>(1, PodsPerJob(rjob));
  const int64_t job_index = where.index / per_job;
  const int64_t pod_index = where.index % per_job;
  int64_t global_index = job_index, global_replicas = 0;
  for (size_t i = 0; i < RJobs(job).size(); ++i) {
    global_replicas += Replicas(RJob(job, i));
    if (i < where.set) global_index += Replicas(RJob(job, i));
  }
  const std::string job_name = js + "-" + rname + "-" + std::to_string(job_index);
  const std::string uid = StrAt(ObjAt(job, "metadata"), "uid");

  std::map<std::string, std::string> marks = {
      {kJobSetNameKey, js},
      {kReplicatedJobNameKey, rname},
      {kJobIndexKey, std::to_string(job_index)},
      {kJobGlobalIndexKey, std::to_string(global_index)},
      {kReplicatedJobReplicasKey, std::to_string(Replicas(rjob))},
      {kGlobalReplicasKey, std::to_string(global_replicas)},
      {kRestartsKey, std::to_string(Restarts(job))},
  };
  if (!uid.empty()) marks[kJobSetUidKey] = uid;
  const Json& co = ObjAt(SpecOf(job), "coordinator");
  if (!co.empty()) marks[kCoordinatorKey] = where.address;  // the coordinator's endpoint
  Json& labels = pod["metadata"]["labels"];
  Json& annotations = pod["metadata"]["annotations"];
  for (const auto& [k, v] : marks) {
    labels[k] = v;
    annotations[k] = v;
  }
  labels["batch.kubernetes.io/job-name"] = job_name;
  labels["job-name"] = job_name;

  std::vector<std::pair<std::string, std::string>> env;
  if (Indexed(rjob)) {
    labels[kCompletionIndexKey] = std::to_string(pod_index);
    annotations[kCompletionIndexKey] = std::to_string(pod_index);
    env.emplace_back("JOB_COMPLETION_INDEX", std::to_string(pod_index));
  }
  if (!pod.contains("spec") || !pod["spec"].is_object()) pod["spec"] = Json::object();
  const Json& net = ObjAt(SpecOf(job), "network");
  auto dns = net.find("enableDNSHostnames");
  const bool dns_hostnames = dns == net.end() || !dns->is_boolean() || dns->get<bool>();
  if (dns_hostnames && Indexed(rjob)) {
    pod["spec"]["hostname"] = job_name + "-" + std::to_string(pod_index);
    const std::string sub = StrAt(net, "subdomain");
    pod["spec"]["subdomain"] = sub.empty() ? js : sub;
  }
  AppendEnv(pod, env);
}

GroupAction JobSetKind::OnPodEvent(const Json& job, const PodSetDef& set, PodEvent event) const {
  if (event == PodEvent::kSucceeded) return GroupAction::kNone;
  if (!HasFailurePolicy(job)) return GroupAction::kFailJob;  // any Job failure fails the set
  for (const Json& rule : ArrAt(ObjAt(SpecOf(job), "failurePolicy"), "rules")) {
    const Json& targets = ArrAt(rule, "targetReplicatedJobs");
    if (!targets.empty() &&
        std::find(targets.begin(), targets.end(), Json(set.name)) == targets.end()) {
      continue;
    }
    const Json& reasons = ArrAt(rule, "onJobFailureReasons");
    if (!reasons.empty() &&
        std::find(reasons.begin(), reasons.end(), Json("BackoffLimitExceeded")) == reasons.end()) {
      continue;
    }
    const std::string action = StrAt(rule, "action");
    if (action == "FailJobSet") return GroupAction::kFailJob;
    if (action == "RestartJob" || action == "RestartJobAndIgnoreMaxRestarts") {
      return GroupAction::kRestartPod;
    }
    return GroupAction::kRestartJob;
  }
  return GroupAction::kRestartJob;
}

bool JobSetKind::Succeeded(const Json& job, const std::vector<PodSetDef>& sets,
                           const GroupObservation& seen) const {
  const Json& sp = ObjAt(SpecOf(job), "successPolicy");
  const bool any = StrAt(sp, "operator") == "Any";
  const Json& targets = ArrAt(sp, "targetReplicatedJobs");
  bool all_done = true, any_done = false, considered = false;
  for (size_t i = 0; i < sets.size() && i < seen.sets.size(); ++i) {
    if (!targets.empty() &&
        std::find(targets.begin(), targets.end(), Json(sets[i].name)) == targets.end()) {
      continue;
    }
    considered = true;
    const int64_t per_job = PodsPerJob(RJob(job, i));
    if (seen.sets[i].succeeded < sets[i].count) all_done = false;
    if (per_job > 0 && seen.sets[i].succeeded >= per_job) any_done = true;
  }
  if (!considered) return false;
  return any ? any_done : all_done;
}

Json JobSetKind::NextStatus(const Json& job, const GroupObservation& seen) const {
  const Json old = ObjAt(job, "status");
  Json st = old;
  const std::vector<PodSetDef> sets = PodSets(job);
  Json rstatus = Json::array();
  bool all_up = true;
  for (size_t i = 0; i < sets.size(); ++i) {
    const Json& r = RJob(job, i);
    const int64_t replicas = Replicas(r);
    const int64_t per_job = PodsPerJob(r);
    const PodSetObservation o = i < seen.sets.size() ? seen.sets[i] : PodSetObservation{};
    int64_t succeeded = 0, failed = 0, ready = 0, active = 0;
    if (per_job > 0) {
      auto jobs_of = [per_job](int64_t pods) { return (pods + per_job - 1) / per_job; };
      succeeded = std::min(replicas, o.succeeded / per_job);
      failed = std::min(replicas - succeeded, jobs_of(o.failed));
      const int64_t left = replicas - succeeded - failed;
      ready = std::min(left, (o.running + o.succeeded - succeeded * per_job) / per_job);
      active = seen.suspended ? 0 : std::min(left, jobs_of(o.pending + o.running));
    }
    if (o.running + o.succeeded < sets[i].count) all_up = false;
    rstatus.push_back({{"name", sets[i].name},
                       {"ready", ready},
                       {"succeeded", succeeded},
                       {"failed", failed},
                       {"active", active},
                       {"suspended", seen.suspended ? replicas : 0}});
  }
  st["replicatedJobsStatus"] = rstatus;
  st["restarts"] = seen.restarts;
  if (seen.restarts > 0) {
    st["restartsCountTowardsMax"] = seen.restarts;
  } else {
    st.erase("restartsCountTowardsMax");
  }

  const bool finished = StatusConditionTrue(job, "Completed") || StatusConditionTrue(job, "Failed");
  Json conds = old.contains("conditions") ? old["conditions"] : Json::array();
  if (!finished) {
    if (seen.outcome == GroupObservation::Outcome::kSucceeded) {
      SetCondition(conds, JobSetCondition("Completed", "True", "AllJobsCompleted",
                                          "jobset completed successfully", seen.now));
      st["terminalState"] = "Completed";
    } else if (seen.outcome == GroupObservation::Outcome::kFailed) {
      std::string reason = "FailedJobs", message = "jobset failed due to one or more job failures";
      if (HasFailurePolicy(job)) {
        if (seen.restarts >= MaxRestarts(job)) {
          reason = "ReachedMaxRestarts";
          message = "jobset failed due to reaching max number of restarts";
        } else {
          reason = "FailJobSetFailurePolicyAction";
          message = "applying FailJobSet failure policy action";
        }
      }
      SetCondition(conds, JobSetCondition("Failed", "True", reason, message, seen.now));
      st["terminalState"] = "Failed";
    }
    if (seen.suspended) {
      SetCondition(conds, JobSetCondition("Suspended", "True", "SuspendedJobs",
                                          "jobset is suspended", seen.now));
    } else if (jobctl::FindCondition(conds, "Suspended") != nullptr) {
      SetCondition(conds, JobSetCondition("Suspended", "False", "ResumeJobs", "jobset is resumed",
                                          seen.now));
    }
    const bool in_order =
        StrAt(ObjAt(SpecOf(job), "startupPolicy"), "startupPolicyOrder") == "InOrder";
    if (in_order && !seen.suspended && seen.outcome == GroupObservation::Outcome::kRunning &&
        !seen.restarting) {
      if (all_up) {
        SetCondition(conds, JobSetCondition("StartupPolicyInProgress", "False",
                                            "InOrderStartupPolicyCompleted",
                                            "in order startup policy has completed", seen.now));
        SetCondition(conds, JobSetCondition("StartupPolicyCompleted", "True",
                                            "InOrderStartupPolicyCompleted",
                                            "in order startup policy has completed", seen.now));
      } else if (!StatusConditionTrue(job, "StartupPolicyCompleted")) {
        SetCondition(conds, JobSetCondition("StartupPolicyInProgress", "True",
                                            "InOrderStartupPolicyInProgress",
                                            "in order startup policy is in progress", seen.now));
      }
    }
  }
  if (conds.empty()) {
    st.erase("conditions");
  } else {
    st["conditions"] = conds;
  }
  return st;
}

int64_t JobSetKind::MaxRestarts(const Json& job) const {
  return std::max<int64_t>(0, IntAt(ObjAt(SpecOf(job), "failurePolicy"), "maxRestarts", 0));
}

bool JobSetKind::IsFinished(const Json& job, bool* succeeded) const {
  if (StatusConditionTrue(job, "Completed")) {
    if (succeeded != nullptr) *succeeded = true;
    return true;
  }
  if (StatusConditionTrue(job, "Failed")) {
    if (succeeded != nullptr) *succeeded = false;
    return true;
  }
  return false;
}

bool JobSetKind::PodsReady(const Json& job) const {
  const Json& st = ObjAt(job, "status");
  if (!st.contains("replicatedJobsStatus") || IsSuspended(job)) return false;
  int64_t want = 0, have = 0;
  for (size_t i = 0; i < RJobs(job).size(); ++i) want += Replicas(RJob(job, i));
  for (const Json& r : ArrAt(st, "replicatedJobsStatus")) {
    have += IntAt(r, "ready", 0) + IntAt(r, "succeeded", 0);
  }
  return have == want;
}

}  // namespace kuota::jobs
