// Kueue's webhook tests (pkg/webhooks/*_test.go, Kueue v0.20) and CRD rules,
// replayed through KuotaAdmissionHook::Admit, the one implementation kuotad's
// API and the Kubernetes mode's webhooks run: each row is a create (no old
// object) or an update of a stored (v1beta1) object, cites the Go test and
// case it comes from, and names the exact message kubectl prints (the field
// path and Kueue's words). Where Kueue prints a Go struct (%#v), Kuota shows
// the value's JSON; such rows compare up to the value.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "control/admission_hook.h"

namespace kuota::control {
namespace kueue_webhook_table_test {
namespace {

using Json = nlohmann::json;

const char* const kT = "2026-01-01T00:00:00Z";

// ---- builders (Kueue's utiltestingapi in JSON) ----

Json PodSet(const std::string& name, int count) {
  Json container = {{"name", "c"}};
  container["resources"]["requests"]["cpu"] = "1";
  Json ps = {{"name", name}, {"count", count}};
  ps["template"]["spec"]["containers"] = Json::array({container});
  return ps;
}

Json Wl(std::vector<Json> pod_sets = {PodSet("main", 1)}) {
  return {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
          {"kind", "Workload"},
          {"metadata", {{"name", "test-workload"}, {"namespace", "test-ns"}}},
          {"spec", {{"queueName", "lq"}, {"podSets", pod_sets}}}};
}

Json Psa(const std::string& name, int count = -1) {
  Json psa = {{"name", name}};
  if (count >= 0) psa["count"] = count;
  return psa;
}

void AddCondition(Json& wl, const char* type) {
  wl["status"]["conditions"].push_back({{"type", type},
                                        {"status", "True"},
                                        {"reason", type},
                                        {"message", ""},
                                        {"lastTransitionTime", kT}});
}

// ReserveQuotaAt(MakeAdmission("cluster-queue").PodSets(...)).
Json Reserved(Json wl, std::vector<Json> psas) {
  wl["status"]["admission"] = {{"clusterQueue", "cluster-queue"}, {"podSetAssignments", psas}};
  AddCondition(wl, "QuotaReserved");
  return wl;
}

Json Admitted(Json wl, std::vector<Json> psas) {
  wl = Reserved(std::move(wl), std::move(psas));
  AddCondition(wl, "Admitted");
  return wl;
}

Json QuotaReservedWithoutAdmission() {
  Json wl = Wl({PodSet("driver", 1)});
  AddCondition(wl, "QuotaReserved");
  return wl;
}

Json Reclaimable(Json wl, std::vector<std::pair<std::string, int>> counts) {
  Json list = Json::array();
  for (const auto& [name, count] : counts) list.push_back({{"name", name}, {"count", count}});
  wl["status"]["reclaimablePods"] = list;
  return wl;
}

Json Annotated(Json wl, const std::string& key, const std::string& value) {
  wl["metadata"]["annotations"][key] = value;
  return wl;
}

Json Elastic(Json wl) { return Annotated(std::move(wl), "kueue.x-k8s.io/elastic-job", "true"); }

Json Gated(const std::string& gates) {
  return Annotated(Wl(), "kueue.x-k8s.io/admission-gated-by", gates);
}

Json WithCheck(Json wl, Json check) {
  wl["status"]["admissionChecks"].push_back(std::move(check));
  return wl;
}

Json Check(const std::string& name, const std::string& state, Json updates) {
  return {{"name", name},
          {"state", state},
          {"message", ""},
          {"lastTransitionTime", kT},
          {"podSetUpdates", std::move(updates)}};
}

Json Cq(Json spec = Json::object()) {
  return {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
          {"kind", "ClusterQueue"},
          {"metadata", {{"name", "cluster-queue"}}},
          {"spec", std::move(spec)}};
}

// One resource group of flavors, each {name, {resource, nominal[, borrowing[, lending]]}}.
Json Group(std::vector<std::string> covered, std::vector<Json> flavors) {
  return {{"coveredResources", covered}, {"flavors", flavors}};
}

Json Flavor(const std::string& name, std::vector<std::vector<std::string>> resources) {
  Json list = Json::array();
  for (const auto& r : resources) {
    Json q = {{"name", r[0]}, {"nominalQuota", r[1]}};
    if (r.size() > 2 && !r[2].empty()) q["borrowingLimit"] = r[2];
    if (r.size() > 3 && !r[3].empty()) q["lendingLimit"] = r[3];
    list.push_back(q);
  }
  return {{"name", name}, {"resources", list}};
}

Json CqWith(std::vector<Json> groups, const std::string& cohort = "") {
  Json spec = {{"resourceGroups", groups}};
  if (!cohort.empty()) spec["cohort"] = cohort;
  return Cq(spec);
}

Json WithStrategy(Json cq, const std::string& check, const std::string& flavor,
                  const std::string& strategy = "") {
  cq["spec"]["admissionChecksStrategy"] = {
      {"admissionChecks", {{{"name", check}, {"onFlavors", {flavor}}}}}};
  if (!strategy.empty()) cq["spec"]["queueingStrategy"] = strategy;
  return cq;
}

Json Cohort(Json spec) {
  return {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
          {"kind", "Cohort"},
          {"metadata", {{"name", "cohort"}}},
          {"spec", std::move(spec)}};
}

Json Rf(Json spec) {
  return {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
          {"kind", "ResourceFlavor"},
          {"metadata", {{"name", "resource-flavor"}}},
          {"spec", std::move(spec)}};
}

Json Lq(const std::string& cq) {
  return {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
          {"kind", "LocalQueue"},
          {"metadata", {{"name", "lq"}, {"namespace", "test-ns"}}},
          {"spec", {{"clusterQueue", cq}}}};
}

Json Ac(const std::string& controller) {
  return {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
          {"kind", "AdmissionCheck"},
          {"metadata", {{"name", "ac"}}},
          {"spec", {{"controllerName", controller}}}};
}

// ---- the table ----

struct WebhookRow {
  const char* kueue_case;  // the Go test and case
  Json before;             // null: a create
  Json after;
  std::string want;  // "" = allowed; otherwise the message ('*' ends a prefix)
};

server::ResourceInfo ResourceOf(const std::string& kind) {
  server::ResourceInfo r;
  r.group = "kueue.x-k8s.io";
  r.version = "v1beta1";
  r.kind = kind;
  r.namespaced = kind == "Workload" || kind == "LocalQueue";
  std::string plural = kind;
  for (char& c : plural) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  r.plural = plural + "s";
  r.singular = plural;
  return r;
}

void RunRows(const std::vector<WebhookRow>& rows) {
  KuotaAdmissionHook hook;
  for (const WebhookRow& row : rows) {
    Json object = row.after;
    const bool update = !row.before.is_null();
    Status st = hook.Admit(ResourceOf(object["kind"].get<std::string>()),
                           update ? server::AdmissionHook::Operation::kUpdate
                                  : server::AdmissionHook::Operation::kCreate,
                           update ? &row.before : nullptr, &object);
    if (row.want.empty()) {
      EXPECT_TRUE(st.ok()) << row.kueue_case << ": " << st.message();
    } else if (row.want.back() == '*') {
      std::string prefix = row.want.substr(0, row.want.size() - 1);
      EXPECT_EQ(st.message().substr(0, prefix.size()), prefix) << row.kueue_case;
      EXPECT_EQ(st.code(), StatusCode::kInvalid) << row.kueue_case;
    } else {
      EXPECT_EQ(st.message(), row.want) << row.kueue_case;
      EXPECT_EQ(st.code(), StatusCode::kInvalid) << row.kueue_case;
    }
  }
}

Json WithContainerResources(Json wl, const char* list, const char* resource, const char* q,
                            bool init = false) {
  Json& spec = wl["spec"]["podSets"][0]["template"]["spec"];
  Json c = {{"name", "c"}, {"resources", {{list, {{resource, q}}}}}};
  if (init) {
    spec["initContainers"] = Json::array({c});
  } else {
    spec["containers"] = Json::array({c});
  }
  return wl;
}

const std::string kPodSpec = "spec.podSets[0].template.spec";

TEST(KueueWebhookTableTest, WorkloadCreate) {
  Json divisible = Wl({PodSet("main", 3)});
  divisible = Reserved(divisible, {{{"name", "main"},
                                    {"flavors", {{"cpu", "flv"}}},
                                    {"resourceUsage", {{"cpu", "1"}}},
                                    {"count", 3}}});
  Json pod_level = Wl();
  pod_level["spec"]["podSets"][0]["template"]["spec"]["resources"] = {
      {"requests", {{"cpu", "-1"}}}};
  Json label = Wl();
  label["spec"]["podSets"][0]["template"]["metadata"]["labels"] = {
      {"valid", "invalid value with spaces"}};
  Json annotation = Wl();
  annotation["spec"]["podSets"][0]["template"]["metadata"]["annotations"] = {
      {"invalid/annotation/key/too/long/invalid", "val"}};
  Json slice = Wl();
  slice["spec"]["podSets"][0]["topologyRequest"] = {
      {"required", "rack"}, {"podSetSliceRequiredTopology", "rack"}, {"podSetSliceSize", 0}};
  Json slice_alone = Wl();
  slice_alone["spec"]["podSets"][0]["topologyRequest"] = {{"required", "rack"},
                                                          {"podSetSliceSize", 2}};
  Json min_count_2 = Wl({PodSet("ps1", 3), PodSet("ps2", 3)});
  min_count_2["spec"]["podSets"][0]["minCount"] = 2;
  min_count_2["spec"]["podSets"][1]["minCount"] = 1;
  Json min_count_1 = min_count_2;
  min_count_1["spec"]["podSets"][1].erase("minCount");
  Json elastic_min = Elastic(Wl({PodSet("main", 3)}));
  elastic_min["spec"]["podSets"][0]["minCount"] = 2;
  Json cluster_names = Wl();
  cluster_names["status"] = {{"clusterName", "worker1"},
                             {"nominatedClusterNames", {"worker1", "worker2"}}};
  const std::vector<WebhookRow> rows = {
      // TestValidateWorkload.
      {"TestValidateWorkload/valid", nullptr, Wl({PodSet("driver", 1), PodSet("workers", 100)}),
       ""},
      {"TestValidateWorkload/quota reserved without an admission is refused, not a panic", nullptr,
       QuotaReservedWithoutAdmission(),
       "status.admission: Required value: must be set while the QuotaReserved condition is "
       "true"},
      {"TestValidateWorkload/should have a valid podSet name in status assignment", nullptr,
       Reserved(Wl(), {Psa("@invalid")}),
       "status.admission.podSetAssignments[0].name: Not found: \"@invalid\""},
      {"TestValidateWorkload/assignment usage should be divisible by count", nullptr, divisible,
       "status.admission.podSetAssignments[0].resourceUsage[cpu]: Invalid value: \"1\": is not "
       "a multiple of 3"},
      {"TestValidateWorkload/should not request num-pods resource", nullptr,
       WithContainerResources(WithContainerResources(Wl(), "requests", "pods", "1", true),
                              "requests", "pods", "1"),
       kPodSpec +
           ".initContainers[0].resources.requests[pods]: Invalid value: \"pods\": the key "
           "is reserved for internal kueue use; " +
           kPodSpec +
           ".containers[0].resources.requests[pods]: Invalid value: \"pods\": the key is "
           "reserved for internal kueue use"},
      {"TestValidateWorkload/should reject reserved pods resource key in limits", nullptr,
       WithContainerResources(Wl(), "limits", "pods", "1"),
       kPodSpec + ".containers[0].resources.limits[pods]: Invalid value: \"pods\": the key is "
                  "reserved for internal kueue use"},
      {"TestValidateWorkload/should reject negative container resource request", nullptr,
       WithContainerResources(Wl(), "requests", "cpu", "-1"),
       kPodSpec + ".containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be "
                  "greater than or equal to 0"},
      {"TestValidateWorkload/should reject negative initContainer resource request", nullptr,
       WithContainerResources(Wl(), "requests", "cpu", "-1", true),
       kPodSpec + ".initContainers[0].resources.requests[cpu]: Invalid value: \"-1\": must be "
                  "greater than or equal to 0"},
      {"TestValidateWorkload/should reject negative container resource limit", nullptr,
       WithContainerResources(Wl(), "limits", "cpu", "-1"),
       kPodSpec + ".containers[0].resources.limits[cpu]: Invalid value: \"-1\": must be "
                  "greater than or equal to 0"},
      {"TestValidateWorkload/should accept zero container resource request", nullptr,
       WithContainerResources(Wl(), "requests", "cpu", "0"), ""},
      {"TestValidateWorkload/should reject negative pod-level resource request", nullptr, pod_level,
       kPodSpec + ".resources.requests[cpu]: Invalid value: \"-1\": must be greater than or "
                  "equal to 0"},
      {"TestValidateWorkload/should reject invalid podSet template label value", nullptr, label,
       "spec.podSets[0].template.metadata.labels: Invalid value: \"invalid value with spaces\": "
       "a valid label must be*"},
      {"TestValidateWorkload/should reject invalid podSet template annotation key", nullptr,
       annotation,
       "spec.podSets[0].template.metadata.annotations: Invalid value: "
       "\"invalid/annotation/key/too/long/invalid\": *"},
      {"TestValidateWorkload/should reject non-positive podSetSliceSize when "
       "TASValidateWorkloadSliceSize is enabled",
       nullptr, slice,
       "spec.podSets[0].topologyRequest.podSetSliceSize: Invalid value: 0: must be greater than "
       "0"},
      {"TestValidateWorkload/should reject podSetSliceSize without podSetSliceRequiredTopology "
       "when TASValidateWorkloadSliceSize is enabled",
       nullptr, slice_alone,
       "spec.podSets[0].topologyRequest.podSetSliceSize: Forbidden: may not be set when "
       "podSetSliceRequiredTopology is not specified"},
      {"TestValidateWorkload/empty podSetUpdates", nullptr,
       WithCheck(Wl(), Check("ac", "Pending", Json::array())), ""},
      {"TestValidateWorkload/should accept podSetUpdates for only a subset of podSets", nullptr,
       WithCheck(Wl({PodSet("first", 1), PodSet("second", 1)}),
                 Check("ac", "Pending", {{{"name", "first"}}})),
       ""},
      {"TestValidateWorkload/mismatched names in podSetUpdates with names in podSets", nullptr,
       WithCheck(Wl({PodSet("first", 1), PodSet("second", 1)}),
                 Check("ac", "Pending", {{{"name", "first"}}, {{"name", "third"}}})),
       "status.admissionChecks[0].podSetUpdates[1].name: Unsupported value: \"third\": "
       "supported values: \"first\", \"second\""},
      {"TestValidateWorkload/matched names in podSetUpdates with names in podSets", nullptr,
       WithCheck(Wl({PodSet("first", 1), PodSet("second", 1)}),
                 Check("ac", "Pending",
                       {{{"name", "first"},
                         {"labels", {{"l1", "first"}}},
                         {"annotations", {{"foo", "bar"}}},
                         {"tolerations",
                          {{{"key", "t1"},
                            {"operator", "Equal"},
                            {"value", "t1v"},
                            {"effect", "NoExecute"},
                            {"tolerationSeconds", 5}}}},
                         {"nodeSelector", {{"type", "first"}}}},
                        {{"name", "second"}, {"labels", {{"l2", "second"}}}}})),
       ""},
      {"TestValidateWorkload/invalid label name of podSetUpdate", nullptr,
       WithCheck(Wl(), Check("ac", "Pending", {{{"name", "main"}, {"labels", {{"@abc", "foo"}}}}})),
       "status.admissionChecks[0].podSetUpdates[0].labels: Invalid value: \"@abc\": name part "
       "must consist of*"},
      {"TestValidateWorkload/invalid node selector name of podSetUpdate", nullptr,
       WithCheck(Wl(),
                 Check("ac", "Pending", {{{"name", "main"}, {"nodeSelector", {{"@abc", "foo"}}}}})),
       "status.admissionChecks[0].podSetUpdates[0].nodeSelector: Invalid value: \"@abc\": name "
       "part must consist of*"},
      {"TestValidateWorkload/invalid label value of podSetUpdate", nullptr,
       WithCheck(Wl(), Check("ac", "Pending", {{{"name", "main"}, {"labels", {{"foo", "@abc"}}}}})),
       "status.admissionChecks[0].podSetUpdates[0].labels: Invalid value: \"@abc\": a valid "
       "label must be*"},
      {"TestValidateWorkload/invalid reclaimablePods", nullptr,
       Reclaimable(Wl({PodSet("ps1", 3)}), {{"ps1", 4}, {"ps2", 1}}),
       "status.reclaimablePods[ps1].count: Invalid value: 4: should be less or equal to 3; "
       "status.reclaimablePods[ps2].name: Unsupported value: \"ps2\": supported values: "
       "\"ps1\""},
      {"TestValidateWorkload/too many variable count podSets", nullptr, min_count_2,
       "spec.podSets: Invalid value: 2: at most one podSet can use minCount"},
      {"TestValidateWorkload/too many variable count podSets (one is allowed)", nullptr,
       min_count_1, ""},
      {"TestValidateWorkload/valid AdmissionGatedBy annotation with multiple gates", nullptr,
       Gated("example.com/controller1,example.com/controller2"), ""},
      {"TestValidateWorkload/AdmissionGatedBy annotation - space after comma", nullptr,
       Gated("example.com/controller1, example.com/controller2"), ""},
      {"TestValidateWorkload/invalid AdmissionGatedBy annotation - duplicate gates", nullptr,
       Gated("example.com/controller,example.com/controller"),
       "metadata.annotations[kueue.x-k8s.io/admission-gated-by]: Invalid value: "
       "\"example.com/controller,example.com/controller\": duplicate gate name: "
       "example.com/controller"},
      {"TestValidateWorkload/invalid AdmissionGatedBy annotation - not in subdomain/path format",
       nullptr, Gated("controller"),
       "metadata.annotations[kueue.x-k8s.io/admission-gated-by]: Invalid value: \"controller\": "
       "must be a domain-prefixed path (such as \"acme.io/foo\")"},
      {"TestValidateWorkload/partial admission and elastic job cannot be used together", nullptr,
       elastic_min,
       "spec.podSets: Invalid value: 1: partial admission and elastic job cannot be used "
       "together"},
      // The Workload CRD's status rule (workload_types.go, WorkloadStatus).
      {"CRD WorkloadStatus: clusterName and nominatedClusterNames are mutually exclusive", nullptr,
       cluster_names,
       "status: Invalid value: \"object\": clusterName and nominatedClusterNames are mutually "
       "exclusive"},
  };
  RunRows(rows);
}

TEST(KueueWebhookTableTest, WorkloadUpdate) {
  const Json two = Wl({PodSet("ps1", 3), PodSet("ps2", 3)});
  const std::vector<Json> two_psas = {Psa("ps1"), Psa("ps2")};
  Json label_after = Wl({PodSet("driver", 1)});
  label_after["spec"]["podSets"][0]["template"]["metadata"]["labels"] = {
      {"valid", "invalid value with spaces"}};
  Json suspended = Reclaimable(two, {{"ps1", 0}, {"ps2", 1}});
  suspended = WithCheck(suspended, Check("", "Ready", {{{"name", "ps1"}}, {{"name", "ps2"}}}));
  suspended["status"]["admissionChecks"][0]["name"] = "ac";
  Json ready_before =
      WithCheck(Wl({PodSet("first", 1), PodSet("second", 1)}),
                Check("ac1", "Ready",
                      {{{"name", "first"}, {"labels", {{"foo", "bar"}}}}, {{"name", "second"}}}));
  Json ready_after = ready_before;
  ready_after["status"]["admissionChecks"][0]["podSetUpdates"][0]["labels"]["foo"] = "baz";
  Json message_after = ready_before;
  message_after["status"]["admissionChecks"][0]["message"] = "new";
  Json tas_before = Reserved(Wl({PodSet("ps1", 3)}), {Psa("ps1")});
  tas_before["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"] = {
      {"levels", {"level"}}, {"domains", {{{"values", {"abc"}}, {"count", 2}}}}};
  Json tas_after = tas_before;
  tas_after["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"]["domains"][0]
           ["count"] = 3;
  Json grow_before = Reserved(Wl({PodSet("ps1", 3), PodSet("ps2", 4)}), two_psas);
  Json grow_after = Reserved(Wl({PodSet("ps1", 3), PodSet("ps2", 5)}), two_psas);
  Json shrink_after = Reserved(Wl({PodSet("ps1", 3), PodSet("ps2", 3)}), two_psas);
  Json replacement =
      Annotated(Reserved(Wl({PodSet("ps1", 3), PodSet("ps2", 4)}), two_psas),
                "kueue.x-k8s.io/workload-slice-replacement-for", "test-ns/test-workload");
  replacement["status"]["clusterName"] = "worker1";
  Json not_nominated = Wl();
  not_nominated["status"]["clusterName"] = "worker1";
  Json nominated_before = Wl();
  nominated_before["status"]["nominatedClusterNames"] = {"worker1", "worker2"};
  Json finalized = QuotaReservedWithoutAdmission();
  finalized["metadata"]["finalizers"] = {"kueue.x-k8s.io/resource-in-use"};
  const std::vector<WebhookRow>
      rows =
          {
              // TestValidateWorkloadUpdate.
              {"TestValidateWorkloadUpdate/an update may not put a workload in quota reserved with "
               "no "
               "admission",
               Wl({PodSet("driver", 1)}), QuotaReservedWithoutAdmission(),
               "status.admission: Required value: must be set while the QuotaReserved condition is "
               "true"},
              {"TestValidateWorkloadUpdate/a workload already in that state stays updatable so it "
               "can "
               "be removed",
               QuotaReservedWithoutAdmission(), QuotaReservedWithoutAdmission(), ""},
              {"TestValidateWorkloadUpdate/a workload whose quota reservation lost its admission "
               "can "
               "still drop its finalizer",
               finalized, QuotaReservedWithoutAdmission(), ""},
              {"TestValidateWorkloadUpdate/reclaimable pod count can change up",
               Reclaimable(Reserved(two, two_psas), {{"ps1", 1}}),
               Reclaimable(Reserved(two, two_psas), {{"ps1", 2}, {"ps2", 1}}), ""},
              {"TestValidateWorkloadUpdate/should reject invalid podSet template label value on "
               "update",
               Wl({PodSet("driver", 1)}), label_after,
               "spec.podSets[0].template.metadata.labels: Invalid value: \"invalid value with "
               "spaces\": "
               "a valid label must be*"},
              {"TestValidateWorkloadUpdate/reclaimable pod count cannot change down",
               Reclaimable(Reserved(two, two_psas), {{"ps1", 2}, {"ps2", 1}}),
               Reclaimable(Reserved(two, two_psas), {{"ps1", 1}}),
               "status.reclaimablePods[ps1].count: Invalid value: 1: cannot be less than 2; "
               "status.reclaimablePods[ps2]: Required value: cannot be removed"},
              {"TestValidateWorkloadUpdate/elastic workload: unchanged reclaimable pod count is "
               "tolerated while its podSet scales down below it",
               Reclaimable(Reserved(Elastic(Wl({PodSet("ps1", 8)})), {Psa("ps1")}), {{"ps1", 4}}),
               Reclaimable(Reserved(Elastic(Wl({PodSet("ps1", 3)})), {Psa("ps1")}), {{"ps1", 4}}),
               ""},
              {"TestValidateWorkloadUpdate/elastic workload: changed reclaimable pod count above "
               "the "
               "podSet count is rejected",
               Reclaimable(Reserved(Elastic(Wl({PodSet("ps1", 8)})), {Psa("ps1")}), {{"ps1", 4}}),
               Reclaimable(Reserved(Elastic(Wl({PodSet("ps1", 3)})), {Psa("ps1")}), {{"ps1", 5}}),
               "status.reclaimablePods[ps1].count: Invalid value: 5: should be less or equal to 3"},
              {"TestValidateWorkloadUpdate/elastic workload: reclaimable pod count can decrease "
               "after "
               "its podSet scaled down below the admitted count",
               Reclaimable(Reserved(Elastic(Wl({PodSet("ps1", 3)})), {Psa("ps1", 8)}),
                           {{"ps1", 4}}),
               Reclaimable(Reserved(Elastic(Wl({PodSet("ps1", 3)})), {Psa("ps1", 8)}),
                           {{"ps1", 3}}),
               ""},
              {"TestValidateWorkloadUpdate/elastic workload: reclaimable pod count can decrease "
               "when "
               "scaled down below the admitted count even if the podSet still exceeds it",
               Reclaimable(Reserved(Elastic(Wl({PodSet("ps1", 10)})), {Psa("ps1", 20)}),
                           {{"ps1", 9}}),
               Reclaimable(Reserved(Elastic(Wl({PodSet("ps1", 10)})), {Psa("ps1", 20)}),
                           {{"ps1", 0}}),
               ""},
              {"TestValidateWorkloadUpdate/elastic workload: reclaimable pod count cannot decrease "
               "without a podSet scale-down",
               Reclaimable(Reserved(Elastic(Wl({PodSet("ps1", 8)})), {Psa("ps1")}), {{"ps1", 4}}),
               Reclaimable(Reserved(Elastic(Wl({PodSet("ps1", 8)})), {Psa("ps1")}), {{"ps1", 2}}),
               "status.reclaimablePods[ps1].count: Invalid value: 2: cannot be less than 4"},
              {"TestValidateWorkloadUpdate/elastic workload: reclaimable pod entry can be removed "
               "after "
               "its podSet scaled down below the admitted count",
               Reclaimable(Reserved(Elastic(Wl({PodSet("ps1", 8)})), {Psa("ps1", 8)}),
                           {{"ps1", 4}}),
               Reserved(Elastic(Wl({PodSet("ps1", 1)})), {Psa("ps1", 8)}), ""},
              {"TestValidateWorkloadUpdate/elastic workload: reclaimable pod entry cannot be "
               "removed "
               "without a podSet scale-down",
               Reclaimable(Reserved(Elastic(Wl({PodSet("ps1", 8)})), {Psa("ps1")}), {{"ps1", 4}}),
               Reserved(Elastic(Wl({PodSet("ps1", 8)})), {Psa("ps1")}),
               "status.reclaimablePods[ps1]: Required value: cannot be removed"},
              {"TestValidateWorkloadUpdate/non-elastic workload: stale reclaimable pod count is "
               "still "
               "rejected when its podSet scales down",
               Reclaimable(Reserved(Wl({PodSet("ps1", 8)}), {Psa("ps1")}), {{"ps1", 4}}),
               Reclaimable(Reserved(Wl({PodSet("ps1", 3)}), {Psa("ps1")}), {{"ps1", 4}}),
               "status.reclaimablePods[ps1].count: Invalid value: 4: should be less or equal to 3"},
              {"TestValidateWorkloadUpdate/reclaimable pod count can go to 0 if the job is "
               "suspended",
               Reclaimable(Reserved(two, two_psas), {{"ps1", 2}, {"ps2", 1}}), suspended, ""},
              {"TestValidateWorkloadUpdate/podSetUpdates should be immutable when state is ready",
               ready_before, ready_after,
               "status.admissionChecks[0].podSetUpdates: Invalid value: "
               "[{\"labels\":{\"foo\":\"baz\"},\"name\":\"first\"},{\"name\":\"second\"}]: field "
               "is "
               "immutable"},
              {"TestValidateWorkloadUpdate/should change other fields of admissionchecks when "
               "podSetUpdates is immutable",
               ready_before, message_after, ""},
              {"TestValidateWorkloadUpdate/TopologyAssignment can be mutated", tas_before,
               tas_after, ""},
              {"TestValidateWorkloadUpdate/PodSets cannot be removed from admission",
               Reserved(two, two_psas), Reserved(two, {Psa("ps1")}),
               // Kuota's create rule (the CRD's, checked before the webhook) speaks first.
               "<nil>: Invalid value: \"object\": podSetAssignments must have the same number of "
               "podSets as the spec*"},
              {"TestValidateWorkloadUpdate/PodSets cannot be added to admission",
               Reserved(two, {Psa("ps1")}), Reserved(two, two_psas),
               "status.admission: Invalid value: {\"clusterQueue\":\"cluster-queue\",*"},
              {"TestValidateWorkloadUpdate/workload.podSets[].count is immutable (growing)",
               grow_before, grow_after, "spec.podSets.1: Invalid value: {\"count\":5,*"},
              {"TestValidateWorkloadUpdate/workload.podSets[].count is mutable with ElasticJobs "
               "feature "
               "gate",
               grow_before, shrink_after, ""},
              {"TestValidateWorkloadUpdate/ClusterName doesn't have to be one of the "
               "nominatedClusterNames with ElasticJobs feature gate",
               Wl({PodSet("ps1", 3), PodSet("ps2", 4)}), replacement, ""},
              {"validateClusterNameUpdate: clusterName must be one of the nominatedClusterNames",
               Wl(), not_nominated,
               "status.clusterName: Invalid value: \"worker1\": when setting clusterName it must "
               "be one "
               "of the nominatedClusterNames"},
              {"validateClusterNameUpdate: clusterName set from the nominated clusters",
               nominated_before, not_nominated, ""},
              {"TestValidateWorkloadUpdate/reject adding AdmissionGatedBy annotation after "
               "workload "
               "creation",
               Wl(), Gated("example.com/controller"),
               "metadata.annotations[kueue.x-k8s.io/admission-gated-by]: Forbidden: cannot add "
               "admission gate after creation"},
              {"TestValidateWorkloadUpdate/allow removing AdmissionGatedBy annotation with "
               "multiple "
               "gates",
               Gated("example.com/controller1,example.com/controller2"), Wl(), ""},
              {"TestValidateWorkloadUpdate/allow removing one gate from AdmissionGatedBy "
               "annotation",
               Gated("example.com/controller1,example.com/controller2"),
               Gated("example.com/controller2"), ""},
              {"TestValidateWorkloadUpdate/reject injecting new gate in AdmissionGatedBy "
               "annotation",
               Gated("example.com/controller1,example.com/controller2"),
               Gated("example.com/controller3"),
               "metadata.annotations[kueue.x-k8s.io/admission-gated-by]: Forbidden: can only "
               "remove "
               "gates, not add new ones"},
              {"TestValidateWorkloadUpdate/allow reordering gates in AdmissionGatedBy annotation",
               Gated("example.com/controller1,example.com/controller2"),
               Gated("example.com/controller2,example.com/controller1"), ""},
              {"TestValidateWorkloadUpdate: several minCount pod sets refused on update too", Wl(),
               [] {
                 Json wl = Wl({PodSet("a", 2), PodSet("b", 2)});
                 wl["spec"]["podSets"][0]["minCount"] = 1;
                 wl["spec"]["podSets"][1]["minCount"] = 1;
                 return wl;
               }(),
               "spec.podSets: Invalid value: 2: at most one podSet can use minCount"},
          };
  RunRows(rows);
}

// The Workload CRD's transition rules (apis/kueue/v1beta2/workload_types.go),
// reported by kube-apiserver on the object's root.
TEST(KueueWebhookTableTest, WorkloadTransitionRules) {
  auto with = [](Json wl, const char* key, Json value) {
    wl["spec"][key] = std::move(value);
    return wl;
  };
  const Json reserved = Reserved(Wl(), {Psa("main")});
  const Json wpc = with(with(reserved, "priorityClassName", "low"), "priorityClassSource",
                        "kueue.x-k8s.io/workloadpriorityclass");
  const Json pc = with(with(reserved, "priorityClassName", "low"), "priorityClassSource",
                       "scheduling.k8s.io/priorityclass");
  const Json admitted = Admitted(Wl(), {Psa("main")});
  const std::vector<WebhookRow> rows = {
      {"CRD: queueName is immutable while workload quota reserved", reserved,
       with(reserved, "queueName", "other"),
       "<nil>: Invalid value: \"object\": queueName is immutable while workload quota reserved"},
      {"CRD: queueName may change once quota is released", reserved,
       with(Wl(), "queueName", "other"), ""},
      {"CRD: queueName may change without quota", Wl(), with(Wl(), "queueName", "other"), ""},
      {"CRD: priorityClassRef is immutable while workload quota reserved", reserved, wpc,
       "<nil>: Invalid value: \"object\": priorityClassRef is immutable while workload quota "
       "reserved"},
      {"CRD: priorityClassRef.name of a WorkloadPriorityClass may change", wpc,
       with(wpc, "priorityClassName", "high"), ""},
      {"CRD: priorityClassRef.group and kind are immutable while workload quota reserved", wpc, pc,
       "<nil>: Invalid value: \"object\": priorityClassRef.group is immutable while workload "
       "quota reserved; <nil>: Invalid value: \"object\": priorityClassRef.kind is immutable "
       "while workload quota reserved"},
      {"CRD: priorityClassRef.name is immutable for scheduling.k8s.io/priorityclass", pc,
       with(pc, "priorityClassName", "high"),
       "<nil>: Invalid value: \"object\": priorityClassRef.name is immutable for "
       "scheduling.k8s.io/priorityclass while workload quota reserved"},
      {"CRD: maximumExecutionTimeSeconds is immutable while admitted", admitted,
       with(admitted, "maximumExecutionTimeSeconds", 60),
       "<nil>: Invalid value: \"object\": maximumExecutionTimeSeconds is immutable while "
       "workload quota reserved"},
      {"CRD: maximumExecutionTimeSeconds may change before admission", reserved,
       with(reserved, "maximumExecutionTimeSeconds", 60), ""},
      {"CRD WorkloadStatus: clusterName is immutable once set",
       [] {
         Json wl = Wl();
         wl["status"]["clusterName"] = "worker1";
         return wl;
       }(),
       [] {
         Json wl = Wl();
         wl["status"]["clusterName"] = "worker2";
         return wl;
       }(),
       "status: Invalid value: \"object\": clusterName is immutable once set"},
  };
  RunRows(rows);
}

TEST(KueueWebhookTableTest, QueuesAndChecks) {
  const std::vector<WebhookRow> rows = {
      // TestValidateClusterQueue.
      {"TestValidateClusterQueue/built-in resources with qualified names", nullptr,
       CqWith({Group({"cpu"}, {Flavor("default", {{"cpu", "0"}})})}), ""},
      {"TestValidateClusterQueue/invalid resource name", nullptr,
       CqWith({Group({"@cpu"}, {Flavor("default", {{"@cpu", "0"}})})}),
       "spec.resourceGroups[0].coveredResources[0]: Invalid value: \"@cpu\": *"},
      {"TestValidateClusterQueue/admissionCheckStrategy refers to a flavor that is not in quota",
       nullptr,
       Cq({{"admissionChecksStrategy",
            {{"admissionChecks", {{{"name", "ac1"}, {"onFlavors", {"flavor1"}}}}}}}}),
       "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]: Unsupported value: "
       "\"flavor1\""},
      {"TestValidateClusterQueue/admissionCheckStrategy defined with a valid flavor", nullptr,
       [] {
         Json cq = CqWith({Group({"cpu"}, {Flavor("flavor1", {{"cpu", "1"}})})});
         cq["spec"]["admissionChecksStrategy"] = {
             {"admissionChecks", {{{"name", "ac1"}, {"onFlavors", {"flavor1"}}}}}};
         return cq;
       }(),
       ""},
      {"TestValidateClusterQueue/in cohort", nullptr, Cq({{"cohort", "prod"}}), ""},
      {"TestValidateClusterQueue/flavor quota with negative value", nullptr,
       CqWith({Group({"cpu"}, {Flavor("x86", {{"cpu", "-1"}})})}),
       "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid value: \"-1\": "
       "must be greater than or equal to 0"},
      {"TestValidateClusterQueue/flavor quota with borrowingLimit 0", nullptr,
       CqWith({Group({"cpu"}, {Flavor("x86", {{"cpu", "1", "0"}})})}, "cohort"), ""},
      {"TestValidateClusterQueue/flavor quota with negative borrowingLimit", nullptr,
       CqWith({Group({"cpu"}, {Flavor("x86", {{"cpu", "1", "-1"}})})}, "cohort"),
       "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: Invalid value: \"-1\": "
       "must be greater than or equal to 0"},
      {"TestValidateClusterQueue/flavor quota with negative lendingLimit", nullptr,
       CqWith({Group({"cpu"}, {Flavor("x86", {{"cpu", "1", "", "-1"}})})}, "cohort"),
       "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: \"-1\": "
       "must be greater than or equal to 0"},
      {"TestValidateClusterQueue/flavor quota with lendingLimit and empty cohort", nullptr,
       CqWith({Group({"cpu"}, {Flavor("x86", {{"cpu", "1", "", "1"}})})}),
       "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: \"1\": must "
       "be nil when cohort is empty"},
      {"TestValidateClusterQueue/flavor quota with lendingLimit greater than nominalQuota",
       nullptr, CqWith({Group({"cpu"}, {Flavor("x86", {{"cpu", "1", "", "2"}})})}, "cohort"),
       "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: \"2\": must "
       "be less than or equal to the nominalQuota"},
      {"TestValidateClusterQueue/namespaceSelector with invalid expressions", nullptr,
       Cq({{"namespaceSelector",
            {{"matchExpressions", {{{"key", "key"}, {"operator", "In"}}}}}}}),
       "spec.namespaceSelector.matchExpressions[0].values: Required value: must be specified "
       "when `operator` is 'In' or 'NotIn'"},
      {"TestValidateClusterQueue/resource in more than one resource group", nullptr,
       CqWith({Group({"cpu", "memory"}, {Flavor("alpha", {{"cpu", "0"}, {"memory", "0"}})}),
               Group({"memory"}, {Flavor("beta", {{"memory", "0"}})})}),
       "spec.resourceGroups[1].coveredResources[0]: Duplicate value: \"memory\""},
      {"TestValidateClusterQueue/flavor in more than one resource group", nullptr,
       CqWith({Group({"cpu"}, {Flavor("alpha", {{"cpu", "0"}}), Flavor("beta", {{"cpu", "0"}})}),
               Group({"memory"}, {Flavor("beta", {{"memory", "0"}})})}),
       "spec.resourceGroups[1].flavors[0].name: Duplicate value: \"beta\""},
      {"TestValidateClusterQueue/flavorFungibility preference set but whenCanPreempt != "
       "TryNextFlavor",
       nullptr,
       Cq({{"flavorFungibility",
            {{"whenCanBorrow", "TryNextFlavor"},
             {"whenCanPreempt", "MayStopSearch"},
             {"preference", "BorrowingOverPreemption"}}}}),
       "spec.flavorFungibility.preference: Invalid value: \"BorrowingOverPreemption\": "
       "preference \"BorrowingOverPreemption\" requires both whenCanBorrow and whenCanPreempt "
       "to be TryNextFlavor"},
      // The ClusterQueue CRD's CEL rules (clusterqueue_types.go).
      {"ClusterQueue CRD: borrowingLimit must be nil when cohort is empty", nullptr,
       CqWith({Group({"cpu"}, {Flavor("x86", {{"cpu", "1", "1"}})})}),
       "spec: Invalid value: \"object\": borrowingLimit must be nil when cohort is empty"},
      {"ClusterQueue CRD: flavors must have the same number of resources as the "
       "coveredResources",
       nullptr,
       CqWith({Group({"cpu", "memory"}, {Flavor("x86", {{"cpu", "1"}, {"memory", "1Gi"}}),
                                         Flavor("arm", {{"cpu", "1"}})})}),
       "spec.resourceGroups[0]: Invalid value: \"object\": flavors must have the same number "
       "of resources as the coveredResources"},
      {"ClusterQueue CRD: reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never",
       nullptr,
       Cq({{"preemption",
            {{"reclaimWithinCohort", "Never"},
             {"borrowWithinCohort", {{"policy", "LowerPriority"}}}}}}),
       "spec.preemption: Invalid value: \"object\": reclaimWithinCohort=Never and "
       "borrowWithinCohort.Policy!=Never"},
      // TestValidateClusterQueueUpdate: the create rules hold on the new object.
      {"TestValidateClusterQueueUpdate: a valid update",
       CqWith({Group({"cpu"}, {Flavor("x86", {{"cpu", "1"}})})}),
       CqWith({Group({"cpu"}, {Flavor("x86", {{"cpu", "2"}})})}), ""},
      {"TestValidateClusterQueueUpdate: an update to an invalid quota",
       CqWith({Group({"cpu"}, {Flavor("x86", {{"cpu", "1"}})})}),
       CqWith({Group({"cpu"}, {Flavor("x86", {{"cpu", "-2"}})})}),
       "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid value: \"-2\": "
       "must be greater than or equal to 0"},
      {"TestValidateClusterQueueUpdate/legacy cluster queue with invalid onFlavors allows "
       "unrelated updates when the feature gate is disabled",
       WithStrategy(CqWith({Group({"cpu"}, {Flavor("alpha", {{"cpu", "1"}})})}), "ac1", "ghost",
                    "StrictFIFO"),
       WithStrategy(CqWith({Group({"cpu"}, {Flavor("alpha", {{"cpu", "1"}})})}), "ac1", "ghost",
                    "BestEffortFIFO"),
       ""},
      {"TestValidateClusterQueueUpdate/valid admissionCheckStrategy can be added when the old "
       "cluster queue has no strategy",
       CqWith({Group({"cpu"}, {Flavor("alpha", {{"cpu", "1"}})})}),
       WithStrategy(CqWith({Group({"cpu"}, {Flavor("alpha", {{"cpu", "1"}})})}), "ac1", "alpha"),
       ""},
      {"TestValidateClusterQueueUpdate/invalid admissionCheckStrategy is rejected when the old "
       "cluster queue has no strategy",
       CqWith({Group({"cpu"}, {Flavor("alpha", {{"cpu", "1"}})})}),
       WithStrategy(CqWith({Group({"cpu"}, {Flavor("alpha", {{"cpu", "1"}})})}), "ac1", "ghost"),
       "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]: Unsupported value: "
       "\"ghost\": supported values: \"alpha\""},
      {"TestValidateClusterQueueUpdate/resourceGroup flavor change revalidates admissionCheck "
       "onFlavors for legacy cluster queue",
       WithStrategy(CqWith({Group({"cpu"}, {Flavor("alpha", {{"cpu", "1"}})})}), "ac1", "ghost"),
       WithStrategy(CqWith({Group({"cpu"}, {Flavor("beta", {{"cpu", "1"}})})}), "ac1", "ghost"),
       "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]: Unsupported value: "
       "\"ghost\": supported values: \"beta\""},
      {"TestValidateClusterQueueUpdate/changing invalid onFlavors for a legacy cluster queue "
       "revalidates the new ref",
       WithStrategy(CqWith({Group({"cpu"}, {Flavor("alpha", {{"cpu", "1"}})})}), "ac1", "ghost"),
       WithStrategy(CqWith({Group({"cpu"}, {Flavor("alpha", {{"cpu", "1"}})})}), "ac1",
                    "phantom"),
       "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]: Unsupported value: "
       "\"phantom\": supported values: \"alpha\""},
      {"TestValidateClusterQueueUpdate/changing admissionCheck name revalidates onFlavors for "
       "the new rule",
       WithStrategy(CqWith({Group({"cpu"}, {Flavor("alpha", {{"cpu", "1"}})})}), "ac1", "ghost"),
       WithStrategy(CqWith({Group({"cpu"}, {Flavor("alpha", {{"cpu", "1"}})})}), "ac2", "ghost"),
       "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]: Unsupported value: "
       "\"ghost\": supported values: \"alpha\""},
      // TestValidateCohort (cohort_webhook_test.go).
      {"TestValidateCohort/flavor quota with lendingLimit and empty parent", nullptr,
       Cohort({{"resourceGroups", {Group({"cpu"}, {Flavor("x86", {{"cpu", "1", "", "1"}})})}}}),
       "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: \"1\": must "
       "be nil when parent is empty"},
      {"TestValidateCohort/flavor quota with negative value", nullptr,
       Cohort({{"resourceGroups", {Group({"cpu"}, {Flavor("x86", {{"cpu", "-1"}})})}}}),
       "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid value: \"-1\": "
       "must be greater than or equal to 0"},
      {"TestValidateCohort/lendingLimit greater than nominal is allowed in a Cohort", nullptr,
       Cohort({{"parentName", "root"},
               {"resourceGroups", {Group({"cpu"}, {Flavor("x86", {{"cpu", "1", "", "2"}})})}}}),
       ""},
      {"TestValidateCohort/update to an invalid quota",
       Cohort({{"resourceGroups", {Group({"cpu"}, {Flavor("x86", {{"cpu", "1"}})})}}}),
       Cohort({{"resourceGroups", {Group({"cpu"}, {Flavor("x86", {{"cpu", "-1"}})})}}}),
       "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid value: \"-1\": "
       "must be greater than or equal to 0"},
      // TestValidateResourceFlavor (resourceflavor_webhook_test.go).
      {"TestValidateResourceFlavor/valid", nullptr,
       Rf({{"nodeLabels", {{"foo", "bar"}}},
           {"nodeTaints", {{{"key", "spot"}, {"value", "true"}, {"effect", "NoSchedule"}}}}}),
       ""},
      {"TestValidateResourceFlavor/invalid label name", nullptr,
       Rf({{"nodeLabels", {{"@abc", "foo"}}}}),
       "spec.nodeLabels: Invalid value: \"@abc\": name part must consist of*"},
      {"TestValidateResourceFlavor/invalid label value", nullptr,
       Rf({{"nodeLabels", {{"foo", "@abc"}}}}),
       "spec.nodeLabels: Invalid value: \"@abc\": a valid label must be*"},
      {"TestValidateResourceFlavor/duplicated taints", nullptr,
       Rf({{"nodeTaints",
            {{{"key", "spot"}, {"effect", "NoSchedule"}},
             {{"key", "spot"}, {"effect", "NoSchedule"}}}}}),
       "spec.nodeTaints[1]: Duplicate value: *"},
      {"ResourceFlavor CRD: supported taint effect values", nullptr,
       Rf({{"nodeTaints", {{{"key", "spot"}, {"effect", "NoAdmit"}}}}}),
       "spec.nodeTaints: Invalid value: \"array\": supported taint effect values: "
       "'NoSchedule', 'PreferNoSchedule', 'NoExecute'"},
      {"ResourceFlavor CRD: a toleration value must be empty when operator is Exists", nullptr,
       Rf({{"tolerations", {{{"key", "spot"}, {"operator", "Exists"}, {"value", "true"}}}}}),
       "spec.tolerations: Invalid value: \"array\": a value must be empty when 'operator' is "
       "'Exists'"},
      {"ResourceFlavor CRD: operator must be Exists when key is empty", nullptr,
       Rf({{"tolerations", {{{"operator", "Equal"}, {"value", "true"}}}}}),
       "spec.tolerations: Invalid value: \"array\": operator must be Exists when 'key' is "
       "empty, which means 'match all values and all keys'"},
      {"ResourceFlavor CRD: topologyName is immutable when topologyName is set",
       Rf({{"nodeLabels", {{"foo", "bar"}}}, {"topologyName", "default"}}),
       Rf({{"nodeLabels", {{"foo", "bar"}}}, {"topologyName", "other"}}),
       "spec: Invalid value: \"object\": topologyName is immutable when topologyName is set"},
      {"TestValidateResourceFlavorUpdate: labels may change",
       Rf({{"nodeLabels", {{"foo", "bar"}}}}), Rf({{"nodeLabels", {{"foo", "baz"}}}}), ""},
      // LocalQueue and AdmissionCheck CRD rules (self == oldSelf).
      {"LocalQueue CRD: clusterQueue field is immutable", Lq("cq"), Lq("other"),
       "spec.clusterQueue: Invalid value: \"string\": field is immutable"},
      {"LocalQueue CRD: an update that keeps clusterQueue", Lq("cq"),
       [] {
         Json lq = Lq("cq");
         lq["spec"]["stopPolicy"] = "Hold";
         return lq;
       }(),
       ""},
      {"AdmissionCheck CRD: controllerName field is immutable", Ac("kueue.x-k8s.io/prov"),
       Ac("example.com/other"),
       "spec.controllerName: Invalid value: \"string\": field is immutable"},
      {"AdmissionCheck CRD: an update that keeps controllerName", Ac("kueue.x-k8s.io/prov"),
       [] {
         Json ac = Ac("kueue.x-k8s.io/prov");
         ac["spec"]["retryDelayMinutes"] = 5;
         return ac;
       }(),
       ""},
  };
  RunRows(rows);
}

}  // namespace
}  // namespace kueue_webhook_table_test
}  // namespace kuota::control
