// Identity admission: which securityContext requests are refused for which
// submitter, the field paths and identity the refusal names, and the hook's
// order (the inner hook first; pods and job kinds only).
#include "standalone/identity_admission.h"

#include <gtest/gtest.h>

#include "jobctl/submitter.h"
#include "server/resource_info.h"

namespace kuota::standalone {
namespace {

using Json = nlohmann::json;

const Identity kAlice{1001, "alice", std::vector<uint32_t>{1001, 27}};
const Identity kRoot{0, "root", std::vector<uint32_t>{0}};

Json IdentityJob(Json pod_ctx, Json container_ctx) {
  Json container = {{"name", "main"}, {"image", "busybox"}};
  if (!container_ctx.is_null()) container["securityContext"] = container_ctx;
  Json pod_spec = {{"containers", Json::array({container})}};
  if (!pod_ctx.is_null()) pod_spec["securityContext"] = pod_ctx;
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"name", "j"}, {"namespace", "alice"}}},
          {"spec", {{"template", {{"spec", pod_spec}}}}}};
}

TEST(IdentityAdmissionTest, OwnIdentityIsAllowed) {
  EXPECT_TRUE(CheckRequestedIdentity(IdentityJob(nullptr, nullptr), kAlice).ok());
  Json own = IdentityJob({{"runAsUser", 1001},
                          {"runAsGroup", 1001},
                          {"fsGroup", 27},
                          {"supplementalGroups", {27}},
                          {"runAsNonRoot", true}},
                         {{"runAsUser", 1001}, {"privileged", false}});
  EXPECT_TRUE(CheckRequestedIdentity(own, kAlice).ok());
  // Root may ask for root, privileged or not.
  Json root = IdentityJob({{"runAsUser", 0}}, {{"privileged", true}, {"runAsNonRoot", false}});
  EXPECT_TRUE(CheckRequestedIdentity(root, kRoot).ok());
}

TEST(IdentityAdmissionTest, AnotherIdentityIsRefusedNamingFieldAndIdentity) {
  Json job = IdentityJob({{"runAsUser", 0}}, {{"privileged", true}});
  Status st = CheckRequestedIdentity(job, kAlice);
  ASSERT_EQ(st.code(), StatusCode::kForbidden);
  EXPECT_NE(st.message().find("spec.template.spec.securityContext.runAsUser: asks to run as uid 0"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find(
                "spec.template.spec.containers[0].securityContext.privileged: true asks for root"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("uid 1001 (alice), gid 1001"), std::string::npos) << st.message();
}

TEST(IdentityAdmissionTest, EachFieldIsChecked) {
  struct Case {
    const char* name;
    Json pod_ctx;
    Json container_ctx;
    const char* field;
  };
  const Case cases[] = {
      {"another uid", {{"runAsUser", 1002}}, nullptr, "securityContext.runAsUser"},
      {"a uid as text",
       nullptr,
       {{"runAsUser", "1001"}},
       "containers[0].securityContext.runAsUser"},
      {"another group", {{"runAsGroup", 0}}, nullptr, "securityContext.runAsGroup"},
      {"another fsGroup", {{"fsGroup", 5}}, nullptr, "securityContext.fsGroup"},
      {"a foreign supplementary group",
       {{"supplementalGroups", {27, 6}}},
       nullptr,
       "supplementalGroups[1]"},
      {"runAsNonRoot false",
       nullptr,
       {{"runAsNonRoot", false}},
       "containers[0].securityContext.runAsNonRoot"},
  };
  for (const Case& c : cases) {
    Status st = CheckRequestedIdentity(IdentityJob(c.pod_ctx, c.container_ctx), kAlice);
    ASSERT_EQ(st.code(), StatusCode::kForbidden) << c.name;
    EXPECT_NE(st.message().find(c.field), std::string::npos) << c.name << ": " << st.message();
  }
}

TEST(IdentityAdmissionTest, UnknownGroupsAllowNoGroup) {
  Identity unknown{1003, "", std::nullopt};
  Status st = CheckRequestedIdentity(IdentityJob({{"runAsGroup", 1003}}, nullptr), unknown);
  ASSERT_EQ(st.code(), StatusCode::kForbidden);
  EXPECT_NE(st.message().find("not known here"), std::string::npos) << st.message();
  EXPECT_TRUE(CheckRequestedIdentity(IdentityJob({{"runAsUser", 1003}}, nullptr), unknown).ok());
}

TEST(IdentityAdmissionTest, IdentityIsTheSubmitterOrKuotad) {
  const UserLookup look_up = [](uint32_t uid) -> Result<runtime::RunAs> {
    if (uid == 1001) return runtime::RunAs{1001, 1001, {1001, 27}, "/home/alice", "alice"};
    return Status::NotFound("no user " + std::to_string(uid));
  };
  Json job = IdentityJob(nullptr, nullptr);
  Identity daemon = IdentityOf(job, 1000, look_up);
  EXPECT_EQ(daemon.uid, 1000u);
  EXPECT_FALSE(daemon.groups.has_value());
  job["metadata"]["annotations"][jobctl::kSubmitterUidAnnotation] = "1001";
  Identity alice = IdentityOf(job, 1000, look_up);
  EXPECT_EQ(alice.uid, 1001u);
  EXPECT_EQ(alice.user_name, "alice");
  ASSERT_TRUE(alice.groups.has_value());
  EXPECT_EQ(*alice.groups, (std::vector<uint32_t>{1001, 27}));
}

// An inner hook that counts its calls and refuses objects named "bad".
class CountingIdentityInner final : public server::AdmissionHook {
 public:
  Status Admit(const server::ResourceInfo&, Operation, const Json*, Json* object) override {
    ++calls;
    if ((*object)["metadata"]["name"] == "bad") return Status::Invalid("metadata.name: bad");
    return Status::Ok();
  }
  int calls = 0;
};

const server::ResourceInfo& IdentityResource(const std::string& key) {
  for (const server::ResourceInfo& r : server::ServedResources()) {
    if (r.StoreKey() == key) return r;
  }
  ADD_FAILURE() << "no resource " << key;
  return server::ServedResources().front();
}

TEST(IdentityAdmissionTest, HookRunsInnerFirstAndChecksPodsAndJobsOnly) {
  CountingIdentityInner inner;
  IdentityAdmission hook(inner, 1001, [](uint32_t) -> Result<runtime::RunAs> {
    return runtime::RunAs{1001, 1001, {1001}, "/home/alice", "alice"};
  });
  using Op = server::AdmissionHook::Operation;
  Json job = IdentityJob({{"runAsUser", 0}}, nullptr);
  EXPECT_EQ(hook.Admit(IdentityResource("jobs.batch"), Op::kCreate, nullptr, &job).code(),
            StatusCode::kForbidden);
  EXPECT_EQ(hook.Admit(IdentityResource("jobs.batch"), Op::kUpdate, &job, &job).code(),
            StatusCode::kForbidden);
  EXPECT_TRUE(hook.Admit(IdentityResource("jobs.batch"), Op::kDelete, &job, &job).ok());
  Json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "p"}, {"namespace", "alice"}}},
      {"spec", {{"containers", {{{"name", "c"}, {"securityContext", {{"privileged", true}}}}}}}}};
  EXPECT_EQ(hook.Admit(IdentityResource("pods"), Op::kCreate, nullptr, &pod).code(),
            StatusCode::kForbidden);
  // Not a pod nor a job: a ConfigMap-like object's fields are not read.
  Json ns = {{"apiVersion", "v1"},
             {"kind", "Namespace"},
             {"metadata", {{"name", "n"}}},
             {"spec", {{"securityContext", {{"runAsUser", 0}}}}}};
  EXPECT_TRUE(hook.Admit(IdentityResource("namespaces"), Op::kCreate, nullptr, &ns).ok());
  Json bad = IdentityJob({{"runAsUser", 0}}, nullptr);
  bad["metadata"]["name"] = "bad";
  EXPECT_EQ(hook.Admit(IdentityResource("jobs.batch"), Op::kCreate, nullptr, &bad).code(),
            StatusCode::kInvalid);
  EXPECT_EQ(inner.calls, 6);
}

}  // namespace
}  // namespace kuota::standalone
