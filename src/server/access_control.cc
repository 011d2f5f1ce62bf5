#include "server/access_control.h"

#include <nlohmann/json.hpp>

#include "auth/base64.h"
#include "auth/request_info.h"
#include "server/json_reply.h"
#include "server/media_types.h"
#include "server/protobuf_body.h"
#include "server/status_errors.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

constexpr const char* kLoginPath = "/kuota/v1/login";

HttpReply Unauthorized() {
  ApiError e;
  e.code = 401;
  e.reason = "Unauthorized";
  e.message = "Unauthorized";
  return e.ToReply();
}

// kube-apiserver's wording, which kubectl prints after "Error from server (Forbidden): ".
HttpReply Forbidden(const auth::UserInfo& user, const auth::RequestInfo& r) {
  ApiError e;
  e.code = 403;
  e.reason = "Forbidden";
  if (!r.resource_request) {
    e.message =
        "forbidden: User \"" + user.name + "\" cannot " + r.verb + " path \"" + r.path + "\"";
    return e.ToReply();
  }
  std::string what = r.resource + (r.subresource.empty() ? "" : "/" + r.subresource);
  std::string subject = auth::QualifiedResource(r);
  if (!r.subresource.empty()) subject = r.resource + (r.api_group.empty() ? "" : "." + r.api_group);
  e.message = subject + (r.name.empty() ? "" : " \"" + r.name + "\"") + " is forbidden: User \"" +
              user.name + "\" cannot " + r.verb + " resource \"" + what + "\" in API group \"" +
              r.api_group + "\"" +
              (r.ns.empty() ? " at the cluster scope" : " in the namespace \"" + r.ns + "\"");
  e.name = r.name;
  e.group = r.api_group;
  e.kind = r.resource;
  return e.ToReply();
}

bool IsPublic(const std::string& path) {
  // "/ui": the web dashboard's static files, which carry no data (the page
  // reads the API with its user's token).
  for (const char* p : {"/healthz", "/livez", "/readyz", "/version", "/ui"}) {
    std::string s(p);
    if (path == s || path.rfind(s + "/", 0) == 0) return true;
  }
  return false;
}

std::string Str(const Json& j, const char* field) {
  if (!j.is_object()) return "";
  auto it = j.find(field);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// The body of a review: JSON, or protobuf as kubectl's typed clients send it
// (`auth can-i`, `auth whoami`); its apiVersion and kind come from the path
// /apis/GROUP/VERSION/PLURAL.
std::optional<Json> ParseBody(const HttpRequest& request, HttpReply* error) {
  if (BaseMediaType(request.content_type) == kProtobufContentType) {
    std::string_view p = request.path;
    p.remove_prefix(std::string_view("/apis/").size());
    const size_t last = p.rfind('/');
    const std::string api_version(p.substr(0, last));
    const std::string_view plural = p.substr(last + 1);
    const char* kind = plural == "selfsubjectaccessreviews"  ? "SelfSubjectAccessReview"
                       : plural == "selfsubjectrulesreviews" ? "SelfSubjectRulesReview"
                                                             : "SelfSubjectReview";
    Result<Json> decoded = DecodeProtobufKind(request.body, api_version, kind);
    if (!decoded.ok()) {
      *error = BadRequestError(decoded.status().message()).ToReply();
      return std::nullopt;
    }
    return std::move(decoded).value();
  }
  Json body = Json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    *error = BadRequestError("the request body is not a JSON object").ToReply();
    return std::nullopt;
  }
  return body;
}

// A review's spec.resourceAttributes or spec.nonResourceAttributes as the
// request attributes RBAC decides on; false when it has neither.
bool ReviewAttributes(const Json& spec, auth::RequestInfo* info) {
  if (spec.contains("resourceAttributes")) {
    const Json& a = spec["resourceAttributes"];
    info->resource_request = true;
    info->verb = Str(a, "verb");
    info->api_group = Str(a, "group");
    info->api_version = Str(a, "version");
    info->resource = Str(a, "resource");
    info->subresource = Str(a, "subresource");
    info->ns = Str(a, "namespace");
    info->name = Str(a, "name");
    return true;
  }
  if (spec.contains("nonResourceAttributes")) {
    const Json& a = spec["nonResourceAttributes"];
    info->verb = Str(a, "verb");
    info->path = Str(a, "path");
    return true;
  }
  return false;
}

// A SubjectAccessReview (authorization.k8s.io/v1): may spec.user, in
// spec.groups, do what the attributes say? Asked by servers that delegate
// authorization to this one (an extension API server behind the aggregator);
// the caller itself must be allowed to create subjectaccessreviews.
std::optional<HttpReply> ServeSubjectAccessReview(const HttpRequest& request,
                                                  const auth::RbacAuthorizer* authorizer) {
  if (request.path != "/apis/authorization.k8s.io/v1/subjectaccessreviews") return std::nullopt;
  if (request.method != "POST") return MethodNotAllowedError().ToReply();
  HttpReply error;
  std::optional<Json> body = ParseBody(request, &error);
  if (!body) return error;
  Json review = *body;
  const Json spec = review.value("spec", Json::object());
  auth::UserInfo subject;
  subject.name = Str(spec, "user");
  if (spec.contains("groups") && spec["groups"].is_array()) {
    for (const Json& g : spec["groups"]) {
      if (g.is_string()) subject.groups.push_back(g.get<std::string>());
    }
  }
  subject.authenticated = true;
  if (subject.name.empty() && subject.groups.empty()) {
    return BadRequestError(
               "spec.user: Invalid value: \"\": at least one of user or group must be specified")
        .ToReply();
  }
  auth::RequestInfo info;
  if (!ReviewAttributes(spec, &info)) {
    return BadRequestError(
               "spec: Invalid value: one of resourceAttributes or nonResourceAttributes is "
               "required")
        .ToReply();
  }
  auth::Decision d = authorizer != nullptr ? authorizer->Authorize(subject, info)
                                           : auth::Decision{true, "authorization is off"};
  if (subject.IsAdmin()) d = {true, std::string("member of ") + auth::kGroupMasters};
  review["status"] = {{"allowed", d.allowed}};
  if (!d.reason.empty()) review["status"]["reason"] = d.reason;
  return JsonReply(review, 201);
}

}  // namespace

std::optional<HttpReply> AccessControl::Check(HttpRequest& request) {
  if (!enabled()) {
    request.user.name = "kuota-admin";
    request.user.groups = {auth::kGroupMasters, auth::kGroupAuthenticated};
    request.user.authenticated = true;
    if (std::optional<HttpReply> self = ServeSelf(request)) return self;
    return ServeSubjectAccessReview(request, nullptr);
  }
  std::optional<auth::UserInfo> user;
  if (request.peer_uid >= 0) {
    user = options_.authenticator->FromUid(static_cast<uid_t>(request.peer_uid));
  } else if (!request.authorization.empty()) {
    user = options_.authenticator->FromAuthorization(request.authorization);
    // A credential that is not good is refused even where anonymous access
    // is allowed, as kube-apiserver does.
    if (!user) return Unauthorized();
  }
  if (!user) {
    if (IsPublic(request.path) && (request.method == "GET" || request.method == "HEAD")) {
      request.user = auth::Anonymous();
      return std::nullopt;
    }
    return Unauthorized();
  }
  request.user = std::move(*user);
  if (!request.user.IsAdmin()) Provision(request.user);
  if (std::optional<HttpReply> self = ServeSelf(request)) return self;
  auth::RequestInfo info =
      auth::ParseRequestInfo(request.method, request.path,
                             request.Query("watch") == "true" || request.Query("watch") == "1");
  auth::Decision d = options_.authorizer->Authorize(request.user, info);
  if (!d.allowed) return Forbidden(request.user, info);
  return ServeSubjectAccessReview(request, options_.authorizer);
}

void AccessControl::Provision(const auth::UserInfo& user) {
  if (!options_.provision_user) return;
  {
    std::lock_guard lock(mu_);
    if (provisioned_.count(user.uid) > 0) return;
  }
  Result<std::string> ns = options_.provision_user(user);
  if (!ns.ok()) return;  // tried again on the user's next request
  std::lock_guard lock(mu_);
  provisioned_.insert(user.uid);
}

std::optional<HttpReply> AccessControl::ServeSelf(const HttpRequest& request) {
  const std::string& p = request.path;
  const bool post = request.method == "POST";
  if (p == kLoginPath) {
    if (!post) return MethodNotAllowedError().ToReply();
    return Login(request);
  }
  static const std::string kAuthz = "/apis/authorization.k8s.io/";
  static const std::string kAuthn = "/apis/authentication.k8s.io/";
  const bool access_review =
      p.rfind(kAuthz, 0) == 0 && p.size() > kAuthz.size() &&
      (p.ends_with("/selfsubjectaccessreviews") || p.ends_with("/selfsubjectrulesreviews"));
  const bool self_review = p.rfind(kAuthn, 0) == 0 && p.ends_with("/selfsubjectreviews");
  if (!access_review && !self_review) return std::nullopt;
  if (!post) return MethodNotAllowedError().ToReply();
  HttpReply error;
  std::optional<Json> body = ParseBody(request, &error);
  if (!body) return error;
  Json review = *body;
  const auth::UserInfo& user = request.user;
  if (self_review) {
    Json info = {{"username", user.name}, {"groups", user.groups}};
    if (user.uid >= 0) info["uid"] = std::to_string(user.uid);
    review["status"] = {{"userInfo", info}};
    return JsonReply(review, 201);
  }
  const Json spec = review.value("spec", Json::object());
  if (p.ends_with("/selfsubjectaccessreviews")) {
    auth::RequestInfo info;
    if (!ReviewAttributes(spec, &info)) {
      return BadRequestError(
                 "spec: Invalid value: one of resourceAttributes or nonResourceAttributes is "
                 "required")
          .ToReply();
    }
    auth::Decision d = options_.authorizer != nullptr
                           ? options_.authorizer->Authorize(user, info)
                           : auth::Decision{true, "authorization is off"};
    if (user.IsAdmin()) d = {true, std::string("member of ") + auth::kGroupMasters};
    review["status"] = {{"allowed", d.allowed}};
    if (!d.reason.empty()) review["status"]["reason"] = d.reason;
    return JsonReply(review, 201);
  }
  // SelfSubjectRulesReview.
  std::vector<Json> rules;
  if (options_.authorizer != nullptr) {
    rules = options_.authorizer->RulesFor(user, Str(spec, "namespace"));
  }
  if (user.IsAdmin() || options_.authorizer == nullptr) {
    rules = {{{"apiGroups", {"*"}}, {"resources", {"*"}}, {"verbs", {"*"}}},
             {{"nonResourceURLs", {"*"}}, {"verbs", {"*"}}}};
  }
  Json resource_rules = Json::array(), non_resource_rules = Json::array();
  for (const Json& r : rules) {
    if (r.contains("nonResourceURLs")) {
      non_resource_rules.push_back(
          {{"verbs", r.value("verbs", Json::array())}, {"nonResourceURLs", r["nonResourceURLs"]}});
    } else {
      Json rr = {{"verbs", r.value("verbs", Json::array())},
                 {"apiGroups", r.value("apiGroups", Json::array())},
                 {"resources", r.value("resources", Json::array())}};
      if (r.contains("resourceNames")) rr["resourceNames"] = r["resourceNames"];
      resource_rules.push_back(rr);
    }
  }
  review["status"] = {{"resourceRules", resource_rules},
                      {"nonResourceRules", non_resource_rules},
                      {"incomplete", false}};
  return JsonReply(review, 201);
}

HttpReply AccessControl::Login(const HttpRequest& request) {
  if (request.peer_uid < 0 || options_.authenticator == nullptr) {
    ApiError e;
    e.code = 403;
    e.reason = "Forbidden";
    e.message = options_.authenticator == nullptr
                    ? "kuotad runs without authentication (--insecure-http): there is nothing to "
                      "log in to"
                    : "log in over kuotad's Unix socket (`kuota login`), where the operating "
                      "system says who you are";
    return e.ToReply();
  }
  const auth::UserInfo& user = request.user;
  std::string ns;
  if (!user.IsAdmin() && options_.provision_user) {
    Result<std::string> made = options_.provision_user(user);
    if (!made.ok())
      return InternalError("creating your namespace: " + made.status().ToString()).ToReply();
    ns = *made;
  }
  Json reply = {{"kind", "LoginResult"},
                {"apiVersion", "kuota.dev/v1"},
                {"user", user.name},
                {"uid", user.uid},
                {"groups", user.groups},
                {"namespace", ns},
                {"token", options_.authenticator->IssueToken(static_cast<uid_t>(user.uid))},
                {"server", options_.server_url},
                {"certificateAuthorityData", auth::Base64Encode(options_.ca_pem)}};
  return JsonReply(reply, 200);
}

}  // namespace kuota::server
