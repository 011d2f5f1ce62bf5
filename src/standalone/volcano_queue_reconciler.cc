#include "standalone/volcano_queue_reconciler.h"

#include <cstdio>
#include <map>
#include <vector>

#include "control/meta_string.h"
#include "control/volcano_queue.h"
#include "store/list_all.h"

namespace kuota::standalone {
namespace {

using Json = nlohmann::json;

constexpr const char* kClusterQueues = "clusterqueues.kueue.x-k8s.io";
constexpr const char* kLocalQueues = "localqueues.kueue.x-k8s.io";
constexpr const char* kResourceFlavors = "resourceflavors.kueue.x-k8s.io";
constexpr const char* kNamespaces = "namespaces";
constexpr const char* kVolcanoJobs = "jobs.batch.volcano.sh";
// The one key: every change is reconciled by one full pass.
constexpr const char* kEverything = "*";

Result<std::vector<Json>> VqListLabelled(store::ObjectStore& store, const std::string& resource,
                                         const std::string& label_selector) {
  store::ListOptions lo;
  lo.label_selector = label_selector;
  return store::ListAll(store, resource, lo);
}

std::string Label(const Json& object) {
  const Json* v = server::FindField(object, {"metadata", "labels", control::kVolcanoQueueLabel});
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

bool Terminating(const Json& object) {
  return !control::MetaString(object, "deletionTimestamp").empty();
}

// Whether a change to this object can change what the reconciler makes.
bool Relevant(const store::WatchEvent& ev) {
  if (ev.resource == control::kVolcanoQueues || ev.resource == kNamespaces) return true;
  if (ev.resource == kClusterQueues || ev.resource == kLocalQueues) {
    return !Label(ev.object).empty() ||
           control::MetaString(ev.object, "name").rfind(control::VolcanoQueueObjectName(""), 0) ==
               0;
  }
  return ev.resource == kResourceFlavors &&
         control::MetaString(ev.object, "name") == control::kVolcanoFlavor;
}

}  // namespace

VolcanoQueueReconciler::VolcanoQueueReconciler(store::ObjectStore& store, const Clock& clock,
                                               VolcanoQueueReconcilerOptions options)
    : StoreLoop(store, clock, "volcano queues", options.idle_tick),
      store_(store),
      clock_(clock),
      options_(std::move(options)) {}

VolcanoQueueReconciler::~VolcanoQueueReconciler() { Stop(); }

Status VolcanoQueueReconciler::EnsureDefaultQueue() {
  if (!options_.create_default_queue || default_ensured_) return Status::Ok();
  Result<Json> existing = store_.Get(control::kVolcanoQueues, "", control::kDefaultVolcanoQueue);
  if (!existing.ok()) {
    if (existing.status().code() != StatusCode::kNotFound) return existing.status();
    Result<Json> created =
        store_.Create(control::kVolcanoQueues, control::DefaultVolcanoQueueObject());
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
      return created.status().WithContext("creating the default Volcano queue");
    }
  }
  default_ensured_ = true;
  return Status::Ok();
}

bool VolcanoQueueReconciler::AnyVolcanoJob() {
  store::ListOptions one;
  one.limit = 1;
  one.count_remaining = false;
  Result<store::ListResult> jobs = store_.List(kVolcanoJobs, one);
  return jobs.ok() && !jobs->items.empty();
}

Status VolcanoQueueReconciler::List() {
  if (AnyVolcanoJob()) KUOTA_RETURN_IF_ERROR(EnsureDefaultQueue());
  return ReconcileAll();
}

void VolcanoQueueReconciler::Handle(const store::WatchEvent& ev) {
  if (Relevant(ev)) MarkDirty(kEverything);
  if (ev.resource == kVolcanoJobs && !default_ensured_) {
    Status st = EnsureDefaultQueue();
    if (!st.ok()) std::fprintf(stderr, "kuotad: volcano queues: %s\n", st.message().c_str());
    MarkDirty(kEverything);
  }
}

bool VolcanoQueueReconciler::Reconcile(const std::string& key) {
  Status st = ReconcileAll();
  if (!st.ok()) {
    std::fprintf(stderr, "kuotad: volcano queues: %s; retrying\n", st.message().c_str());
    WakeAt(key, clock_.Now() + Duration{1000});
  }
  return false;
}

Status VolcanoQueueReconciler::Apply(const std::string& resource, const Json& desired) {
  const std::string ns = control::MetaString(desired, "namespace");
  const std::string name = control::MetaString(desired, "name");
  Result<Json> current = store_.Get(resource, ns, name);
  if (!current.ok()) {
    if (current.status().code() != StatusCode::kNotFound) return current.status();
    Result<Json> created = store_.Create(resource, desired);
    if (created.ok() || created.status().code() == StatusCode::kAlreadyExists) return Status::Ok();
    return created.status();
  }
  if (Label(*current) != Label(desired)) {
    const std::string key = resource + "/" + ns + "/" + name;
    if (foreign_logged_.insert(key).second) {
      std::fprintf(stderr,
                   "kuotad: volcano queues: %s %s%s exists and was not made for Volcano queue "
                   "%s; leaving it alone\n",
                   resource.c_str(), ns.empty() ? "" : (ns + "/").c_str(), name.c_str(),
                   Label(desired).c_str());
    }
    return Status::Ok();
  }
  if ((*current)["spec"] == desired["spec"]) return Status::Ok();
  Json updated = *current;
  updated["spec"] = desired["spec"];
  Result<Json> written = store_.Update(resource, std::move(updated));
  // A conflict means someone wrote it meanwhile: their event brings us back.
  if (!written.ok() && written.status().code() != StatusCode::kConflict) return written.status();
  return Status::Ok();
}

Status VolcanoQueueReconciler::ReconcileAll() {
  KUOTA_ASSIGN_OR_RETURN(std::vector<Json> queues, store::ListAll(store_, control::kVolcanoQueues));
  KUOTA_ASSIGN_OR_RETURN(std::vector<Json> namespaces, store::ListAll(store_, kNamespaces));
  std::map<std::string, const Json*> by_name;
  size_t not_reclaimable = 0;
  for (const Json& q : queues) {
    by_name[control::MetaString(q, "name")] = &q;
    if (!control::VolcanoQueueReclaimable(q)) ++not_reclaimable;
  }
  if (!queues.empty()) {
    Result<Json> rf = store_.Get(kResourceFlavors, "", control::kVolcanoFlavor);
    if (!rf.ok()) {
      if (rf.status().code() != StatusCode::kNotFound) return rf.status();
      Result<Json> created = store_.Create(kResourceFlavors, control::VolcanoResourceFlavor());
      if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
        return created.status();
      }
    }
  }
  for (const Json& q : queues) {
    if (Terminating(q)) continue;
    const std::string name = control::MetaString(q, "name");
    // Every other queue is reclaimable: this one's ClusterQueue may reclaim.
    const bool others_reclaimable =
        not_reclaimable == 0 || (not_reclaimable == 1 && !control::VolcanoQueueReclaimable(q));
    control::VolcanoQueueMapping m =
        control::MapVolcanoQueue(q, options_.machine, others_reclaimable);
    KUOTA_RETURN_IF_ERROR(Apply(kClusterQueues, m.cluster_queue));
    for (const Json& ns : namespaces) {
      if (Terminating(ns)) continue;
      KUOTA_RETURN_IF_ERROR(
          Apply(kLocalQueues, control::VolcanoLocalQueue(name, control::MetaString(ns, "name"))));
    }
    if (server::StringField(q, {"status", "state"}) != m.state) {
      Json with_state = q;
      with_state["status"]["state"] = m.state;
      store::UpdateOptions uo;
      uo.status_only = true;
      Result<Json> written = store_.Update(control::kVolcanoQueues, std::move(with_state), uo);
      if (!written.ok() && written.status().code() != StatusCode::kConflict &&
          written.status().code() != StatusCode::kNotFound) {
        return written.status();
      }
    }
  }
  // What a deleted Queue left behind.
  for (const char* resource : {kLocalQueues, kClusterQueues}) {
    KUOTA_ASSIGN_OR_RETURN(std::vector<Json> owned,
                           VqListLabelled(store_, resource, control::kVolcanoQueueLabel));
    for (const Json& o : owned) {
      auto it = by_name.find(Label(o));
      if (it != by_name.end() && !Terminating(*it->second)) continue;
      if (Terminating(o)) continue;
      Result<Json> deleted = store_.Delete(resource, control::MetaString(o, "namespace"),
                                           control::MetaString(o, "name"));
      if (!deleted.ok() && deleted.status().code() != StatusCode::kNotFound) {
        return deleted.status();
      }
    }
  }
  return Status::Ok();
}

}  // namespace kuota::standalone
