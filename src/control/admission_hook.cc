#include "control/admission_hook.h"

#include <cstdlib>

#include "api/codec/decode.h"
#include "control/job_create_rules.h"
#include "control/job_update_rules.h"
#include "control/kueue_update_rules.h"
#include "control/multikueue_rules.h"
#include "control/provisioning_config_rules.h"
#include "control/volcano_queue.h"
#include "control/workload_status_rules.h"
#include "engine/backfill.h"
#include "engine/minimum_runtime.h"
#include "jobctl/pod_spec_schema.h"
#include "jobs/managed_by.h"
#include "jobs/pod_kind.h"
#include "jobs/registry.h"
#include "jobs/serving_workloads.h"
#include "server/json_fields.h"

namespace kuota::control {
namespace {

// The codec prefixes errors with "document 1 (Kind "name", line 1): "; an API
// error names the object itself, so keep only the field path part.
std::string StripDocumentPrefix(const std::string& m) {
  if (m.rfind("document ", 0) != 0) return m;
  size_t close = m.find("): ");
  return close == std::string::npos ? m : m.substr(close + 3);
}

void SetDefault(server::Json& obj, const char* key, server::Json value) {
  if (!obj.contains(key) || obj[key].is_null()) obj[key] = std::move(value);
}

// Readers of a stored job want the uid and name the store has not assigned
// yet at admission: fill them in on a copy being checked.
Status AssignPlaceholderIdentity(server::Json& job) {
  server::Json& meta = job["metadata"];
  if (!meta.is_object()) return Status::Invalid("metadata: must be an object");
  if (!meta.contains("uid") || !meta["uid"].is_string()) meta["uid"] = "to-be-assigned";
  if (!meta.contains("name") || !meta["name"].is_string() || meta["name"] == "") {
    meta["name"] = "to-be-assigned";
  }
  return Status::Ok();
}

// A queued job must make a Workload the controller can read: Kueue's pod set
// rules apply to its templates (unknown fields, as kubectl's strict field
// validation refuses them, bad quantities). Errors name the job's own fields.
Status ValidateWorkloadOf(const jobs::JobKind& kind, const server::Json& job) {
  server::Json probe = job;
  KUOTA_RETURN_IF_ERROR(AssignPlaceholderIdentity(probe));
  Result<server::Json> wl = kind.BuildWorkload(probe);
  if (!wl.ok()) return wl.status();
  codec::DecodeOptions opts;
  opts.validate_names = false;
  auto decoded = codec::DecodeJsonObject(*wl, opts);
  if (decoded.ok()) return Status::Ok();
  std::string m = StripDocumentPrefix(decoded.status().message());
  // spec.podSets[i].template... is the job's own template field.
  const std::string prefix = "spec.podSets[";
  if (m.rfind(prefix, 0) == 0) {
    size_t close = m.find("].template", prefix.size());
    if (close != std::string::npos) {
      size_t index = std::strtoul(m.c_str() + prefix.size(), nullptr, 10);
      m = kind.PodSetTemplateField(probe, index) + m.substr(close + 10);
    }
  }
  return Status(decoded.status().code(), m);
}

// A core/v1 Pod as the pod runner and the Job controller will read it.
Status ValidatePod(const server::Json& pod) {
  auto spec = pod.find("spec");
  if (spec == pod.end() || spec->is_null()) return Status::Invalid("spec: Required value");
  KUOTA_RETURN_IF_ERROR(jobctl::ValidatePodSpecSchema(*spec, "spec"));
  auto containers = spec->find("containers");
  if (containers == spec->end() || !containers->is_array() || containers->empty()) {
    return Status::Invalid("spec.containers: Required value");
  }
  if (auto st = pod.find("status"); st != pod.end() && !st->is_null()) {
    KUOTA_RETURN_IF_ERROR(jobctl::ValidatePodStatusSchema(*st, "status"));
  }
  return Status::Ok();
}

// Whether a controller owns `object` whose kind Kueue integrates (a Job of a
// JobSet, a pod of a Job): Kueue queues the outermost job only.
bool OwnedByAnIntegratedKind(const server::Json& object) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return false;
  auto owners = meta->find("ownerReferences");
  if (owners == meta->end() || !owners->is_array()) return false;
  for (const server::Json& o : *owners) {
    if (!o.is_object() || o.value("controller", false) != true) continue;
    for (const auto& k : jobs::JobKinds()) {
      if (o.value("apiVersion", "") == k->ApiVersion() && o.value("kind", "") == k->Kind()) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

void KuotaAdmissionHook::DefaultManagedBy(const jobs::JobKind& kind, server::Json& object) const {
  std::optional<server::Json::json_pointer> field = jobs::ManagedByPointer(kind);
  if (!multikueue_ || !field || !jobs::ManagedBy(kind, object).empty()) return;
  const std::string queue = kind.LocalQueueName(object);
  const std::string ns = server::StringField(object, {"metadata", "namespace"});
  if (queue.empty() || !multikueue_(ns, queue)) return;
  object[*field] = jobs::kMultiKueueControllerName;
}

void KuotaAdmissionHook::DefaultLocalQueue(const std::string& queue_name,
                                           server::Json& object) const {
  if (!default_queue_ || !queue_name.empty() || OwnedByAnIntegratedKind(object)) return;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return;
  auto ns = meta->find("namespace");
  if (ns == meta->end() || !ns->is_string() || !default_queue_(ns->get<std::string>())) return;
  server::Json& labels = (*meta)["labels"];
  if (!labels.is_object()) labels = server::Json::object();
  labels[jobs::kQueueNameLabel] = kDefaultLocalQueueName;
}

void ApplyKueueDefaults(const std::string& kind, server::Json& object) {
  if (!object.contains("spec") || !object["spec"].is_object()) {
    if (kind == "ClusterQueue" || kind == "LocalQueue" || kind == "Workload") {
      object["spec"] = server::Json::object();
    } else {
      return;
    }
  }
  server::Json& spec = object["spec"];
  if (kind == "ClusterQueue") {
    SetDefault(spec, "queueingStrategy", "BestEffortFIFO");
    SetDefault(spec, "stopPolicy", "None");
    SetDefault(spec, "preemption", server::Json::object());
    SetDefault(spec["preemption"], "withinClusterQueue", "Never");
    SetDefault(spec["preemption"], "reclaimWithinCohort", "Never");
    SetDefault(spec["preemption"], "borrowWithinCohort", {{"policy", "Never"}});
    SetDefault(spec, "flavorFungibility", server::Json::object());
    SetDefault(spec["flavorFungibility"], "whenCanBorrow", "MayStopSearch");
    SetDefault(spec["flavorFungibility"], "whenCanPreempt", "TryNextFlavor");
  } else if (kind == "LocalQueue") {
    SetDefault(spec, "stopPolicy", "None");
  } else if (kind == "Workload") {
    SetDefault(spec, "active", true);
    if (spec.contains("podSets") && spec["podSets"].is_array()) {
      for (auto& ps : spec["podSets"]) {
        if (ps.is_object()) SetDefault(ps, "count", 1);
      }
    }
  }
}

Status KuotaAdmissionHook::Admit(const server::ResourceInfo& resource, Operation op,
                                 const server::Json* old_object, server::Json* object) {
  const bool volcano_queue = resource.group == kVolcanoSchedulingGroup;
  if (op == Operation::kDelete) {
    return volcano_queue ? ValidateVolcanoQueueDeletion(*object) : Status::Ok();
  }
  // Every stored object must be readable by every reader: metadata first.
  if (auto m = object->find("metadata"); m != object->end()) {
    KUOTA_RETURN_IF_ERROR(jobctl::ValidateObjectMetaSchema(*m, "metadata"));
  }
  if (volcano_queue) {  // Volcano's Queue webhooks
    if (op == Operation::kCreate) DefaultVolcanoQueue(*object);
    return ValidateVolcanoQueue(*object);
  }
  if (resource.group.empty() && resource.kind == "Pod") {
    if (op == Operation::kCreate && management_.PodsEnabled()) {
      DefaultLocalQueue(jobs::JobKind::QueueName(*object), *object);
    }
    KUOTA_RETURN_IF_ERROR(ValidatePod(*object));
    if (op == Operation::kUpdate && old_object != nullptr &&
        (management_.ManagesPod(*object) || management_.ManagesPod(*old_object))) {
      KUOTA_RETURN_IF_ERROR(ValidateManagedPodUpdate(*old_object, *object));
    }
    // Kueue's pod webhook: a queued pod is created gated and labelled managed.
    if (op != Operation::kCreate || !management_.ManagesPod(*object)) return Status::Ok();
    KUOTA_RETURN_IF_ERROR(jobs::ValidateManagedPod(*object));
    KUOTA_RETURN_IF_ERROR(ValidateJobMaxExecTimeLabel(*object));
    jobs::DefaultManagedPodOnCreate(*object);
    return Status::Ok();
  }
  if (const jobs::JobKind* kind = jobs::FindJobKind(resource.StoreKey())) {
    // The operator's webhook and schema (which want the uid and name the
    // store has not assigned yet), then Kueue's: a managed job starts
    // suspended and must make a Workload.
    if (op == Operation::kCreate) kind->Default(*object);
    if (op == Operation::kCreate && management_.Enabled(*kind)) {
      DefaultLocalQueue(kind->LocalQueueName(*object), *object);
      DefaultManagedBy(*kind, *object);
    }
    server::Json probe = *object;
    KUOTA_RETURN_IF_ERROR(AssignPlaceholderIdentity(probe));
    KUOTA_RETURN_IF_ERROR(kind->Validate(probe));
    if (op == Operation::kUpdate && old_object != nullptr) {
      KUOTA_RETURN_IF_ERROR(kind->ValidateUpdate(*old_object, *object));
    }
    if (op == Operation::kUpdate && old_object != nullptr &&
        (management_.Manages(*kind, *object) || management_.Manages(*kind, *old_object))) {
      KUOTA_RETURN_IF_ERROR(ValidateJobUpdate(*kind, *old_object, *object));
    }
    if (!management_.Manages(*kind, *object)) return Status::Ok();
    KUOTA_RETURN_IF_ERROR(ValidateJobQueueNameLabel(*object));
    if (op == Operation::kCreate) KUOTA_RETURN_IF_ERROR(ValidateJobMaxExecTimeLabel(*object));
    if (op == Operation::kCreate)
      KUOTA_RETURN_IF_ERROR(ValidateElasticJobAnnotation(*kind, *object));
    if (op == Operation::kCreate) kind->DefaultOnCreate(*object);
    if (op == Operation::kUpdate) kind->DefaultOnUpdate(*object);
    // A job built from another object (a TrainJob's runtime) is checked
    // once the controller has copied it in.
    if (kind->PendingReference(*object)) return Status::Ok();
    return ValidateWorkloadOf(*kind, *object);
  }
  if (const std::string fw = jobs::ServingFramework(resource.kind);
      resource.group == "apps" && !fw.empty() && management_.frameworks().count(fw) != 0) {
    // Kueue's deployment and statefulset webhooks (jobs/serving_workloads.h).
    if (op == Operation::kCreate) DefaultLocalQueue(jobs::JobKind::QueueName(*object), *object);
    jobs::DefaultServingWorkload(fw, *object);
    if (!jobs::JobKind::QueueName(*object).empty()) {
      KUOTA_RETURN_IF_ERROR(ValidateJobQueueNameLabel(*object));
    }
    if (op == Operation::kUpdate && old_object != nullptr) {
      KUOTA_RETURN_IF_ERROR(jobs::ValidateServingUpdate(fw, *old_object, *object));
    }
    return Status::Ok();
  }
  const bool kueue = resource.group == "kueue.x-k8s.io" ||
                     (resource.group == "scheduling.k8s.io" && resource.kind == "PriorityClass") ||
                     (resource.group.empty() && resource.kind == "Namespace");
  if (!kueue) return Status::Ok();
  if (resource.kind == "ProvisioningRequestConfig") {
    DefaultProvisioningRequestConfig(*object);
    return ValidateProvisioningRequestConfig(*object);
  }
  if (IsMultiKueueKind(resource.kind)) {
    DefaultMultiKueueObject(resource.kind, *object);
    return ValidateMultiKueueObject(resource.kind, *object);
  }
  ApplyKueueDefaults(resource.kind, *object);
  codec::DecodeOptions opts;
  opts.max_bytes = 3u << 20;
  // On update the object rules see the stored object (Kueue's Workload rules
  // let a state it was already in stand); it passed admission, read it as
  // the controller does.
  Result<api::Object> old_decoded = Status::Invalid("no stored object");
  if (op == Operation::kUpdate && old_object != nullptr) {
    codec::DecodeOptions lenient;
    lenient.validate = false;
    old_decoded = codec::DecodeJsonObject(*old_object, lenient);
    if (old_decoded.ok()) opts.old_object = &*old_decoded;
  }
  auto decoded = codec::DecodeJsonObject(*object, opts);
  if (!decoded.ok()) {
    return Status(decoded.status().code(), StripDocumentPrefix(decoded.status().message()));
  }
  if (resource.kind == "Workload") KUOTA_RETURN_IF_ERROR(ValidateWorkloadStatusFields(*object));
  if (resource.kind == "ClusterQueue" || resource.kind == "WorkloadPriorityClass") {
    // Kuota's minimum runtime before preemption (engine/minimum_runtime.h).
    api::ObjectMeta meta;
    if (auto m = object->find("metadata"); m != object->end() && m->is_object()) {
      if (auto a = m->find("annotations"); a != m->end() && a->is_object()) {
        for (const auto& [k, v] : a->items()) {
          if (v.is_string()) meta.annotations[k] = v.get<std::string>();
        }
      }
    }
    KUOTA_RETURN_IF_ERROR(
        engine::ReadMinimumRuntime(meta, resource.kind == "ClusterQueue").status());
    // Kuota's reservation and backfill (engine/backfill.h).
    if (resource.kind == "ClusterQueue") {
      KUOTA_RETURN_IF_ERROR(engine::ReadBackfillPolicy(meta).status());
    }
  }
  if (op == Operation::kUpdate && old_object != nullptr) {
    return ValidateKueueUpdate(resource.kind, *old_object, *object);
  }
  return Status::Ok();
}

std::vector<std::string> KuotaAdmissionHook::Warnings(const server::ResourceInfo& resource,
                                                      const server::Json& object) {
  if (resource.group != kVolcanoSchedulingGroup) return {};
  return VolcanoQueueWarnings(object);
}

}  // namespace kuota::control
