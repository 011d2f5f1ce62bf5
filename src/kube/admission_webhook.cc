#include "kube/admission_webhook.h"

#include <algorithm>
#include <cctype>

#include <httplib.h>

#include "api/conversion/kueue_conversion.h"
#include "auth/base64.h"
#include "jobs/registry.h"
#include "server/resource_info.h"

namespace kuota::kube {
namespace {

using Json = nlohmann::json;
using Operation = server::AdmissionHook::Operation;

constexpr const char* kAdmissionV1 = "admission.k8s.io/v1";
constexpr const char* kKueueGroupName = "kueue.x-k8s.io";
// controller-runtime's limit: two objects of at most 3 MiB and the rest.
constexpr size_t kMaxAdmissionReviewBytes = size_t{7} << 20;

std::string LowerAscii(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// controller-runtime's Errored: not allowed, the code and the message, no reason.
Json ErroredResponse(int code, const std::string& message) {
  return {{"allowed", false}, {"status", {{"code", code}, {"message", message}}}};
}

// controller-runtime's Denied: 403 Forbidden, the validation message.
Json DeniedResponse(const std::string& message) {
  return {{"allowed", false},
          {"status", {{"code", 403}, {"reason", "Forbidden"}, {"message", message}}}};
}

Json AllowedResponse() { return {{"allowed", true}}; }

std::string StringMember(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// The version of a kueue.x-k8s.io object's apiVersion ("v1beta2"), or "".
std::string KueueVersionOf(const Json& object) {
  const std::string api_version = StringMember(object, "apiVersion");
  const std::string prefix = std::string(kKueueGroupName) + "/";
  return api_version.rfind(prefix, 0) == 0 ? api_version.substr(prefix.size()) : "";
}

// A Kueue object in the version kuotad stores and the hook reads (v1beta2).
Result<Json> ToStoredVersion(const Json& object) {
  if (!conversion::IsConvertibleKind(StringMember(object, "kind"))) return object;
  return conversion::Convert(object, conversion::kV1beta2);
}

// The JSONPatch that takes `before` to `after`, both read in `version` (a
// Kueue object's served version; empty: as they are).
Result<Json> PatchBetween(const Json& before, const Json& after, const std::string& version) {
  if (version.empty() || version == conversion::kV1beta2) return Json::diff(before, after);
  Result<Json> from = conversion::Convert(before, version);
  if (!from.ok()) return from.status();
  Result<Json> to = conversion::Convert(after, version);
  if (!to.ok()) return to.status();
  return Json::diff(*from, *to);
}

bool ParseOperation(const std::string& name, Operation* op) {
  if (name == "CREATE") {
    *op = Operation::kCreate;
  } else if (name == "UPDATE") {
    *op = Operation::kUpdate;
  } else if (name == "DELETE") {
    *op = Operation::kDelete;
  } else {
    return false;
  }
  return true;
}

void AddEndpoint(std::vector<AdmissionEndpoint>& out, bool mutating, const std::string& group,
                 const std::string& version, const std::string& plural, const std::string& kind) {
  out.push_back(AdmissionEndpoint{AdmissionPath(mutating, group, version, kind), mutating, group,
                                  version, plural, kind});
}

}  // namespace

std::string AdmissionPath(bool mutating, const std::string& group, const std::string& version,
                          const std::string& kind) {
  std::string dashed = group;
  std::replace(dashed.begin(), dashed.end(), '.', '-');
  return std::string(mutating ? "/mutate-" : "/validate-") + dashed + "-" + version + "-" +
         LowerAscii(kind);
}

const std::vector<AdmissionEndpoint>& AdmissionEndpoints() {
  static const std::vector<AdmissionEndpoint> endpoints = [] {
    std::vector<AdmissionEndpoint> v;
    for (const auto& k : jobs::JobKinds()) {
      const jobs::KindInfo& i = k->Info();
      AddEndpoint(v, true, i.group, i.version, i.plural, i.kind);
      AddEndpoint(v, false, i.group, i.version, i.plural, i.kind);
    }
    AddEndpoint(v, true, "", "v1", "pods", "Pod");
    AddEndpoint(v, false, "", "v1", "pods", "Pod");
    // Kueue's deployment and statefulset webhooks (jobs/serving_workloads.h).
    AddEndpoint(v, true, "apps", "v1", "deployments", "Deployment");
    AddEndpoint(v, false, "apps", "v1", "deployments", "Deployment");
    AddEndpoint(v, true, "apps", "v1", "statefulsets", "StatefulSet");
    AddEndpoint(v, false, "apps", "v1", "statefulsets", "StatefulSet");
    const std::string version(conversion::kV1beta2);
    AddEndpoint(v, true, kKueueGroupName, version, "clusterqueues", "ClusterQueue");
    AddEndpoint(v, true, kKueueGroupName, version, "resourceflavors", "ResourceFlavor");
    AddEndpoint(v, true, kKueueGroupName, version, "workloads", "Workload");
    AddEndpoint(v, false, kKueueGroupName, version, "clusterqueues", "ClusterQueue");
    AddEndpoint(v, false, kKueueGroupName, version, "cohorts", "Cohort");
    AddEndpoint(v, false, kKueueGroupName, version, "resourceflavors", "ResourceFlavor");
    AddEndpoint(v, false, kKueueGroupName, version, "workloads", "Workload");
    return v;
  }();
  return endpoints;
}

AdmissionWebhook::AdmissionWebhook(control::JobManagement management,
                                   control::KuotaAdmissionHook::DefaultQueueLookup default_queue,
                                   control::KuotaAdmissionHook::MultiKueueLookup multikueue)
    : management_(management),
      hook_(std::move(management), std::move(default_queue), std::move(multikueue)) {}

Json AdmissionWebhook::Review(const AdmissionEndpoint& endpoint, std::string_view content_type,
                              const std::string& body) const {
  Json review = {{"apiVersion", kAdmissionV1}, {"kind", "AdmissionReview"}};
  auto fail = [&](int code, const std::string& message) {
    review["response"] = ErroredResponse(code, message);
    review["response"]["uid"] = "";
    return review;
  };
  if (body.empty()) return fail(400, "request body is empty");
  if (body.size() > kMaxAdmissionReviewBytes) {
    return fail(413, "request entity is too large; limit is " +
                         std::to_string(kMaxAdmissionReviewBytes) + " bytes");
  }
  const std::string_view media = content_type.substr(0, content_type.find(';'));
  if (media != "application/json") {
    return fail(400, "contentType=" + std::string(content_type) + ", expected application/json");
  }
  Json in = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (in.is_discarded() || !in.is_object()) {
    return fail(400, "the body is not a JSON AdmissionReview object");
  }
  const std::string api_version = StringMember(in, "apiVersion");
  if (!api_version.empty() && api_version != kAdmissionV1 &&
      api_version != "admission.k8s.io/v1beta1") {
    return fail(400, "apiVersion: Unsupported value: \"" + api_version +
                         "\": supported values: \"admission.k8s.io/v1\"");
  }
  if (!api_version.empty()) review["apiVersion"] = api_version;
  auto request = in.find("request");
  if (request == in.end() || !request->is_object()) {
    return fail(400, "request: Required value: an AdmissionReview to answer must carry a request");
  }
  auto uid = request->find("uid");
  if (uid == request->end() || !uid->is_string() || uid->get<std::string>().empty()) {
    return fail(400, "request.uid: Required value");
  }
  review["response"] = Answer(endpoint, *request);
  review["response"]["uid"] = *uid;
  return review;
}

Json AdmissionWebhook::Answer(const AdmissionEndpoint& endpoint, const Json& request) const {
  Operation op;
  const std::string op_name = StringMember(request, "operation");
  if (!ParseOperation(op_name, &op)) {
    if (op_name == "CONNECT") return AllowedResponse();
    return ErroredResponse(400, "request.operation: Unsupported value: \"" + op_name +
                                    "\": supported values: \"CREATE\", \"UPDATE\", \"DELETE\"");
  }
  if (auto res = request.find("resource"); res != request.end() && res->is_object()) {
    const std::string group = StringMember(*res, "group");
    const std::string plural = StringMember(*res, "resource");
    if (group != endpoint.group || plural != endpoint.plural) {
      return ErroredResponse(400, "request.resource: Invalid value: \"" + plural +
                                      (group.empty() ? "" : "." + group) + "\": " + endpoint.path +
                                      " admits " + endpoint.plural +
                                      (endpoint.group.empty() ? "" : "." + endpoint.group));
    }
  }
  // Kueue's webhooks admit creates and updates (and a Workload's status).
  const std::string sub = StringMember(request, "subResource");
  if (op == Operation::kDelete || (!sub.empty() && sub != "status")) return AllowedResponse();
  // (The deployment and statefulset defaulters run on updates too, as Kueue's.)
  if (endpoint.mutating && op != Operation::kCreate && endpoint.group != "apps") {
    return AllowedResponse();
  }

  auto object_it = request.find("object");
  if (object_it == request.end() || !object_it->is_object()) {
    return ErroredResponse(
        400, "request.object: Required value: a " + op_name + " review must carry the object");
  }
  const Json* old_in = nullptr;
  if (op == Operation::kUpdate) {
    auto old_it = request.find("oldObject");
    if (old_it == request.end() || !old_it->is_object()) {
      return ErroredResponse(400,
                             "request.oldObject: Required value: an UPDATE review must "
                             "carry the object as it was");
    }
    old_in = &*old_it;
  }

  const server::ResourceInfo* found = server::FindResource(endpoint.group, endpoint.plural);
  if (found == nullptr) {
    return ErroredResponse(500, "no served kind for " + endpoint.plural);
  }
  const server::ResourceInfo& resource = server::StorageResource(*found);
  const jobs::JobKind* job_kind = jobs::FindJobKind(resource.StoreKey());
  const bool pod = endpoint.group.empty() && endpoint.plural == "pods";

  // Jobs and pods Kueue does not manage (before or after) are not Kueue's.
  if (job_kind != nullptr) {
    if (!management_.Manages(*job_kind, *object_it) &&
        (old_in == nullptr || !management_.Manages(*job_kind, *old_in))) {
      return AllowedResponse();
    }
  } else if (pod) {
    if (!management_.ManagesPod(*object_it) &&
        (old_in == nullptr || !management_.ManagesPod(*old_in))) {
      return AllowedResponse();
    }
  }

  // The hook reads Kueue's objects in their stored version.
  const std::string served_version = KueueVersionOf(*object_it);
  Result<Json> object = ToStoredVersion(*object_it);
  if (!object.ok()) return DeniedResponse(object.status().message());
  Json old_object;
  if (old_in != nullptr) {
    Result<Json> old = ToStoredVersion(*old_in);
    if (!old.ok()) return DeniedResponse("oldObject: " + old.status().message());
    old_object = std::move(*old);
  }

  if (endpoint.mutating) {
    // The kind's operator defaults first, so that the patch holds Kueue's
    // changes alone (the operator's own webhook defaults on the cluster).
    if (job_kind != nullptr) job_kind->Default(*object);
    Json admitted = *object;
    Status st = hook_.Admit(resource, op, nullptr, &admitted);
    // An object the rules refuse is left as it came: the validating webhook
    // refuses it with the rule's message.
    if (!st.ok()) return AllowedResponse();
    Result<Json> patch = PatchBetween(*object, admitted, served_version);
    if (!patch.ok()) return ErroredResponse(500, patch.status().message());
    Json response = AllowedResponse();
    if (!patch->empty()) {
      response["patchType"] = "JSONPatch";
      response["patch"] = auth::Base64Encode(patch->dump());
    }
    return response;
  }

  Json checked = *object;
  Status st = hook_.Admit(resource, op, old_in != nullptr ? &old_object : nullptr, &checked);
  if (!st.ok()) return DeniedResponse(st.message());
  Json response = AllowedResponse();
  std::vector<std::string> warnings = hook_.Warnings(resource, checked);
  if (!warnings.empty()) response["warnings"] = warnings;
  return response;
}

void AdmissionWebhook::Register(httplib::Server& server) const {
  for (const AdmissionEndpoint& endpoint : AdmissionEndpoints()) {
    server.Post(
        endpoint.path, [this, &endpoint](const httplib::Request& req, httplib::Response& res) {
          Json answer = Review(endpoint, req.get_header_value("Content-Type"), req.body);
          res.set_content(answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                          "application/json");
        });
  }
}

}  // namespace kuota::kube
