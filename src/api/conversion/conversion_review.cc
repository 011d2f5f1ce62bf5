#include "api/conversion/conversion_review.h"

#include <string>

#include "api/conversion/kueue_conversion.h"

namespace kuota::conversion {
namespace {

using Json = nlohmann::json;

constexpr const char* kReviewApiVersion = "apiextensions.k8s.io/v1";

Json Answer(const std::string& uid, Json converted, const std::string& failure) {
  Json response = {{"uid", uid}};
  if (failure.empty()) {
    response["convertedObjects"] = std::move(converted);
    response["result"] = {{"status", "Success"}};
  } else {
    response["convertedObjects"] = Json::array();
    response["result"] = {{"status", "Failure"}, {"message", failure}};
  }
  return {{"apiVersion", kReviewApiVersion},
          {"kind", "ConversionReview"},
          {"response", std::move(response)}};
}

std::string StringAt(const Json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// "objects[2] (ClusterQueue cq)" for messages.
std::string Describe(size_t index, const Json& object) {
  std::string text = "request.objects[" + std::to_string(index) + "]";
  std::string kind = StringAt(object, "kind");
  std::string name;
  if (object.is_object() && object.contains("metadata"))
    name = StringAt(object["metadata"], "name");
  if (!kind.empty() || !name.empty()) text += " (" + kind + (name.empty() ? "" : " " + name) + ")";
  return text;
}

}  // namespace

Json ReviewConversion(const Json& review) {
  if (!review.is_object()) return Answer("", nullptr, "the body is not a ConversionReview object");
  const Json* request = nullptr;
  if (auto it = review.find("request"); it != review.end() && it->is_object()) request = &*it;
  std::string uid = request != nullptr ? StringAt(*request, "uid") : "";
  const std::string kind = StringAt(review, "kind");
  const std::string api_version = StringAt(review, "apiVersion");
  if (kind != "ConversionReview" || api_version != kReviewApiVersion) {
    return Answer(uid, nullptr,
                  "expected kind ConversionReview of apiVersion apiextensions.k8s.io/v1, got "
                  "kind \"" +
                      kind + "\" of apiVersion \"" + api_version + "\"");
  }
  if (request == nullptr) return Answer(uid, nullptr, "request: Required value");
  if (uid.empty()) return Answer(uid, nullptr, "request.uid: Required value");
  const std::string desired = StringAt(*request, "desiredAPIVersion");
  const std::string prefix = std::string(kKueueGroup) + "/";
  std::string to_version =
      desired.rfind(prefix, 0) == 0 ? desired.substr(prefix.size()) : std::string();
  if (to_version != kV1beta1 && to_version != kV1beta2) {
    return Answer(uid, nullptr,
                  "request.desiredAPIVersion: Unsupported value: \"" + desired +
                      "\": supported values: \"kueue.x-k8s.io/v1beta1\", "
                      "\"kueue.x-k8s.io/v1beta2\"");
  }
  auto objects = request->find("objects");
  if (objects == request->end() || !objects->is_array()) {
    return Answer(uid, nullptr, "request.objects: Required value: a list of objects");
  }
  Json converted = Json::array();
  for (size_t i = 0; i < objects->size(); ++i) {
    const Json& object = (*objects)[i];
    if (!object.is_object()) {
      return Answer(uid, nullptr, Describe(i, object) + ": expected an object");
    }
    const std::string av = StringAt(object, "apiVersion");
    if (av.rfind(prefix, 0) != 0) {
      return Answer(uid, nullptr,
                    Describe(i, object) + ": apiVersion: Unsupported value: \"" + av +
                        "\": this webhook converts kueue.x-k8s.io objects only");
    }
    if (!IsConvertibleKind(StringAt(object, "kind"))) {
      return Answer(uid, nullptr,
                    Describe(i, object) + ": kind: Unsupported value: \"" +
                        StringAt(object, "kind") + "\": not a kueue.x-k8s.io kind");
    }
    Result<Json> out = Convert(object, to_version);
    if (!out.ok()) return Answer(uid, nullptr, Describe(i, object) + ": " + out.status().message());
    converted.push_back(std::move(out).value());
  }
  return Answer(uid, std::move(converted), "");
}

}  // namespace kuota::conversion
