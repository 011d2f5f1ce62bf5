// Strategic merge patch (table of cases from apimachinery's semantics) and
// the PATCH verb over HTTP with every patch type.
#include <string>
#include <utility>
#include <vector>

#include "server/patch.h"
#include "server/resource_info.h"
#include "server/strategic_merge_patch.h"
#include "server/test_server.h"

namespace kuota::server {
namespace {

struct SmpCase {
  const char* name;
  const char* original;
  const char* patch;
  const char* want;  // nullptr: the patch is rejected
};

class StrategicMergePatchTest : public ::testing::TestWithParam<SmpCase> {};

TEST_P(StrategicMergePatchTest, Applies) {
  const SmpCase& c = GetParam();
  Result<Json> got = StrategicMergePatch(Json::parse(c.original), Json::parse(c.patch));
  if (c.want == nullptr) {
    EXPECT_FALSE(got.ok()) << got->dump();
    return;
  }
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, Json::parse(c.want)) << got->dump();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, StrategicMergePatchTest,
    ::testing::Values(
        SmpCase{"maps_merge_and_null_deletes", R"({"a":1,"b":{"c":2,"d":3}})",
                R"({"b":{"c":null,"e":4},"f":5})", R"({"a":1,"b":{"d":3,"e":4},"f":5})"},
        SmpCase{"containers_merge_by_name",
                R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}})",
                R"({"spec":{"containers":[{"name":"b","image":"z"}]}})",
                R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"z"}]}})"},
        // As apimachinery: without $setElementOrder, items new to the list come first.
        SmpCase{"new_container_added", R"({"spec":{"containers":[{"name":"a"}]}})",
                R"({"spec":{"containers":[{"name":"c","image":"n"}]}})",
                R"({"spec":{"containers":[{"name":"c","image":"n"},{"name":"a"}]}})"},
        SmpCase{
            "env_by_name_ports_by_containerPort",
            R"({"containers":[{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}],"ports":[{"containerPort":80,"name":"http"}]}]})",
            R"({"containers":[{"name":"a","env":[{"name":"Y","value":"3"}],"ports":[{"containerPort":80,"protocol":"TCP"}]}]})",
            R"({"containers":[{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"3"}],"ports":[{"containerPort":80,"name":"http","protocol":"TCP"}]}]})"},
        SmpCase{"delete_directive_in_list", R"({"spec":{"volumes":[{"name":"v1"},{"name":"v2"}]}})",
                R"({"spec":{"volumes":[{"name":"v1","$patch":"delete"}]}})",
                R"({"spec":{"volumes":[{"name":"v2"}]}})"},
        SmpCase{"replace_directive_in_list",
                R"({"spec":{"volumes":[{"name":"v1"},{"name":"v2"}]}})",
                R"({"spec":{"volumes":[{"name":"v3"},{"$patch":"replace"}]}})",
                R"({"spec":{"volumes":[{"name":"v3"}]}})"},
        SmpCase{"replace_directive_in_map", R"({"spec":{"a":1,"b":2}})",
                R"({"spec":{"$patch":"replace","c":3}})", R"({"spec":{"c":3}})"},
        SmpCase{"delete_directive_in_map", R"({"spec":{"a":1},"x":1})",
                R"({"spec":{"$patch":"delete"}})", R"({"spec":{},"x":1})"},
        SmpCase{"lists_without_merge_key_replace",
                R"({"spec":{"tolerations":[{"key":"a"}],"args":["x","y"]}})",
                R"({"spec":{"tolerations":[{"key":"b"}],"args":["z"]}})",
                R"({"spec":{"tolerations":[{"key":"b"}],"args":["z"]}})"},
        SmpCase{"finalizers_merge_as_set", R"({"metadata":{"finalizers":["a","b"]}})",
                R"({"metadata":{"finalizers":["b","c"]}})",
                R"({"metadata":{"finalizers":["a","b","c"]}})"},
        SmpCase{"delete_from_primitive_list", R"({"metadata":{"finalizers":["a","b","c"]}})",
                R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}})",
                R"({"metadata":{"finalizers":["a","c"]}})"},
        SmpCase{
            "set_element_order", R"({"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]})",
            R"({"$setElementOrder/containers":[{"name":"c"},{"name":"b"},{"name":"a"}],"containers":[{"name":"b","image":"i"}]})",
            R"({"containers":[{"name":"c"},{"name":"b","image":"i"},{"name":"a"}]})"},
        SmpCase{"set_element_order_keeps_server_only_items",
                R"({"containers":[{"name":"a"},{"name":"s"},{"name":"b"}]})",
                R"({"$setElementOrder/containers":[{"name":"b"},{"name":"a"}]})",
                // As apimachinery: server-only items keep their place relative to the live list.
                R"({"containers":[{"name":"s"},{"name":"b"},{"name":"a"}]})"},
        SmpCase{"retain_keys", R"({"strategy":{"type":"A","rollingUpdate":{"x":1},"other":2}})",
                R"({"strategy":{"$retainKeys":["type"],"type":"Recreate"}})",
                R"({"strategy":{"type":"Recreate"}})"},
        SmpCase{
            "conditions_by_type",
            R"({"status":{"conditions":[{"type":"Ready","status":"False"},{"type":"X","status":"True"}]}})",
            R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})",
            R"({"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"X","status":"True"}]}})"},
        SmpCase{"directives_in_new_fields_are_applied", R"({})",
                R"({"spec":{"volumes":[{"name":"v"},{"name":"w","$patch":"delete"}]}})",
                R"({"spec":{"volumes":[{"name":"v"}]}})"},
        SmpCase{"element_without_merge_key_is_rejected", R"({"containers":[{"name":"a"}]})",
                R"({"containers":[{"image":"x"}]})", nullptr},
        SmpCase{"unknown_directive_is_rejected", R"({"a":{}})", R"({"a":{"$patch":"bogus"}})",
                nullptr}),
    [](const ::testing::TestParamInfo<SmpCase>& info) { return std::string(info.param.name); });

using PatchHttpTest = ServerTest;

TEST_F(PatchHttpTest, MergePatchAndJsonPatchOnKueueKinds) {
  const std::string cq = std::string(kKueue) + "/clusterqueues/cq";
  ASSERT_EQ(Post(std::string(kKueue) + "/clusterqueues", ClusterQueue("cq", "a")).status, 201);
  Reply merged = MergePatch(cq, R"({"metadata":{"labels":{"x":"1"}},"spec":{"cohort":null}})");
  ASSERT_EQ(merged.status, 200) << merged.raw;
  EXPECT_EQ(merged.body["metadata"]["labels"]["x"], "1");
  EXPECT_FALSE(merged.body["spec"].contains("cohort"));

  Reply jp = Patch(cq, R"([{"op":"add","path":"/spec/cohort","value":"b"}])",
                   "application/json-patch+json");
  ASSERT_EQ(jp.status, 200) << jp.raw;
  EXPECT_EQ(jp.body["spec"]["cohort"], "b");
  ExpectStatus(Patch(cq, R"([{"op":"test","path":"/spec/cohort","value":"zzz"}])",
                     "application/json-patch+json"),
               422, "Invalid");
  ExpectStatus(MergePatch(cq, "{bad"), 400, "BadRequest");
  ExpectStatus(Patch(cq, R"({"spec":{}})", "text/plain"), 415, "UnsupportedMediaType");
  ExpectStatus(MergePatch(std::string(kKueue) + "/clusterqueues/missing", R"({})"), 404,
               "NotFound");
  // A stale resourceVersion in the patch conflicts.
  ExpectStatus(MergePatch(cq, R"({"metadata":{"resourceVersion":"1"}})"), 409, "Conflict");
  // Renaming through a patch is refused.
  ExpectStatus(MergePatch(cq, R"({"metadata":{"name":"other"}})"), 400, "BadRequest");
}

TEST_F(PatchHttpTest, StrategicMergePatchOnJob) {
  const std::string jobs = "/apis/batch/v1/namespaces/default/jobs";
  ASSERT_EQ(Post(jobs, Job("default", "j")).status, 201);
  Reply r = Patch(
      jobs + "/j",
      R"({"spec":{"template":{"spec":{"containers":[{"name":"main","env":[{"name":"B","value":"2"}]},{"name":"side","image":"sidecar"}]}}}})",
      "application/strategic-merge-patch+json");
  ASSERT_EQ(r.status, 200) << r.raw;
  const Json& containers = r.body["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0]["image"], "busybox");
  EXPECT_EQ(containers[0]["env"].size(), 2u);
  EXPECT_EQ(containers[1]["name"], "side");

  // Status patches of a Job merge conditions by type.
  Reply st = Patch(jobs + "/j/status",
                   R"({"status":{"conditions":[{"type":"Suspended","status":"True"}]}})",
                   "application/strategic-merge-patch+json");
  ASSERT_EQ(st.status, 200) << st.raw;
  EXPECT_EQ(st.body["status"]["conditions"][0]["type"], "Suspended");
}

// kube-apiserver serves strategic merge patch for its own kinds (kubectl
// rollout restart and client-side apply send it), not for custom resources.
TEST(StrategicMergePatchKinds, BuiltInKindsOnly) {
  for (const auto& [group, plural] : std::vector<std::pair<std::string, std::string>>{
           {"", "pods"},
           {"apps", "deployments"},
           {"apps", "statefulsets"},
           {"batch", "jobs"},
           {"rbac.authorization.k8s.io", "roles"},
           {"coordination.k8s.io", "leases"},
           {"admissionregistration.k8s.io", "validatingwebhookconfigurations"}}) {
    const ResourceInfo* r = FindResource(group, plural);
    ASSERT_NE(r, nullptr) << group << "/" << plural;
    EXPECT_TRUE(SupportsStrategicMergePatch(*r)) << group << "/" << plural;
  }
  for (const auto& [group, plural] : std::vector<std::pair<std::string, std::string>>{
           {"kueue.x-k8s.io", "clusterqueues"},
           {"kubeflow.org", "pytorchjobs"},
           {"leaderworkerset.x-k8s.io", "leaderworkersets"},
           {"scheduling.volcano.sh", "queues"},
           {"autoscaling.x-k8s.io", "provisioningrequests"}}) {
    const ResourceInfo* r = FindResource(group, plural);
    ASSERT_NE(r, nullptr) << group << "/" << plural;
    EXPECT_FALSE(SupportsStrategicMergePatch(*r)) << group << "/" << plural;
  }
}

TEST_F(PatchHttpTest, ApplyPatchCreatesThenMerges) {
  const std::string cq = std::string(kKueue) + "/clusterqueues/applied";
  Reply created = Patch(cq + "?fieldManager=kubectl&force=true",
                        ClusterQueue("applied", "a").dump(), "application/apply-patch+yaml");
  ASSERT_EQ(created.status, 201) << created.raw;
  Reply updated = Patch(cq, ClusterQueue("applied", "b").dump(), "application/apply-patch+yaml");
  ASSERT_EQ(updated.status, 200) << updated.raw;
  EXPECT_EQ(updated.body["spec"]["cohort"], "b");
}

}  // namespace
}  // namespace kuota::server
