#include "standalone/serving_reconciler.h"

#include <cstdio>
#include <vector>

#include "base/time.h"
#include "control/events.h"
#include "control/meta_string.h"
#include "jobctl/submitter.h"
#include "jobs/pod_kind.h"
#include "standalone/deployment_controller.h"
#include "standalone/stateful_set_controller.h"
#include "store/list_all.h"

namespace kuota::standalone {
namespace {

constexpr const char* kDeployments = "deployments.apps";
constexpr const char* kStatefulSets = "statefulsets.apps";
constexpr const char* kServingPods = "pods";

std::string ServingKey(const std::string& resource, const nlohmann::json& obj) {
  return resource + "/" + control::MetaString(obj, "namespace") + "/" +
         control::MetaString(obj, "name");
}

// The uid of the Deployment or StatefulSet controlling `pod`, or "".
std::string ServingOwnerUid(const nlohmann::json& pod) {
  auto m = pod.find("metadata");
  if (m == pod.end() || !m->is_object()) return "";
  auto refs = m->find("ownerReferences");
  if (refs == m->end() || !refs->is_array()) return "";
  for (const auto& r : *refs) {
    if (!r.is_object() || !r.value("controller", false) || r.value("apiVersion", "") != "apps/v1") {
      continue;
    }
    const std::string kind = r.value("kind", "");
    if (kind == "Deployment" || kind == "StatefulSet") return r.value("uid", "");
  }
  return "";
}

}  // namespace

ServingReconciler::ServingReconciler(store::ObjectStore& store, const Clock& clock,
                                     ServingReconcilerOptions options)
    : StoreLoop(store, clock, "deployment/statefulset controller", options.idle_tick),
      store_(store),
      clock_(clock),
      options_(std::move(options)) {}

ServingReconciler::~ServingReconciler() { Stop(); }

Status ServingReconciler::List() {
  objects_.clear();
  by_uid_.clear();
  pods_.clear();
  for (const char* resource : {kDeployments, kStatefulSets, kServingPods}) {
    KUOTA_RETURN_IF_ERROR(
        store::ListEach(store_, resource, [&](Json& item) { Replay(resource, std::move(item)); }));
  }
  return Status::Ok();
}

void ServingReconciler::Handle(const store::WatchEvent& ev) {
  if (ev.resource == kDeployments || ev.resource == kStatefulSets) {
    const std::string key = ServingKey(ev.resource, ev.object);
    const std::string uid = control::MetaString(ev.object, "uid");
    if (ev.type == store::EventType::kDeleted) {
      objects_.erase(key);
      by_uid_.erase(uid);
      Forget(key);
      CascadeDelete(uid, control::MetaString(ev.object, "namespace"));
      return;
    }
    objects_[key] = ev.object;
    by_uid_[uid] = key;
    MarkDirty(key);
    return;
  }
  if (ev.resource != kServingPods) return;
  const std::string owner = ServingOwnerUid(ev.object);
  if (owner.empty()) return;
  const std::string name = control::MetaString(ev.object, "name");
  if (ev.type == store::EventType::kDeleted) {
    if (auto it = pods_.find(owner); it != pods_.end()) {
      it->second.erase(name);
      if (it->second.empty()) pods_.erase(it);
    }
  } else {
    pods_[owner][name] = ev.object;
  }
  if (auto it = by_uid_.find(owner); it != by_uid_.end()) {
    MarkDirty(it->second);
  } else if (ev.type != store::EventType::kDeleted && !objects_.empty()) {
    // An orphan (its owner was deleted while kuotad was down): collected.
    CascadeDelete(owner, control::MetaString(ev.object, "namespace"));
  }
}

void ServingReconciler::CascadeDelete(const std::string& uid, const std::string& ns) {
  auto it = pods_.find(uid);
  if (it == pods_.end()) return;
  for (const auto& [name, pod] : it->second) {
    if (!control::MetaString(pod, "deletionTimestamp").empty()) continue;
    (void)store_.Delete(kServingPods, ns, name);
  }
}

bool ServingReconciler::Reconcile(const std::string& key) {
  ReconcileObject(key);
  return false;
}

void ServingReconciler::ReconcileObject(const std::string& key) {
  auto it = objects_.find(key);
  if (it == objects_.end()) return;
  Json& object = it->second;
  const std::string resource = key.substr(0, key.find('/'));
  const std::string uid = control::MetaString(object, "uid");
  const std::string ns = control::MetaString(object, "namespace");
  if (!control::MetaString(object, "deletionTimestamp").empty()) return;
  std::vector<Json> pods;
  if (auto p = pods_.find(uid); p != pods_.end()) {
    for (const auto& [name, pod] : p->second) pods.push_back(pod);
  }
  const std::string now = FormatRfc3339(clock_.Now());
  Result<ServingActions> actions =
      resource == kDeployments
          ? ReconcileDeployment(object, pods, now)
          : ReconcileStatefulSet(object, pods, now, options_.statefulset_kueue);
  if (!actions.ok()) {
    std::fprintf(stderr, "kuotad: %s: %s\n", key.c_str(), actions.status().message().c_str());
    return;
  }
  for (const std::string& name : actions->delete_pods) {
    auto deleted = store_.Delete(kServingPods, ns, name);
    if (deleted.ok()) {
      if (control::MetaString(*deleted, "deletionTimestamp").empty()) {
        pods_[uid].erase(name);
      } else {
        pods_[uid][name] = *deleted;
      }
    }
  }
  for (Json& pod : actions->create_pods) {
    if (!options_.pod_finalizer.empty()) {
      pod["metadata"]["finalizers"] = Json::array({options_.pod_finalizer});
    }
    // It runs as the object's submitter, as a job's pods do.
    jobctl::CopySubmitterAnnotations(object, pod);
    // Made here, not through the API: Kueue's pod webhook runs on it here.
    if (options_.pod_webhook && jobs::IsPodIntegrationCandidate(pod)) {
      if (Status st = jobs::ValidateManagedPod(pod); !st.ok()) {
        control::RecordEvent(store_, clock_, object, "Warning", "FailedCreate",
                             "Error creating: " + st.message(), "kuota");
        continue;
      }
      jobs::DefaultManagedPodOnCreate(pod);
    }
    const std::string name = control::MetaString(pod, "name");
    auto stored = store_.Create(kServingPods, std::move(pod));
    if (!stored.ok()) {
      if (stored.status().code() != StatusCode::kAlreadyExists) {
        control::RecordEvent(
            store_, clock_, object, "Warning", "FailedCreate",
            "Error creating: " + stored.status().message(),
            resource == kDeployments ? "replicaset-controller" : "statefulset-controller");
      }
      continue;
    }
    pods_[uid][name] = *stored;
    control::RecordEvent(
        store_, clock_, object, "Normal", "SuccessfulCreate", "Created pod: " + name,
        resource == kDeployments ? "replicaset-controller" : "statefulset-controller");
  }
  if (actions->status) {
    Json patch = {{"apiVersion", "apps/v1"},
                  {"kind", object.value("kind", "")},
                  {"metadata", {{"name", control::MetaString(object, "name")}, {"namespace", ns}}},
                  {"status", *actions->status}};
    store::UpdateOptions uo;
    uo.status_only = true;
    auto stored = store_.Update(resource, patch, uo);
    if (stored.ok()) object = *stored;
  }
}

}  // namespace kuota::standalone
