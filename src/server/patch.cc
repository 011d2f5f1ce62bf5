#include "server/patch.h"

#include <exception>

#include "server/media_types.h"
#include "server/strategic_merge_patch.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

// nlohmann's messages start with "[json.exception.type.NNN] "; kube's do not.
std::string CleanMessage(const std::exception& e) {
  std::string m = e.what();
  if (!m.empty() && m[0] == '[') {
    size_t close = m.find("] ");
    if (close != std::string::npos) m = m.substr(close + 2);
  }
  return m;
}

}  // namespace

std::optional<PatchType> PatchTypeFromContentType(std::string_view content_type) {
  std::string type = BaseMediaType(content_type);
  if (type == "application/json-patch+json") return PatchType::kJsonPatch;
  if (type == "application/merge-patch+json") return PatchType::kMergePatch;
  if (type == "application/strategic-merge-patch+json") return PatchType::kStrategicMergePatch;
  if (type == "application/apply-patch+yaml" || type == "application/apply-patch+json") {
    return PatchType::kApplyPatch;
  }
  return std::nullopt;
}

bool SupportsStrategicMergePatch(const ResourceInfo& resource) {
  return resource.group.empty() || resource.group == "batch" ||
         resource.group == "scheduling.k8s.io";
}

ApiError UnsupportedPatchError(const ResourceInfo& resource) {
  std::string types = "application/json-patch+json, application/merge-patch+json";
  if (SupportsStrategicMergePatch(resource)) types += ", application/strategic-merge-patch+json";
  types += ", application/apply-patch+yaml";
  return UnsupportedMediaTypeError(
      "the body of the request was in an unknown format - accepted media types include: " + types);
}

std::optional<Json> ApplyPatch(PatchType type, const Json& current, std::string_view body,
                               ApiError* error) {
  Json patch = Json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (patch.is_discarded()) {
    *error = BadRequestError(type == PatchType::kApplyPatch
                                 ? "error decoding YAML: only JSON-compatible apply "
                                   "configurations are supported"
                                 : "error decoding patch: invalid JSON");
    return std::nullopt;
  }
  switch (type) {
    case PatchType::kJsonPatch: {
      if (!patch.is_array()) {
        *error = BadRequestError("json: cannot unmarshal " + std::string(patch.type_name()) +
                                 " into Go value of type jsonpatch.Patch");
        return std::nullopt;
      }
      try {
        return current.patch(patch);
      } catch (const Json::exception& e) {
        ApiError err;
        err.code = 422;
        err.reason = "Invalid";
        err.message = "the server rejected our request due to an error in our request: " +
                      CleanMessage(e);
        *error = err;
        return std::nullopt;
      }
    }
    case PatchType::kMergePatch:
    case PatchType::kApplyPatch: {
      if (!patch.is_object()) {
        *error = BadRequestError("error decoding patch: the patch must be a JSON object");
        return std::nullopt;
      }
      Json result = current;
      result.merge_patch(patch);
      return result;
    }
    case PatchType::kStrategicMergePatch: {
      Result<Json> result = StrategicMergePatch(current, patch);
      if (!result.ok()) {
        *error = BadRequestError(result.status().message());
        return std::nullopt;
      }
      return std::move(result).value();
    }
  }
  *error = InternalError("unknown patch type");
  return std::nullopt;
}

}  // namespace kuota::server
