#include "control/provisioning_controller.h"

#include <cstdio>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "jobs/job_kind.h"
#include "server/json_fields.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

constexpr const char* kPcWorkloads = "workloads.kueue.x-k8s.io";
constexpr const char* kPcChecks = "admissionchecks.kueue.x-k8s.io";
constexpr const char* kPcConfigs = "provisioningrequestconfigs.kueue.x-k8s.io";
constexpr const char* kPcClusterQueues = "clusterqueues.kueue.x-k8s.io";
constexpr const char* kPcFlavors = "resourceflavors.kueue.x-k8s.io";
constexpr const char* kPcRequests = "provisioningrequests.autoscaling.x-k8s.io";
constexpr const char* kPcPodTemplates = "podtemplates";
constexpr const char* kPcManagedLabel = "kueue.x-k8s.io/managed";

// The uid of `object`'s controller owner of `kind`; empty when none.
std::string PcControllerUid(const Json& object, const char* kind) {
  const Json& owners = server::FieldValue(object, {"metadata", "ownerReferences"});
  if (!owners.is_array()) return {};
  for (const Json& o : owners) {
    if (o.value("controller", false) && server::StringField(o, {"kind"}) == kind) {
      return server::StringField(o, {"uid"});
    }
  }
  return {};
}

// Every object of `resource` (all namespaces); an unserved kind lists empty.
Result<std::vector<Json>> PcList(store::ObjectStore& store, const char* resource) {
  std::vector<Json> out;
  store::ListOptions opts;
  opts.limit = 500;
  opts.count_remaining = false;
  for (;;) {
    Result<store::ListResult> page = store.List(resource, opts);
    if (!page.ok()) {
      if (page.status().code() == StatusCode::kNotFound) return out;
      return page.status();
    }
    for (Json& item : page->items) out.push_back(std::move(item));
    if (page->continue_token.empty()) return out;
    opts.continue_token = page->continue_token;
  }
}

Json PcInvolved(const Json& object, const char* api_version, const char* kind) {
  return {{"apiVersion", api_version},
          {"kind", kind},
          {"name", server::StringField(object, {"metadata", "name"})},
          {"namespace", server::StringField(object, {"metadata", "namespace"})},
          {"uid", server::StringField(object, {"metadata", "uid"})}};
}

// Kueue's ConfigHelper.ConfigFromRef: the config an AdmissionCheck's
// parameters name, or the error its Active condition reports.
Result<const Json*> PcConfigOf(const Json& check, const std::map<std::string, Json>& configs) {
  const Json& ref = server::FieldValue(check, {"spec", "parameters"});
  if (!ref.is_object()) return Status::Invalid("missing parameters reference");
  const std::string group = server::StringField(ref, {"apiGroup"}),
                    kind = server::StringField(ref, {"kind"});
  const std::string name = server::StringField(ref, {"name"});
  if (name.empty()) return Status::Invalid("empty name: bad parameters reference");
  if (group != "kueue.x-k8s.io") {
    return Status::Invalid("wrong group \"" + group +
                           "\", expecting \"kueue.x-k8s.io\": bad parameters reference");
  }
  if (kind != "ProvisioningRequestConfig") {
    return Status::Invalid("wrong kind \"" + kind +
                           "\", expecting \"ProvisioningRequestConfig\": bad parameters reference");
  }
  auto it = configs.find(name);
  if (it == configs.end()) {
    return Status::NotFound("provisioningrequestconfigs.kueue.x-k8s.io \"" + name + "\" not found");
  }
  return &it->second;
}

// Copies each container's limits into its requests where a request is
// missing (Kueue's UseLimitsAsMissingRequestsInPod).
void PcLimitsAsRequests(Json& pod_spec) {
  for (const char* f : {"initContainers", "containers"}) {
    auto list = pod_spec.find(f);
    if (list == pod_spec.end() || !list->is_array()) continue;
    for (Json& c : *list) {
      const Json& limits = server::FieldValue(c, {"resources", "limits"});
      if (!limits.is_object()) continue;
      Json& requests = c["resources"]["requests"];
      if (!requests.is_object()) requests = Json::object();
      for (const auto& [r, q] : limits.items()) {
        if (!requests.contains(r)) requests[r] = q;
      }
    }
  }
}

}  // namespace

struct ProvisioningController::Snapshot {
  std::map<std::string, Json> checks;          // ours, by name
  std::map<std::string, Json> configs;         // by name
  std::map<std::string, Json> cluster_queues;  // by name
  std::map<std::string, Json> flavors;         // by name
  std::vector<Json> workloads;
  std::vector<Json> requests;
  std::vector<Json> pod_templates;
  // uids of the requests this pass created (their pod templates are not orphans).
  mutable std::set<std::string> created;
};

ProvisioningController::ProvisioningController(store::ObjectStore& store, const Clock& clock,
                                               ProvisioningControllerOptions options)
    : store_(store), clock_(clock), options_(options), events_(store, clock) {}

ProvisioningController::~ProvisioningController() { Stop(); }

void ProvisioningController::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void ProvisioningController::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void ProvisioningController::Run() {
  std::unique_ptr<store::Watcher> watcher;
  while (!stop_) {
    if (watcher == nullptr || !watcher->Alive()) {
      auto w = store_.Watch(kPcWorkloads, "", 0);
      watcher = w.ok() ? std::move(w).value() : nullptr;
    }
    Status st = SyncOnce();
    if (!st.ok()) std::fprintf(stderr, "kuotad: provisioning checks: %s\n", st.message().c_str());
    // Until a Workload changes or `resync` passes, in steps short enough
    // for Stop to be prompt.
    const auto until = std::chrono::steady_clock::now() + options_.resync;
    while (!stop_ && std::chrono::steady_clock::now() < until) {
      store::EventPtr ev;
      if (watcher != nullptr && watcher->Alive()) {
        if (watcher->Next(&ev, std::chrono::milliseconds(100))) {
          // A burst of events is one pass.
          while (watcher->Next(&ev, std::chrono::milliseconds(20))) {
          }
          break;
        }
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  }
}

Status ProvisioningController::SyncOnce() {
  Snapshot snap;
  KUOTA_ASSIGN_OR_RETURN(std::vector<Json> checks, PcList(store_, kPcChecks));
  for (Json& c : checks) {
    if (server::StringField(c, {"spec", "controllerName"}) != kProvisioningRequestControllerName)
      continue;
    std::string name = server::StringField(c, {"metadata", "name"});
    snap.checks[name] = std::move(c);
  }
  KUOTA_ASSIGN_OR_RETURN(std::vector<Json> configs, PcList(store_, kPcConfigs));
  for (Json& c : configs) {
    std::string name = server::StringField(c, {"metadata", "name"});
    snap.configs[name] = std::move(c);
  }
  for (const auto& [name, check] : snap.checks) SyncAdmissionCheck(snap, check);
  KUOTA_ASSIGN_OR_RETURN(snap.requests, PcList(store_, kPcRequests));
  if (snap.checks.empty() && snap.requests.empty()) return Status::Ok();
  KUOTA_ASSIGN_OR_RETURN(std::vector<Json> cqs, PcList(store_, kPcClusterQueues));
  for (Json& c : cqs) {
    std::string name = server::StringField(c, {"metadata", "name"});
    snap.cluster_queues[name] = std::move(c);
  }
  KUOTA_ASSIGN_OR_RETURN(std::vector<Json> flavors, PcList(store_, kPcFlavors));
  for (Json& f : flavors) {
    std::string name = server::StringField(f, {"metadata", "name"});
    snap.flavors[name] = std::move(f);
  }
  KUOTA_ASSIGN_OR_RETURN(snap.workloads, PcList(store_, kPcWorkloads));
  KUOTA_ASSIGN_OR_RETURN(snap.pod_templates, PcList(store_, kPcPodTemplates));
  Status first = Status::Ok();
  for (const Json& wl : snap.workloads) {
    Status st = SyncWorkload(snap, wl);
    if (!st.ok() && first.ok() && st.code() != StatusCode::kConflict &&
        st.code() != StatusCode::kNotFound) {
      first = st.WithContext("workload " + server::StringField(wl, {"metadata", "namespace"}) +
                             "/" + server::StringField(wl, {"metadata", "name"}));
    }
  }
  DeleteOrphans(snap);
  return first;
}

void ProvisioningController::SyncAdmissionCheck(const Snapshot& snap, const Json& check) {
  // Kueue's provisioning acReconciler: Active when the parameters name an
  // existing ProvisioningRequestConfig.
  Result<const Json*> config = PcConfigOf(check, snap.configs);
  const std::string status = config.ok() ? "True" : "False";
  Json cond = {
      {"type", "Active"},
      {"status", status},
      {"reason", config.ok() ? "Active" : "BadParametersRef"},
      {"message", config.ok() ? "The admission check is active" : config.status().message()},
      {"observedGeneration",
       server::FieldValue(check, {"metadata", "generation"}).is_number_integer()
           ? server::FieldValue(check, {"metadata", "generation"})
           : Json(0)},
      {"lastTransitionTime", FormatRfc3339(clock_.Now())}};
  Json updated = check;
  Json& conds = updated["status"]["conditions"];
  if (!conds.is_array()) conds = Json::array();
  for (Json& c : conds) {
    if (server::StringField(c, {"type"}) != "Active") continue;
    if (server::StringField(c, {"status"}) == status) return;
    c = cond;
    cond = nullptr;
  }
  if (!cond.is_null()) conds.push_back(std::move(cond));
  store::UpdateOptions opts;
  opts.status_only = true;
  (void)store_.Update(kPcChecks, std::move(updated), opts);
}

Status ProvisioningController::SyncWorkload(const Snapshot& snap, const Json& workload) {
  const std::string ns = server::StringField(workload, {"metadata", "namespace"});
  const std::string name = server::StringField(workload, {"metadata", "name"});
  const std::string uid = server::StringField(workload, {"metadata", "uid"});
  const bool finished = server::ConditionIsTrue(workload, "Finished");
  const bool evicted = server::ConditionIsTrue(workload, "Evicted");
  const bool reserved = server::ConditionIsTrue(workload, "QuotaReserved");
  if (!reserved && !finished && !evicted) return Status::Ok();
  std::vector<const Json*> owned;
  for (const Json& pr : snap.requests) {
    if (server::StringField(pr, {"metadata", "namespace"}) == ns &&
        PcControllerUid(pr, "Workload") == uid) {
      owned.push_back(&pr);
    }
  }
  // Finished, or evicted (Kueue's CleanupProvisioningRequestsOnEviction, on
  // by default): its requests go.
  if (finished || evicted) {
    for (const Json* pr : owned) DeleteRequest(*pr);
    return Status::Ok();
  }
  // Its checks of this controller: the ClusterQueue's (admissionChecks, and
  // admissionChecksStrategy's for the flavors it was given) and those its
  // status already lists.
  std::set<std::string> ours;
  const Json& cq = [&]() -> const Json& {
    static const Json kNone;
    auto it = snap.cluster_queues.find(
        server::StringField(workload, {"status", "admission", "clusterQueue"}));
    return it == snap.cluster_queues.end() ? kNone : it->second;
  }();
  std::set<std::string> used_flavors;
  if (const Json& psas = server::FieldValue(workload, {"status", "admission", "podSetAssignments"});
      psas.is_array()) {
    for (const Json& a : psas) {
      if (const Json& f = server::FieldValue(a, {"flavors"}); f.is_object()) {
        for (const auto& [r, flavor] : f.items()) {
          (void)r;
          if (flavor.is_string()) used_flavors.insert(flavor.get<std::string>());
        }
      }
    }
  }
  auto consider = [&](const std::string& check) {
    if (snap.checks.count(check) != 0) ours.insert(check);
  };
  if (const Json& list = server::FieldValue(cq, {"spec", "admissionChecks"}); list.is_array()) {
    for (const Json& c : list) {
      if (c.is_string()) consider(c.get<std::string>());
    }
  }
  if (const Json& rules =
          server::FieldValue(cq, {"spec", "admissionChecksStrategy", "admissionChecks"});
      rules.is_array()) {
    for (const Json& rule : rules) {
      const Json& on = server::FieldValue(rule, {"onFlavors"});
      bool applies = !on.is_array() || on.empty();
      if (on.is_array()) {
        for (const Json& f : on) applies = applies || (f.is_string() && used_flavors.count(f));
      }
      if (applies) consider(server::StringField(rule, {"name"}));
    }
  }
  Json status_checks = server::FieldValue(workload, {"status", "admissionChecks"});
  if (!status_checks.is_array()) status_checks = Json::array();
  for (const Json& c : status_checks) consider(server::StringField(c, {"name"}));
  if (ours.empty() && owned.empty()) return Status::Ok();

  const Time now = clock_.Now();
  ProvisioningWorkloadFacts facts;
  facts.name = name;
  facts.admitted = server::ConditionIsTrue(workload, "Admitted");
  facts.active = server::FieldValue(workload, {"spec", "active"}) != Json(false);
  facts.finished = finished;
  auto entry = [&](const std::string& check) -> Json& {
    for (Json& c : status_checks) {
      if (server::StringField(c, {"name"}) == check) return c;
    }
    status_checks.push_back({{"name", check},
                             {"state", "Pending"},
                             {"message", ""},
                             {"lastTransitionTime", FormatRfc3339(now)}});
    return status_checks.back();
  };
  std::map<std::string, ProvisioningConfig> config_of;
  std::map<std::string, bool> needed;
  std::map<std::string, const Json*> active_or_last;
  bool changed = false;
  std::vector<std::string> messages;
  for (const std::string& check : ours) {
    const size_t before = status_checks.size();
    Json& st = entry(check);
    changed = changed || status_checks.size() != before;
    const std::string old_state = server::StringField(st, {"state"});
    Result<const Json*> config_json = PcConfigOf(snap.checks.at(check), snap.configs);
    Result<ProvisioningConfig> config =
        config_json.ok() ? ReadProvisioningConfig(**config_json) : config_json.status();
    if (!config.ok()) {
      changed = SetProvisioningCheck(st, "Pending", kCheckInactiveMessage, now) || changed;
    } else {
      config_of[check] = *config;
      needed[check] = !ProvisioningRequestPodSets(workload, *config).empty();
      for (const Json* pr : owned) {
        const std::string pr_name = server::StringField(*pr, {"metadata", "name"});
        std::optional<int32_t> attempt = ProvisioningAttempt(pr_name, name, check);
        if (!attempt || !needed[check] || !ProvisioningRequestMatchesConfig(*pr, *config)) continue;
        const Json*& best = active_or_last[check];
        if (best == nullptr ||
            ProvisioningAttempt(server::StringField(*best, {"metadata", "name"}), name, check)
                    .value_or(0) < *attempt) {
          best = pr;
        }
      }
      if (!needed[check]) {
        if (old_state != "Ready") {
          SetProvisioningCheck(st, "Ready", kNoRequestNeededMessage, now);
          st.erase("podSetUpdates");
          changed = true;
        }
      } else if (const Json* pr = active_or_last[check]) {
        changed = SyncProvisioningCheck(st, *pr, *config, workload, facts, now) || changed;
      }
    }
    const std::string new_state = server::StringField(st, {"state"});
    if (old_state != new_state && !old_state.empty() && status_checks.size() == before) {
      std::string m =
          "Admission check " + check + " updated state from " + old_state + " to " + new_state;
      if (!server::StringField(st, {"message"}).empty())
        m += " with message: " + server::StringField(st, {"message"});
      messages.push_back(std::move(m));
    }
  }
  const Json involved = PcInvolved(workload, "kueue.x-k8s.io/v1beta2", "Workload");
  if (changed) {
    Json updated = workload;
    updated["status"]["admissionChecks"] = status_checks;
    store::UpdateOptions opts;
    opts.status_only = true;
    Result<Json> written = store_.Update(kPcWorkloads, std::move(updated), opts);
    if (!written.ok()) return written.status();  // a conflict: the next pass reads it again
    for (const auto& m : messages) events_.Record(involved, "Normal", "AdmissionCheckUpdated", m);
  }
  // Requests no check uses any more.
  std::set<const Json*> kept;
  for (const auto& [check, pr] : active_or_last) kept.insert(pr);
  for (const Json* pr : owned) {
    if (kept.count(pr) == 0) DeleteRequest(*pr);
  }
  // A check waiting for capacity gets its request: the first, or the next
  // attempt after a failure (Kueue waits for the check to be Pending again,
  // after the eviction its Retry caused).
  for (const auto& [check, config] : config_of) {
    if (!needed[check]) continue;
    const Json& st = entry(check);
    if (server::StringField(st, {"state"}) == "Ready") continue;
    const Json* pr = active_or_last[check];
    int32_t attempt = server::FieldValue(st, {"retryCount"}).is_number_integer()
                          ? server::FieldValue(st, {"retryCount"}).get<int32_t>() + 1
                          : 1;
    bool create = pr == nullptr;
    if (pr != nullptr && server::StringField(st, {"state"}) == "Pending" &&
        (TrueProvisioningCondition(*pr, "Failed") != nullptr ||
         (TrueProvisioningCondition(*pr, "BookingExpired") != nullptr && !facts.admitted))) {
      attempt = ProvisioningAttempt(server::StringField(*pr, {"metadata", "name"}), name, check)
                    .value_or(1) +
                1;
      create = true;
    }
    if (create) {
      const std::string pr_name = ProvisioningRequestName(name, check, attempt);
      Result<Json> created = CreateRequest(snap, workload, pr_name, config);
      if (!created.ok()) {
        if (created.status().code() == StatusCode::kAlreadyExists) continue;  // next pass
        events_.Record(involved, "Warning", "FailedCreate",
                       "Error creating ProvisioningRequest \"" + pr_name +
                           "\": " + created.status().message());
        return created.status();
      }
      snap.created.insert(server::StringField(*created, {"metadata", "uid"}));
      events_.Record(involved, "Normal", "ProvisioningRequestCreated",
                     "Created ProvisioningRequest: \"" + pr_name + "\"");
      AdoptPodTemplates(workload, *created);
    } else {
      AdoptPodTemplates(workload, *pr);
    }
  }
  return Status::Ok();
}

Result<Json> ProvisioningController::CreateRequest(const Snapshot& snap, const Json& workload,
                                                   const std::string& name,
                                                   const ProvisioningConfig& config) {
  const std::string ns = server::StringField(workload, {"metadata", "namespace"});
  const Json owner = jobs::ControllerOwnerRef("kueue.x-k8s.io/v1beta2", "Workload",
                                              server::StringField(workload, {"metadata", "name"}),
                                              server::StringField(workload, {"metadata", "uid"}));
  Json parameters = Json::object();
  for (const auto& [k, v] : config.parameters) parameters[k] = v;
  if (const Json& ann = server::FieldValue(workload, {"metadata", "annotations"});
      ann.is_object()) {
    const std::string prefix = kProvReqAnnotationPrefix;
    for (const auto& [k, v] : ann.items()) {
      if (k.rfind(prefix, 0) == 0 && k.size() > prefix.size() && v.is_string()) {
        parameters[k.substr(prefix.size())] = v;
      }
    }
  }
  Json pod_sets = Json::array();
  const Json& psas = server::FieldValue(workload, {"status", "admission", "podSetAssignments"});
  for (const ProvisioningPodSet& ps : ProvisioningRequestPodSets(workload, config)) {
    const std::string template_name = ProvisioningPodTemplateName(name, ps.name);
    Json tmpl = ps.template_.is_object() ? ps.template_ : Json::object();
    Json& spec = tmpl["spec"];
    if (!spec.is_object()) spec = Json::object();
    // The admission's flavors: their node labels and tolerations.
    if (psas.is_array()) {
      for (const Json& a : psas) {
        if (server::StringField(a, {"name"}) != ps.name) continue;
        const Json& flavors = server::FieldValue(a, {"flavors"});
        if (!flavors.is_object()) continue;
        std::set<std::string> seen;
        for (const auto& [r, f] : flavors.items()) {
          (void)r;
          if (!f.is_string() || !seen.insert(f.get<std::string>()).second) continue;
          auto it = snap.flavors.find(f.get<std::string>());
          if (it == snap.flavors.end()) continue;
          if (const Json& labels = server::FieldValue(it->second, {"spec", "nodeLabels"});
              labels.is_object()) {
            for (const auto& [k, v] : labels.items()) spec["nodeSelector"][k] = v;
          }
          if (const Json& tols = server::FieldValue(it->second, {"spec", "tolerations"});
              tols.is_array()) {
            for (const Json& t : tols) spec["tolerations"].push_back(t);
          }
        }
      }
    }
    PcLimitsAsRequests(spec);
    Json pt = {{"apiVersion", "v1"},
               {"kind", "PodTemplate"},
               {"metadata",
                {{"name", template_name},
                 {"namespace", ns},
                 {"labels", {{kPcManagedLabel, "true"}}},
                 {"ownerReferences", Json::array({owner})}}},
               {"template", std::move(tmpl)}};
    Result<Json> created = store_.Create(kPcPodTemplates, std::move(pt));
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
      return created.status().WithContext("creating PodTemplate \"" + template_name + "\"");
    }
    pod_sets.push_back({{"podTemplateRef", {{"name", template_name}}}, {"count", ps.count}});
  }
  Json spec = {{"provisioningClassName", config.class_name}, {"podSets", std::move(pod_sets)}};
  if (!parameters.empty()) spec["parameters"] = std::move(parameters);
  Json pr = {{"apiVersion", "autoscaling.x-k8s.io/v1"},
             {"kind", "ProvisioningRequest"},
             {"metadata",
              {{"name", name},
               {"namespace", ns},
               {"labels", {{kPcManagedLabel, "true"}}},
               {"ownerReferences", Json::array({owner})}}},
             {"spec", std::move(spec)}};
  return store_.Create(kPcRequests, std::move(pr));
}

void ProvisioningController::AdoptPodTemplates(const Json& workload, const Json& request) {
  const std::string ns = server::StringField(request, {"metadata", "namespace"});
  const std::string wl_uid = server::StringField(workload, {"metadata", "uid"});
  const Json owner = jobs::ControllerOwnerRef("autoscaling.x-k8s.io/v1", "ProvisioningRequest",
                                              server::StringField(request, {"metadata", "name"}),
                                              server::StringField(request, {"metadata", "uid"}));
  const Json& pod_sets = server::FieldValue(request, {"spec", "podSets"});
  if (!pod_sets.is_array()) return;
  for (const Json& ps : pod_sets) {
    const std::string pt_name = server::StringField(ps, {"podTemplateRef", "name"});
    Result<Json> pt = store_.Get(kPcPodTemplates, ns, pt_name);
    if (!pt.ok()) continue;
    if (PcControllerUid(*pt, "ProvisioningRequest") == owner["uid"]) continue;
    Json refs = Json::array();
    if (const Json& old = server::FieldValue(*pt, {"metadata", "ownerReferences"});
        old.is_array()) {
      for (const Json& o : old) {
        if (o.value("controller", false) && server::StringField(o, {"uid"}) == wl_uid) continue;
        if (o.value("controller", false)) continue;  // one controller: the request
        refs.push_back(o);
      }
    }
    refs.push_back(owner);
    (*pt)["metadata"]["ownerReferences"] = std::move(refs);
    (void)store_.Update(kPcPodTemplates, std::move(*pt));
  }
}

void ProvisioningController::DeleteRequest(const Json& request) {
  const std::string ns = server::StringField(request, {"metadata", "namespace"});
  (void)store_.Delete(kPcRequests, ns, server::StringField(request, {"metadata", "name"}));
  // Its pod templates (a cluster's garbage collector would take them too).
  if (const Json& pod_sets = server::FieldValue(request, {"spec", "podSets"});
      pod_sets.is_array()) {
    for (const Json& ps : pod_sets) {
      (void)store_.Delete(kPcPodTemplates, ns, server::StringField(ps, {"podTemplateRef", "name"}));
    }
  }
}

void ProvisioningController::DeleteOrphans(const Snapshot& snap) {
  // Without a garbage collector (kuotad on one machine), the requests and
  // pod templates of deleted Workloads are deleted here.
  std::set<std::string> live = snap.created;
  for (const Json& wl : snap.workloads) live.insert(server::StringField(wl, {"metadata", "uid"}));
  for (const Json& pr : snap.requests) {
    if (server::StringField(pr, {"metadata", "labels", kPcManagedLabel}) != "true") continue;
    const std::string owner = PcControllerUid(pr, "Workload");
    if (!owner.empty() && live.count(owner) == 0) DeleteRequest(pr);
    live.insert(server::StringField(pr, {"metadata", "uid"}));
  }
  for (const Json& pt : snap.pod_templates) {
    if (server::StringField(pt, {"metadata", "labels", kPcManagedLabel}) != "true") continue;
    std::string owner = PcControllerUid(pt, "ProvisioningRequest");
    if (owner.empty()) owner = PcControllerUid(pt, "Workload");
    if (!owner.empty() && live.count(owner) == 0) {
      (void)store_.Delete(kPcPodTemplates, server::StringField(pt, {"metadata", "namespace"}),
                          server::StringField(pt, {"metadata", "name"}));
    }
  }
}

}  // namespace kuota::control
