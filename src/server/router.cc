#include "server/router.h"

#include "server/discovery.h"
#include "server/json_reply.h"
#include "server/media_types.h"
#include "server/openapi.h"
#include "server/request_target.h"
#include "server/resource_info.h"
#include "server/status_errors.h"
#include "server/ui_assets.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;
using Type = RequestTarget::Type;

HttpReply TextReply(std::string text) {
  HttpReply reply;
  reply.content_type = "text/plain; charset=utf-8";
  reply.body = std::move(text);
  return reply;
}

bool IsRead(const HttpRequest& request) {
  return request.method == "GET" || request.method == "HEAD";
}

// The JSON representation of a discovery document, or the aggregated one
// when the client asked for it first.
HttpReply Discovery(const HttpRequest& request, bool core, const Json& legacy) {
  if (Negotiate(request.accept, false, /*allow_discovery=*/true) ==
      Representation::kDiscoveryAggregated) {
    HttpReply reply = JsonReply(AggregatedDiscoveryDocument(core));
    reply.content_type = kDiscoveryV2ContentType;
    return reply;
  }
  return JsonReply(legacy);
}

// The dashboard's static files (public: they hold no data): revalidated on
// each load, and a policy that lets the page load only its own script and
// style and talk only to this server.
HttpReply UiReply(const UiAsset& asset) {
  HttpReply reply;
  reply.content_type = std::string(asset.content_type);
  reply.body = std::string(asset.body);
  reply.headers = {
      {"Cache-Control", "no-cache"},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
      {"Content-Security-Policy",
       "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
       "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
  };
  return reply;
}

}  // namespace

Router::Router(ResourceHandlers& handlers, PodLogs& pod_logs, const VisibilityApi& visibility,
               const metrics::Registry* metrics)
    : handlers_(handlers), pod_logs_(pod_logs), visibility_(visibility), metrics_(metrics) {}

const Router::OpenApiDocuments& Router::OpenApi() {
  std::call_once(openapi_once_, [this] {
    openapi_.v2 = OpenApiV2Document().dump();
    for (const ResourceInfo& r : ServedResources()) {
      std::string key = r.group + "/" + r.version;
      if (openapi_.v3.count(key) == 0)
        openapi_.v3[key] = OpenApiV3Document(r.group, r.version).dump();
    }
    openapi_.v3_index = OpenApiV3Index(openapi_.v3).dump();
  });
  return openapi_;
}

HttpReply Router::Route(const HttpRequest& request) {
  if (std::string ns, name; PodLogs::ParsePath(request.path, &ns, &name)) {
    if (!IsRead(request)) return MethodNotAllowedError().ToReply();
    return pod_logs_.Serve(request, ns, name);
  }
  if (VisibilityApi::Handles(request.path)) return visibility_.Serve(request);
  if (request.path == "/metrics" && metrics_ != nullptr) {
    if (!IsRead(request)) return MethodNotAllowedError().ToReply();
    const metrics::Format format = metrics::FormatForAccept(request.accept);
    HttpReply reply;
    reply.body = metrics_->Render(format);
    reply.content_type = metrics::ContentType(format);
    return reply;
  }
  if (request.path == "/ui" || request.path.rfind("/ui/", 0) == 0) {
    if (!IsRead(request)) return MethodNotAllowedError().ToReply();
    std::optional<UiAsset> asset = FindUiAsset(request.path);
    if (!asset) return UnknownPathError().ToReply();
    return UiReply(*asset);
  }
  RequestTarget target = ParseRequestTarget(request.path);
  if (target.type == Type::kResource) return handlers_.Handle(request, target);
  if (target.type == Type::kUnknown) return UnknownPathError().ToReply();
  if (!IsRead(request)) return MethodNotAllowedError().ToReply();
  switch (target.type) {
    case Type::kVersion:
      return JsonReply(VersionDocument());
    case Type::kHealth:
      return TextReply("ok");
    case Type::kApiVersions:
      return Discovery(request, true, ApiVersionsDocument(request.host));
    case Type::kApiGroupList:
      return Discovery(request, false, ApiGroupListDocument());
    case Type::kApiGroup:
      return JsonReply(ApiGroupDocument(target.group));
    case Type::kApiResourceList:
      return JsonReply(ApiResourceListDocument(target.group, target.version));
    case Type::kOpenApiV2: {
      // Served as JSON only; kubectl asks for protobuf and then does without.
      bool json = request.accept.empty();
      for (const MediaRange& m : ParseAccept(request.accept)) {
        json |= m.type == "application/json" || m.type == "*/*" || m.type == "application/*";
      }
      if (!json) {
        ApiError e = UnknownPathError();
        e.message = "the OpenAPI v2 document is served as application/json only";
        return e.ToReply();
      }
      HttpReply reply;
      reply.body = OpenApi().v2;
      return reply;
    }
    case Type::kOpenApiV3Index: {
      HttpReply reply;
      reply.body = OpenApi().v3_index;
      return reply;
    }
    case Type::kOpenApiV3GroupVersion: {
      const std::map<std::string, std::string>& v3 = OpenApi().v3;
      auto it = v3.find(target.group + "/" + target.version);
      if (it == v3.end()) return UnknownPathError().ToReply();
      HttpReply reply;
      reply.body = it->second;
      // The URL carries the document's hash: clients may cache it for good.
      reply.headers.emplace_back("Cache-Control", "public, immutable");
      return reply;
    }
    case Type::kUnknown:
    case Type::kResource:
      break;
  }
  return UnknownPathError().ToReply();
}

}  // namespace kuota::server
