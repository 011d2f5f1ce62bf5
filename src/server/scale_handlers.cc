// The scale subresource of ResourceHandlers (see resource_handlers.h): GET,
// PUT and PATCH of .../{name}/scale as kube-apiserver serves them. A write
// changes only the object's replicas and goes through the object's own
// admission (its kind's rules and Kueue's webhooks see an update of it).
#include <string>
#include <utility>
#include <vector>

#include "server/json_fields.h"
#include "server/media_types.h"
#include "server/patch.h"
#include "server/resource_handlers.h"
#include "server/scale_subresource.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

constexpr int kScaleWriteAttempts = 5;  // a patch that lost a race is retried, as kube does

HttpReply ScaleReply(int status, const Json& scale) {
  HttpReply reply;
  reply.status = status;
  reply.body = scale.dump();
  return reply;
}

// A Scale error names the object (kind Scale's group is autoscaling, as kube says it).
ApiError ScaleError(const Status& st, const ResourceInfo& r, const std::string& name) {
  if (st.code() == StatusCode::kInvalid) {
    ResourceInfo scale = r;
    scale.group = "autoscaling";
    scale.kind = "Scale";
    return InvalidError(scale, name, st.message());
  }
  return FromStatus(st, r, name);
}

}  // namespace

HttpReply ResourceHandlers::Scale(const HttpRequest& request, const RequestTarget& target) {
  const ResourceInfo& r = *target.resource;
  const std::string& m = request.method;
  if (target.IsCollection()) return MethodNotAllowedError().ToReply();
  if (m == "GET" || m == "HEAD") {
    Result<Json> current = store_.Get(r.StoreKey(), target.ns, target.name);
    if (!current.ok()) return FromStatus(current.status(), r, target.name).ToReply();
    Result<Json> scale = ScaleOf(r, *current);
    if (!scale.ok()) return FromStatus(scale.status(), r, target.name).ToReply();
    return ScaleReply(200, *scale);
  }
  if (m != "PUT" && m != "PATCH") return MethodNotAllowedError().ToReply();
  std::optional<PatchType> type;
  Json body;
  if (m == "PATCH") {
    type = PatchTypeFromContentType(request.content_type);
    if (!type || *type == PatchType::kApplyPatch) return UnsupportedPatchError(r).ToReply();
  } else {
    const std::string media = BaseMediaType(request.content_type);
    if (!media.empty() && media != "application/json" && media != "*/*") {
      return UnsupportedMediaTypeError(
                 "the body of the request was in an unknown format - accepted media types "
                 "include: application/json")
          .ToReply();
    }
    body = Json::parse(request.body, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded() || !body.is_object()) {
      return BadRequestError("the body of a scale update must be an autoscaling/v1 Scale")
          .ToReply();
    }
  }
  const bool dry_run = request.Query("dryRun") == "All";
  for (int attempt = 0;; ++attempt) {
    Result<Json> current = store_.Get(r.StoreKey(), target.ns, target.name);
    if (!current.ok()) return FromStatus(current.status(), r, target.name).ToReply();
    Result<Json> scale = ScaleOf(r, *current);
    if (!scale.ok()) return FromStatus(scale.status(), r, target.name).ToReply();
    Json wanted = body;
    if (type) {
      ApiError error;
      std::optional<Json> patched = ApplyPatch(*type, *scale, request.body, &error);
      if (!patched) return error.ToReply();
      wanted = std::move(*patched);
    }
    Result<Json> object = ApplyScale(r, *current, wanted);
    if (!object.ok()) return ScaleError(object.status(), r, target.name).ToReply();
    std::vector<std::string> warnings;
    if (auto e = Admit(r, AdmissionHook::Operation::kUpdate, &*current, &*object, target.name,
                       {request, "scale", dry_run, &warnings})) {
      return e->ToReply();
    }
    if (dry_run) {
      Result<Json> out = ScaleOf(r, *object);
      return WithWarnings(r, *object, ScaleReply(200, out.ok() ? *out : *scale), warnings);
    }
    store::UpdateOptions options;
    options.current = std::make_shared<Json>(std::move(current).value());
    Result<store::EventPtr> updated =
        store_.UpdateShared(r.StoreKey(), std::move(object).value(), options);
    if (updated.ok()) {
      Result<Json> out = ScaleOf(r, (*updated)->object);
      if (!out.ok()) return InternalError(out.status().message()).ToReply();
      return WithWarnings(r, (*updated)->object, ScaleReply(200, *out), warnings);
    }
    if (updated.status().code() != StatusCode::kConflict || !type ||
        attempt + 1 >= kScaleWriteAttempts) {
      return FromStatus(updated.status(), r, target.name).ToReply();
    }
  }
}

}  // namespace kuota::server
