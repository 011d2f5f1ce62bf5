#include "server/patch.h"

#include <algorithm>
#include <exception>
#include <set>

#include "server/json_limits.h"
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

// What the operations of one JSON patch may copy into the object, in all.
constexpr size_t kMaxPatchTraffic = 16 * kMaxObjectBytes;

ApiError InvalidPatch(const std::string& message) {
  ApiError err;
  err.code = 422;
  err.reason = "Invalid";
  err.message = "the server rejected our request due to an error in our request: " + message;
  return err;
}

ApiError PatchTooLarge(const std::string& what) {
  ApiError err = TooLargeError(kMaxObjectBytes);
  err.message = what;
  return err;
}

// The value a JSON patch operation brings into the document (add, replace:
// its "value"; copy: the value at "from"), or null when it brings none or
// "from" does not resolve (the operation itself then reports that).
const Json* IncomingValue(const Json& doc, const Json& op) {
  if (!op.is_object()) return nullptr;
  auto kind = op.find("op");
  if (kind == op.end() || !kind->is_string()) return nullptr;
  if (*kind == "add" || *kind == "replace") {
    auto v = op.find("value");
    return v == op.end() ? nullptr : &*v;
  }
  if (*kind == "copy") {
    auto from = op.find("from");
    if (from == op.end() || !from->is_string()) return nullptr;
    try {
      const Json::json_pointer ptr(from->get<std::string>());
      return doc.contains(ptr) ? &doc.at(ptr) : nullptr;
    } catch (const Json::exception&) {
      return nullptr;
    }
  }
  return nullptr;
}

// The value an operation takes out of the document (remove, replace: the
// value at "path"), or null.
const Json* OutgoingValue(const Json& doc, const Json& op) {
  if (!op.is_object()) return nullptr;
  auto kind = op.find("op");
  if (kind == op.end() || !(*kind == "remove" || *kind == "replace")) return nullptr;
  auto path = op.find("path");
  if (path == op.end() || !path->is_string()) return nullptr;
  try {
    const Json::json_pointer ptr(path->get<std::string>());
    return doc.contains(ptr) ? &doc.at(ptr) : nullptr;
  } catch (const Json::exception&) {
    return nullptr;
  }
}

// Applies an RFC 6902 patch one operation at a time, in place, keeping a
// running bound on the document's size and depth so that a patch whose
// operations each double the document (copy) stops at the limit instead of
// exhausting memory.
std::optional<Json> ApplyJsonPatch(const Json& current, const Json& patch, ApiError* error) {
  if (patch.size() > kMaxJsonPatchOperations) {
    *error = InvalidPatch("the allowed maximum operations in a JSON patch is " +
                          std::to_string(kMaxJsonPatchOperations) + ", got " +
                          std::to_string(patch.size()));
    return std::nullopt;
  }
  Json doc = current;
  size_t size = JsonSizeBound(doc, kMaxObjectBytes);
  int depth = JsonDepth(doc);
  size_t moved = 0;  // bytes the operations brought in, in all
  for (size_t i = 0; i < patch.size(); ++i) {
    const Json& op = patch[i];
    if (const Json* in = IncomingValue(doc, op)) {
      const size_t in_size = JsonSizeBound(*in, kMaxObjectBytes);
      size += in_size;
      moved += in_size;
      if (moved > kMaxPatchTraffic) {
        *error = PatchTooLarge("the JSON patch's operations copy more than the limit of " +
                               std::to_string(kMaxPatchTraffic) + " bytes in all");
        return std::nullopt;
      }
      auto p = op.find("path");
      const std::string path = p != op.end() && p->is_string() ? p->get<std::string>() : "";
      const int at = static_cast<int>(std::count(path.begin(), path.end(), '/'));
      depth = std::max(depth, at + JsonDepth(*in));
      if (depth > kMaxJsonDepth) {
        *error = InvalidPatch("operation " + std::to_string(i) +
                              ": the patched object would nest deeper than the limit of " +
                              std::to_string(kMaxJsonDepth) + " levels");
        return std::nullopt;
      }
    }
    if (const Json* out = OutgoingValue(doc, op)) {
      const size_t removed = JsonSizeBound(*out, kMaxObjectBytes);
      size = removed > size ? 0 : size - removed;
    }
    if (size > kMaxObjectBytes) {
      *error = PatchTooLarge("operation " + std::to_string(i) +
                             " of the JSON patch would make the object larger than the limit of " +
                             std::to_string(kMaxObjectBytes) + " bytes");
      return std::nullopt;
    }
    try {
      doc.patch_inplace(Json::array({op}));
    } catch (const Json::exception& e) {
      *error = InvalidPatch(CleanMessage(e));
      return std::nullopt;
    }
  }
  return doc;
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
  // kube-apiserver's own groups among those served (custom resources have
  // no strategic merge patch).
  static const std::set<std::string> kBuiltIn = {"",
                                                 "apps",
                                                 "batch",
                                                 "scheduling.k8s.io",
                                                 "rbac.authorization.k8s.io",
                                                 "coordination.k8s.io",
                                                 "apiextensions.k8s.io",
                                                 "admissionregistration.k8s.io",
                                                 "apiregistration.k8s.io"};
  return kBuiltIn.count(resource.group) != 0;
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
  if (std::optional<std::string> deep = CheckJsonTextDepth(body)) {
    *error = BadRequestError("error decoding patch: " + *deep);
    return std::nullopt;
  }
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
      return ApplyJsonPatch(current, patch, error);
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
