// The driver's Kueue webhooks for Deployments and StatefulSets: a queued
// set's template is marked on create (and a StatefulSet's pods are then
// gated by the pod webhook), and a queued StatefulSet refuses a resize but
// to or from zero, with Kueue's message.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "auth/base64.h"
#include "kube/admission_webhook.h"

namespace kuota::kube {
namespace {

using Json = nlohmann::json;

const AdmissionEndpoint& ServingEndpoint(const std::string& path) {
  for (const AdmissionEndpoint& e : AdmissionEndpoints()) {
    if (e.path == path) return e;
  }
  ADD_FAILURE() << "no endpoint " << path;
  return AdmissionEndpoints().front();
}

Json ServingReview(const AdmissionWebhook& webhook, const std::string& path, const std::string& op,
                   const std::string& plural, Json object, Json old_object = nullptr) {
  Json request = {
      {"uid", "u-1"},
      {"resource",
       {{"group", plural == "pods" ? "" : "apps"}, {"version", "v1"}, {"resource", plural}}},
      {"operation", op},
      {"namespace", "team-a"},
      {"object", std::move(object)}};
  if (!old_object.is_null()) request["oldObject"] = std::move(old_object);
  Json review = {
      {"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", request}};
  return webhook.Review(ServingEndpoint(path), "application/json", review.dump())["response"];
}

Json ServingPatched(const Json& object, const Json& response) {
  if (!response.contains("patch")) return object;
  std::optional<std::string> text = auth::Base64Decode(response["patch"].get<std::string>());
  EXPECT_TRUE(text.has_value());
  return text ? object.patch(Json::parse(*text)) : object;
}

Json ServingSet(const std::string& kind, int replicas) {
  Json container = {{"name", "c"}, {"image", "busybox"}};
  return {{"apiVersion", "apps/v1"},
          {"kind", kind},
          {"metadata",
           {{"name", "web"},
            {"namespace", "team-a"},
            {"labels", {{"kueue.x-k8s.io/queue-name", "user-queue"}}}}},
          {"spec",
           {{"replicas", replicas},
            {"selector", {{"matchLabels", {{"app", "web"}}}}},
            {"template",
             {{"metadata", {{"labels", {{"app", "web"}}}}},
              {"spec", {{"containers", Json::array({container})}}}}}}}};
}

AdmissionWebhook ServingWebhook() {
  api::Configuration config;
  config.integrations.frameworks =
      std::vector<std::string>{"batch/job", "deployment", "statefulset"};
  return AdmissionWebhook(control::JobManagement::FromConfig(config).value());
}

TEST(ServingWebhookTest, MarksTemplatesAndGatesTheirPods) {
  AdmissionWebhook webhook = ServingWebhook();
  const Json d = ServingSet("Deployment", 2);
  Json resp = ServingReview(webhook, "/mutate-apps-v1-deployment", "CREATE", "deployments", d);
  ASSERT_TRUE(resp.value("allowed", false)) << resp.dump();
  const Json tmpl = ServingPatched(d, resp)["spec"]["template"]["metadata"];
  EXPECT_EQ(tmpl["annotations"]["kueue.x-k8s.io/pod-suspending-parent"], "deployment");
  EXPECT_EQ(tmpl["labels"]["kueue.x-k8s.io/managed"], "true");
  EXPECT_EQ(tmpl["labels"]["kueue.x-k8s.io/queue-name"], "user-queue");

  // A StatefulSet's pod, as its controller makes it from the marked
  // template: gated, not yet managed (the controller names its group).
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", "web-0"},
                {"namespace", "team-a"},
                {"labels", {{"app", "web"}, {"apps.kubernetes.io/pod-index", "0"}}},
                {"annotations", {{"kueue.x-k8s.io/pod-suspending-parent", "statefulset"}}},
                {"ownerReferences", Json::array({{{"apiVersion", "apps/v1"},
                                                  {"kind", "StatefulSet"},
                                                  {"name", "web"},
                                                  {"uid", "s-1"},
                                                  {"controller", true}}})}}},
              {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "busybox"}}})}}}};
  resp = ServingReview(webhook, "/mutate--v1-pod", "CREATE", "pods", pod);
  const Json gated = ServingPatched(pod, resp);
  EXPECT_EQ(gated["spec"]["schedulingGates"][0]["name"], "kueue.x-k8s.io/admission");
  EXPECT_FALSE(gated["metadata"]["labels"].contains("kueue.x-k8s.io/managed"));
}

TEST(ServingWebhookTest, QueuedStatefulSetKeepsItsSize) {
  AdmissionWebhook webhook = ServingWebhook();
  const Json old = ServingSet("StatefulSet", 2);
  Json resized = ServingSet("StatefulSet", 3);
  Json resp = ServingReview(webhook, "/validate-apps-v1-statefulset", "UPDATE", "statefulsets",
                            resized, old);
  EXPECT_FALSE(resp.value("allowed", true));
  EXPECT_NE(resp["status"]
                .value("message", "")
                .find("spec.replicas: Invalid value: 3: field is immutable"),
            std::string::npos)
      << resp.dump();
  resp = ServingReview(webhook, "/validate-apps-v1-statefulset", "UPDATE", "statefulsets",
                       ServingSet("StatefulSet", 0), old);
  EXPECT_TRUE(resp.value("allowed", false)) << resp.dump();
  resp = ServingReview(webhook, "/validate-apps-v1-deployment", "UPDATE", "deployments",
                       ServingSet("Deployment", 3), ServingSet("Deployment", 2));
  EXPECT_TRUE(resp.value("allowed", false)) << resp.dump();
}

}  // namespace
}  // namespace kuota::kube
