// Tests of Kueue's plain-Pod integration: the pod webhook's checks (errors
// name the annotation) and defaults (gate, managed label, role hash), the
// Workload of a single pod and of a pod group (pod sets by role, all or
// nothing), ungating with a flavor's placement, and when a group is finished.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jobs/pod_group.h"
#include "jobs/pod_kind.h"

namespace kuota::jobs {
namespace {

// A builder for pods as stored.
class PodBuilder {
 public:
  explicit PodBuilder(const std::string& name) {
    pod_ = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata",
             {{"name", name},
              {"namespace", "team-a"},
              {"uid", "uid-" + name},
              {"creationTimestamp", "2026-01-01T00:00:00Z"},
              {"labels", {{kQueueNameLabel, "user-queue"}}}}},
            {"spec",
             {{"restartPolicy", "Never"},
              {"containers", Json::array({{{"name", "main"},
                                           {"image", "busybox"},
                                           {"command", Json::array({"sleep", "1"})},
                                           {"resources", {{"requests", {{"cpu", "1"}}}}}}})}}}};
  }
  PodBuilder& Label(const std::string& k, const std::string& v) {
    pod_["metadata"]["labels"][k] = v;
    return *this;
  }
  PodBuilder& NoLabels() {
    pod_["metadata"].erase("labels");
    return *this;
  }
  PodBuilder& Annotation(const std::string& k, Json v) {
    pod_["metadata"]["annotations"][k] = std::move(v);
    return *this;
  }
  PodBuilder& Group(const std::string& g, const std::string& count) {
    Label(kPodGroupNameLabel, g);
    return Annotation(kPodGroupTotalCountAnnotation, count);
  }
  PodBuilder& Cpu(const std::string& cpu) {
    pod_["spec"]["containers"][0]["resources"]["requests"]["cpu"] = cpu;
    return *this;
  }
  PodBuilder& Command(const std::string& arg) {
    pod_["spec"]["containers"][0]["command"] = Json::array({"sleep", arg});
    return *this;
  }
  PodBuilder& Phase(const std::string& phase) {
    pod_["status"]["phase"] = phase;
    return *this;
  }
  PodBuilder& Owner(const std::string& kind) {
    pod_["metadata"]["ownerReferences"] = Json::array({{{"apiVersion", "batch/v1"},
                                                        {"kind", kind},
                                                        {"name", "x"},
                                                        {"uid", "u"},
                                                        {"controller", true}}});
    return *this;
  }
  PodBuilder& PriorityClass(const std::string& pc) {
    pod_["spec"]["priorityClassName"] = pc;
    return *this;
  }
  Json Managed() {
    Json p = pod_;
    DefaultManagedPodOnCreate(p);
    return p;
  }
  Json Obj() const { return pod_; }

 private:
  Json pod_;
};

TEST(PodKindTest, CandidatesNameAQueueAndHaveNoController) {
  EXPECT_TRUE(IsPodIntegrationCandidate(PodBuilder("a").Obj()));
  EXPECT_FALSE(IsPodIntegrationCandidate(PodBuilder("a").NoLabels().Obj()));
  EXPECT_FALSE(IsPodIntegrationCandidate(PodBuilder("a").Owner("Job").Obj()));
}

TEST(PodKindTest, ValidateGroupAnnotations) {
  const std::string field = "metadata.annotations[kueue.x-k8s.io/pod-group-total-count]";
  struct Case {
    const char* name;
    Json pod;
    std::string want;  // "" for Ok, else the message's start
  };
  std::vector<Case> cases = {
      {"single pod", PodBuilder("a").Obj(), ""},
      {"group of 2", PodBuilder("a").Group("g", "2").Obj(), ""},
      {"missing count", PodBuilder("a").Label(kPodGroupNameLabel, "g").Obj(),
       field + ": Required value"},
      {"zero", PodBuilder("a").Group("g", "0").Obj(), field + ": Invalid value: \"0\""},
      {"negative", PodBuilder("a").Group("g", "-1").Obj(), field + ": Invalid value: \"-1\""},
      {"not a number", PodBuilder("a").Group("g", "two").Obj(), field + ": Invalid value"},
      {"count without group", PodBuilder("a").Annotation(kPodGroupTotalCountAnnotation, "2").Obj(),
       field + ": Forbidden"},
  };
  for (const auto& c : cases) {
    Status st = ValidateManagedPod(c.pod);
    if (c.want.empty()) {
      EXPECT_TRUE(st.ok()) << c.name << ": " << st.message();
    } else {
      EXPECT_FALSE(st.ok()) << c.name;
      EXPECT_EQ(st.message().rfind(c.want, 0), 0u) << c.name << ": " << st.message();
    }
  }
}

TEST(PodKindTest, DefaultOnCreateGatesAndLabels) {
  Json p = PodBuilder("a").Group("g", "2").Managed();
  EXPECT_TRUE(PodIsGated(p));
  EXPECT_TRUE(IsManagedPod(p));
  EXPECT_EQ(p["metadata"]["labels"][kManagedLabel], "true");
  EXPECT_EQ(p["metadata"]["annotations"][kRoleHashAnnotation].get<std::string>().size(), 8u);
  // Idempotent: one gate.
  DefaultManagedPodOnCreate(p);
  EXPECT_EQ(p["spec"]["schedulingGates"].size(), 1u);
}

TEST(PodKindTest, RoleHashIgnoresCommandButNotResources) {
  EXPECT_EQ(PodRoleHash(PodBuilder("a").Command("1").Obj()),
            PodRoleHash(PodBuilder("b").Command("2").Obj()));
  EXPECT_NE(PodRoleHash(PodBuilder("a").Obj()), PodRoleHash(PodBuilder("b").Cpu("2").Obj()));
  // Gating does not change the role.
  EXPECT_EQ(PodRoleHash(PodBuilder("a").Obj()), PodRoleHash(PodBuilder("a").Managed()));
}

TEST(PodKindTest, SinglePodWorkload) {
  Json pod = PodBuilder("sleeper").PriorityClass("high").Managed();
  auto wl = BuildSinglePodWorkload(pod);
  ASSERT_TRUE(wl.ok()) << wl.status().message();
  const std::string name = (*wl)["metadata"]["name"];
  EXPECT_EQ(name, WorkloadNameFor("Pod", "sleeper", "uid-sleeper"));
  EXPECT_EQ(name.rfind("pod-sleeper-", 0), 0u);
  EXPECT_EQ(PodGroup::WorkloadKeyOf(pod), "team-a/" + name);
  EXPECT_EQ((*wl)["spec"]["queueName"], "user-queue");
  EXPECT_EQ((*wl)["spec"]["priorityClassRef"]["name"], "high");
  EXPECT_EQ((*wl)["spec"]["priorityClassRef"]["kind"], "PriorityClass");
  const Json& ps = (*wl)["spec"]["podSets"][0];
  EXPECT_EQ(ps["name"], "main");
  EXPECT_EQ(ps["count"], 1);
  EXPECT_FALSE(ps["template"]["spec"].contains("schedulingGates"));
  EXPECT_FALSE(ps["template"].contains("metadata"));  // only Kueue's labels
  EXPECT_EQ((*wl)["metadata"]["ownerReferences"][0]["kind"], "Pod");
  EXPECT_EQ((*wl)["metadata"]["ownerReferences"][0]["uid"], "uid-sleeper");
}

TEST(PodKindTest, WorkloadPriorityClassLabelWins) {
  Json pod = PodBuilder("p").PriorityClass("high").Label(kPriorityClassLabel, "wpc").Managed();
  auto wl = BuildSinglePodWorkload(pod);
  ASSERT_TRUE(wl.ok());
  EXPECT_EQ((*wl)["spec"]["priorityClassRef"]["name"], "wpc");
  EXPECT_EQ((*wl)["spec"]["priorityClassRef"]["kind"], "WorkloadPriorityClass");
}

TEST(PodKindTest, UngateMergesPlacement) {
  Json pod = PodBuilder("p").Managed();
  pod["spec"]["nodeSelector"] = {{"zone", "a"}};
  pod["spec"]["schedulingGates"].push_back({{"name", "other"}});
  PodSetPlacement p;
  p.name = "main";
  p.node_selector = {{"instance-type", "on-demand"}};
  p.tolerations.push_back({{"key", "spot"}, {"operator", "Exists"}});
  Json out = UngatePod(pod, p);
  EXPECT_FALSE(PodIsGated(out));
  EXPECT_EQ(out["spec"]["schedulingGates"], Json::array({{{"name", "other"}}}));
  EXPECT_EQ(out["spec"]["nodeSelector"], Json({{"zone", "a"}, {"instance-type", "on-demand"}}));
  EXPECT_EQ(out["spec"]["tolerations"][0]["key"], "spot");
  Json only = UngatePod(PodBuilder("q").Managed(), PodSetPlacement{});
  EXPECT_FALSE(only["spec"].contains("schedulingGates"));
  EXPECT_FALSE(only["spec"].contains("nodeSelector"));
}

TEST(PodGroupTest, WaitsForAllPodsThenPodSetsByRole) {
  Json a = PodBuilder("a").Group("train", "3").Command("1").Managed();
  Json b = PodBuilder("b").Group("train", "3").Command("2").Managed();
  Json c = PodBuilder("c").Group("train", "3").Cpu("2").Managed();
  EXPECT_EQ(PodGroup::WorkloadKeyOf(a), "team-a/train");
  PodGroup partial("team-a/train", {a, b});
  EXPECT_EQ(partial.TotalCount(), 3);
  EXPECT_FALSE(partial.Complete());
  EXPECT_FALSE(partial.BuildWorkload().ok());

  PodGroup full("team-a/train", {c, b, a});
  ASSERT_TRUE(full.Complete());
  auto wl = full.BuildWorkload();
  ASSERT_TRUE(wl.ok()) << wl.status().message();
  EXPECT_EQ((*wl)["metadata"]["name"], "train");
  EXPECT_EQ((*wl)["metadata"]["annotations"][kIsGroupWorkloadAnnotation], "true");
  EXPECT_EQ((*wl)["metadata"]["ownerReferences"].size(), 3u);
  const Json& sets = (*wl)["spec"]["podSets"];
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0]["name"], full.PodSetOf(a));
  EXPECT_EQ(sets[0]["count"], 2);
  EXPECT_EQ(sets[1]["name"], full.PodSetOf(c));
  EXPECT_EQ(sets[1]["count"], 1);
  EXPECT_EQ(full.PodSetOf(a), full.PodSetOf(b));
}

TEST(PodGroupTest, FailedAndDeletedPodsDoNotCount) {
  Json a = PodBuilder("a").Group("g", "2").Managed();
  Json b = PodBuilder("b").Group("g", "2").Phase("Failed").Managed();
  Json c = PodBuilder("c").Group("g", "2").Managed();
  c["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:01Z";
  EXPECT_FALSE(PodGroup("team-a/g", {a, b, c}).Complete());
  Json d = PodBuilder("d").Group("g", "2").Managed();
  EXPECT_TRUE(PodGroup("team-a/g", {a, b, c, d}).Complete());
}

TEST(PodGroupTest, Finished) {
  bool ok = false;
  EXPECT_TRUE(PodGroup("k", {PodBuilder("a").Phase("Succeeded").Obj()}).Finished(&ok));
  EXPECT_TRUE(ok);
  EXPECT_TRUE(PodGroup("k", {PodBuilder("a").Phase("Failed").Obj()}).Finished(&ok));
  EXPECT_FALSE(ok);
  EXPECT_FALSE(PodGroup("k", {PodBuilder("a").Phase("Running").Obj()}).Finished(&ok));

  Json s1 = PodBuilder("a").Group("g", "2").Phase("Succeeded").Obj();
  Json s2 = PodBuilder("b").Group("g", "2").Phase("Succeeded").Obj();
  Json f = PodBuilder("c").Group("g", "2").Phase("Failed").Obj();
  EXPECT_TRUE(PodGroup("k", {s1, s2}).Finished(&ok));
  EXPECT_TRUE(ok);
  // A failed pod waits for its replacement...
  EXPECT_FALSE(PodGroup("k", {s1, f}).Finished(&ok));
  // ...unless a pod says the group is not retriable.
  Json last = PodBuilder("c").Group("g", "2").Phase("Failed").Obj();
  last["metadata"]["annotations"][kRetriableInGroupAnnotation] = "false";
  EXPECT_TRUE(PodGroup("k", {s1, last}).Finished(&ok));
  EXPECT_FALSE(ok);
}

TEST(PodGroupTest, PodsReady) {
  EXPECT_TRUE(PodGroup("k", {PodBuilder("a").Phase("Running").Obj(),
                             PodBuilder("b").Phase("Succeeded").Obj()})
                  .PodsReady());
  EXPECT_FALSE(PodGroup("k", {PodBuilder("a").Phase("Running").Obj(),
                              PodBuilder("b").Phase("Pending").Obj()})
                   .PodsReady());
}

}  // namespace
}  // namespace kuota::jobs
