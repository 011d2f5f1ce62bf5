// Kueue's resource validation at admission (requests must not exceed limits),
// with the messages Kueue writes.
#include "engine/workload_info.h"

#include <gtest/gtest.h>

#include <string>

namespace kuota::engine {
namespace {

api::Quantity Q(const char* text) { return *api::Quantity::Parse(text); }

api::Container C(api::ResourceList requests, api::ResourceList limits) {
  api::Container c;
  c.name = "c";
  c.resources.requests = std::move(requests);
  c.resources.limits = std::move(limits);
  return c;
}

api::Workload OnePodSet(api::PodSpec spec) {
  api::Workload wl;
  api::PodSet ps;
  ps.name = "main";
  ps.template_.spec = std::move(spec);
  wl.spec.pod_sets.push_back(std::move(ps));
  return wl;
}

TEST(ValidateResourcesTest, WithinLimitsIsValid) {
  api::PodSpec spec;
  spec.containers.push_back(C({{"cpu", Q("1")}}, {{"cpu", Q("1")}, {"memory", Q("1Gi")}}));
  spec.containers.push_back(C({{"cpu", Q("2")}}, {}));  // no limit: nothing to exceed
  EXPECT_EQ(ValidateResources(OnePodSet(spec)), "");
}

TEST(ValidateResourcesTest, OneContainerOverItsLimit) {
  api::PodSpec spec;
  spec.containers.push_back(C({{"cpu", Q("1")}}, {}));
  spec.containers.push_back(
      C({{"cpu", Q("2")}, {"memory", Q("2Gi")}}, {{"cpu", Q("1")}, {"memory", Q("1Gi")}}));
  EXPECT_EQ(ValidateResources(OnePodSet(spec)),
            "resources validation failed: spec.podSets[0].template.spec.containers[1]: Invalid "
            "value: []v1.ResourceName{\"cpu\", \"memory\"}: requests must not exceed its limits");
}

TEST(ValidateResourcesTest, SeveralErrorsAreBracketed) {
  api::PodSpec spec;
  spec.init_containers.push_back(C({{"memory", Q("2Gi")}}, {{"memory", Q("1Gi")}}));
  spec.containers.push_back(C({{"cpu", Q("2")}}, {{"cpu", Q("1")}}));
  EXPECT_EQ(ValidateResources(OnePodSet(spec)),
            "resources validation failed: [spec.podSets[0].template.spec.initContainers[0]: "
            "Invalid value: []v1.ResourceName{\"memory\"}: requests must not exceed its limits, "
            "spec.podSets[0].template.spec.containers[0]: Invalid value: "
            "[]v1.ResourceName{\"cpu\"}: requests must not exceed its limits]");
}

// The pending message is kept once: on the workload, or (after a cycle left
// it pending) read from its QuotaReserved condition until it is set again.
TEST(WorkloadInfoTest, PendingMessageReadsTheConditionUntilSetAgain) {
  WorkloadInfo wl;
  EXPECT_EQ(wl.pending_message(), "");
  wl.set_pending_message("LocalQueue lq doesn't exist");
  EXPECT_EQ(wl.pending_message(), "LocalQueue lq doesn't exist");
  wl.set_pending_message_on_condition();
  EXPECT_EQ(wl.pending_message(), "") << "no QuotaReserved condition yet";
  api::Condition other;
  other.type = api::kEvicted;
  other.message = "not this one";
  api::Condition qr;
  qr.type = api::kQuotaReserved;
  qr.status = "False";
  qr.message = "couldn't assign flavors to pod set main: insufficient quota";
  wl.object.status.conditions = {other, qr};
  EXPECT_EQ(wl.pending_message(), qr.message);
  wl.object.status.conditions[1].message = "changed";
  EXPECT_EQ(wl.pending_message(), "changed");
  wl.set_pending_message("ClusterQueue cq is inactive");
  EXPECT_EQ(wl.pending_message(), "ClusterQueue cq is inactive");
}

}  // namespace
}  // namespace kuota::engine
