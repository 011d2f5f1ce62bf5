// AdmissionWebhook: Kueue's mutating and validating admission webhooks as the
// Kubernetes mode serves them (admission.k8s.io/v1 AdmissionReview over the
// same HTTPS port as /convert, at Kueue's paths: /mutate-batch-v1-job,
// /validate-kueue-x-k8s-io-v1beta2-clusterqueue, ...). Every answer comes
// from control::KuotaAdmissionHook, the rules kuotad applies to its own
// writes: a mutating path returns the hook's changes as a JSONPatch, a
// validating path its refusal (403, as controller-runtime's Denied). Jobs and
// pods Kueue does not manage are allowed untouched. Stateless apart from its
// options; thread-safe (httplib's threads call Review concurrently).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "control/admission_hook.h"
#include "control/job_management.h"

namespace httplib {
class Server;
}

namespace kuota::kube {

// One webhook path: the kind it admits and whether it mutates.
struct AdmissionEndpoint {
  std::string path;  // "/mutate-batch-v1-job"
  bool mutating = false;
  std::string group;    // "" for the core group
  std::string version;  // "v1"
  std::string plural;   // "jobs"
  std::string kind;     // "Job"
};

// Kueue's path for a kind: "/mutate-" or "/validate-", the group with dots as
// dashes, the version and the lower-cased kind ("/mutate--v1-pod").
std::string AdmissionPath(bool mutating, const std::string& group, const std::string& version,
                          const std::string& kind);

// Every path served: each job kind of jobs::JobKinds() and plain pods
// (mutating and validating), and Kueue's ClusterQueue, ResourceFlavor and
// Workload (mutating) and ClusterQueue, Cohort, ResourceFlavor and Workload
// (validating) at kueue.x-k8s.io/v1beta2.
const std::vector<AdmissionEndpoint>& AdmissionEndpoints();

class AdmissionWebhook {
 public:
  // `default_queue`: whether a namespace has a LocalQueue named "default"
  // (Kueue's LocalQueue defaulting); unset, none is looked up.
  // `multikueue`: whether a LocalQueue feeds a MultiKueue ClusterQueue (the
  // jobs' default managedBy); unset, none is looked up.
  explicit AdmissionWebhook(control::JobManagement management,
                            control::KuotaAdmissionHook::DefaultQueueLookup default_queue = {},
                            control::KuotaAdmissionHook::MultiKueueLookup multikueue = {});

  // The AdmissionReview answering one POST of `body` to `endpoint`, as
  // controller-runtime answers: a review that is empty, not JSON, not an
  // application/json body or without a request gets allowed:false with status
  // code 400; a refusal gets allowed:false with code 403, reason Forbidden and
  // a message naming the field; a mutation allowed:true with a base64
  // JSONPatch. DryRun requests are answered alike (the webhook has no side
  // effects).
  nlohmann::json Review(const AdmissionEndpoint& endpoint, std::string_view content_type,
                        const std::string& body) const;

  // Adds a POST handler for every AdmissionEndpoints() path to `server`,
  // which must outlive none of this object's uses (the handlers borrow it).
  void Register(httplib::Server& server) const;

 private:
  nlohmann::json Answer(const AdmissionEndpoint& endpoint, const nlohmann::json& request) const;

  control::JobManagement management_;
  // The rules kuotad applies to its own writes; Admit is const in spirit but
  // not declared so.
  mutable control::KuotaAdmissionHook hook_;
};

}  // namespace kuota::kube
