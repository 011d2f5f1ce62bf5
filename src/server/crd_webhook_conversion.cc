#include "server/crd_webhook_conversion.h"

#include <memory>

#include "server/json_fields.h"
#include "server/webhook_client.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

constexpr const char* kCrdKey = "customresourcedefinitions.apiextensions.k8s.io";

}  // namespace

CrdWebhookConversion::CrdWebhookConversion(store::ObjectStore& store, CrdWebhookOptions options)
    : store_(store), options_(std::move(options)) {}

std::optional<Status> CrdWebhookConversion::Convert(const ResourceInfo& r,
                                                    std::vector<Json>& objects,
                                                    const std::string& to_version) const {
  Result<Json> crd = store_.Get(kCrdKey, "", r.plural + "." + r.group);
  if (!crd.ok()) return std::nullopt;
  if (StringField(*crd, {"spec", "conversion", "strategy"}) != "Webhook") return std::nullopt;
  const std::string desired = r.group + "/" + to_version;
  std::vector<size_t> sent;  // indexes of the objects not yet in `desired`
  Json review_objects = Json::array();
  std::string from = desired;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (StringField(objects[i], {"apiVersion"}) == desired) continue;
    from = StringField(objects[i], {"apiVersion"});
    sent.push_back(i);
    review_objects.push_back(objects[i]);
  }
  if (sent.empty()) return Status::Ok();
  const std::string prefix = "conversion webhook for " + from + ", Kind=" + r.kind + " failed: ";
  auto fail = [&](const std::string& why) {
    return std::optional<Status>(Status::Internal(prefix + why));
  };
  const Json& webhook = (*crd)["spec"]["conversion"]["webhook"];
  Json client_config =
      webhook.is_object() && webhook.contains("clientConfig") ? webhook["clientConfig"] : Json();
  if (!client_config.is_object()) return fail("spec.conversion.webhook.clientConfig is missing");
  WebhookCallOptions call;
  call.service_address = options_.service_address;
  call.timeout_seconds = options_.timeout_seconds;
  if (Status st = RouteServiceThroughEndpoints(store_, client_config, &call); !st.ok()) {
    return fail(st.message());
  }
  const std::string uid = NewReviewUid();
  Json review = {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "ConversionReview"},
      {"request", {{"uid", uid}, {"desiredAPIVersion", desired}, {"objects", review_objects}}}};
  Result<Json> answer = PostWebhookReview(client_config, call, review);
  if (!answer.ok()) return fail(answer.status().message());
  if (!answer->is_object() || !answer->contains("response") || !(*answer)["response"].is_object()) {
    return fail("the webhook's answer is not a ConversionReview with a response");
  }
  const Json& response = (*answer)["response"];
  if (StringField(response, {"uid"}) != uid) {
    return fail("expected response uid " + uid + ", got " + StringField(response, {"uid"}));
  }
  if (StringField(response, {"result", "status"}) != "Success") {
    return fail(StringField(response, {"result", "message"}));
  }
  const Json& converted =
      response.contains("convertedObjects") ? response["convertedObjects"] : Json();
  if (!converted.is_array() || converted.size() != sent.size()) {
    return fail("expected " + std::to_string(sent.size()) + " converted objects, got " +
                (converted.is_array() ? std::to_string(converted.size()) : "none"));
  }
  for (size_t j = 0; j < sent.size(); ++j) {
    const Json& out = converted[j];
    const Json& in = objects[sent[j]];
    if (StringField(out, {"apiVersion"}) != desired || StringField(out, {"kind"}) != r.kind) {
      return fail("converted object " + std::to_string(j) + " is " +
                  StringField(out, {"apiVersion"}) + ", Kind=" + StringField(out, {"kind"}) +
                  ", expected " + desired + ", Kind=" + r.kind);
    }
    for (const char* field : {"name", "namespace", "uid"}) {
      if (StringField(out, {"metadata", field}) != StringField(in, {"metadata", field})) {
        return fail(std::string("converted object ") + std::to_string(j) + ": metadata." + field +
                    " changed");
      }
    }
  }
  for (size_t j = 0; j < sent.size(); ++j) objects[sent[j]] = converted[j];
  return Status::Ok();
}

}  // namespace kuota::server
