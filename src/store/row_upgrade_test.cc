// Row upgrade (row_upgrade.h): rows an older build wrote are rewritten in
// place when the store opens, keeping their key, uid and resourceVersion; a
// process killed midway leaves committed batches rewritten and the rest as
// they were, and the next open finishes; the level reached is recorded so a
// current store is not scanned again; a row that cannot be upgraded fails
// Open with its name.
#include "store/row_upgrade.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <string>

#include "store/store_test_env.h"

namespace kuota::store {
namespace {

using testing::kClusterQueues;
using testing::kConfigMaps;

constexpr int kQueues = 23;

// The upgrade under test: a ClusterQueue with apiVersion "v1" moves spec.cohort
// to spec.cohortName and says "v2"; anything else is current. A cohort named
// "poison" cannot be upgraded.
Result<std::optional<Json>> RenameCohort(const std::string& resource, const Json& object) {
  if (resource != kClusterQueues || object.value("apiVersion", "") != "v1") {
    return std::optional<Json>();
  }
  Json out = object;
  if (out["spec"].value("cohort", "") == "poison") return Status::Invalid("spec.cohort: poisoned");
  out["apiVersion"] = "v2";
  out["spec"]["cohortName"] = out["spec"]["cohort"];
  out["spec"].erase("cohort");
  return std::optional<Json>(std::move(out));
}

class RowUpgradeTest : public testing::StoreTest {
 protected:
  // An old store: kQueues v1 ClusterQueues and a ConfigMap, their versions.
  void WriteOldStore() {
    OpenStore();
    for (int i = 0; i < kQueues; ++i) {
      Json cq = testing::ClusterQueue("cq" + std::to_string(i), "org" + std::to_string(i));
      cq["apiVersion"] = "v1";
      Json stored = MustCreate(kClusterQueues, cq);
      versions_[stored["metadata"]["name"]] = {testing::Rv(stored),
                                               stored["metadata"]["uid"].get<std::string>()};
    }
    MustCreate(kConfigMaps, testing::ConfigMap("ns", "cm", {{"k", "v"}}));
    rv_before_ = store_->CurrentResourceVersion();
    store_.reset();
  }

  StoreOptions Upgrading(int* calls = nullptr) const {
    StoreOptions o = Options();
    o.upgrade = [calls](const std::string& resource, const Json& object) {
      if (calls != nullptr) ++*calls;
      return RenameCohort(resource, object);
    };
    o.upgrade_level = 1;
    o.upgrade_batch = 5;
    return o;
  }

  // How many stored ClusterQueues are in the new form; every one of them
  // still has its uid and resourceVersion and names its cohort.
  int CountUpgraded() {
    auto list = store_->List(kClusterQueues, {});
    EXPECT_TRUE(list.ok());
    EXPECT_EQ(list->items.size(), static_cast<size_t>(kQueues));
    int upgraded = 0;
    for (const Json& cq : list->items) {
      const std::string name = cq["metadata"]["name"];
      EXPECT_EQ(testing::Rv(cq), versions_[name].first) << name;
      EXPECT_EQ(cq["metadata"]["uid"], versions_[name].second) << name;
      const std::string cohort = "org" + name.substr(2);
      if (cq["apiVersion"] == "v2") {
        ++upgraded;
        EXPECT_EQ(cq["spec"].value("cohortName", ""), cohort) << name;
        EXPECT_FALSE(cq["spec"].contains("cohort")) << name;
      } else {
        EXPECT_EQ(cq["spec"].value("cohort", ""), cohort) << name;
      }
    }
    return upgraded;
  }

  std::map<std::string, std::pair<int64_t, std::string>> versions_;
  int64_t rv_before_ = 0;
};

TEST_F(RowUpgradeTest, RewritesOldRowsInPlaceOnce) {
  WriteOldStore();
  int calls = 0;
  OpenStore(Upgrading(&calls));
  EXPECT_EQ(CountUpgraded(), kQueues);
  EXPECT_EQ(calls, kQueues + 1);  // every row once, the ConfigMap included
  EXPECT_EQ(store_->CurrentResourceVersion(), rv_before_) << "an upgrade is not a write";
  auto cm = store_->Get(kConfigMaps, "ns", "cm");
  ASSERT_TRUE(cm.ok());
  EXPECT_EQ((*cm)["data"]["k"], "v");
  // The level is recorded: the next open reads no row.
  calls = 0;
  OpenStore(Upgrading(&calls));
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(CountUpgraded(), kQueues);
}

TEST_F(RowUpgradeTest, KilledMidwayResumesOnTheNextOpen) {
  WriteOldStore();
  // A child opens the store to upgrade it and is killed (SIGKILL, as kill -9)
  // once its second batch is committed.
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    StoreOptions o = Upgrading();
    o.after_upgrade_batch = [](int64_t rewritten) {
      if (rewritten >= 10) kill(getpid(), SIGKILL);
    };
    (void)SqliteObjectStore::Open(o);
    _exit(0);  // not reached: the upgrade has more than two batches
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL) << "status " << wstatus;

  // As the kill left it: two batches rewritten, the rest as they were.
  OpenStore(Options());
  EXPECT_EQ(CountUpgraded(), 10);
  // The next open finishes, leaving the rewritten rows as they are.
  int calls = 0;
  OpenStore(Upgrading(&calls));
  EXPECT_EQ(CountUpgraded(), kQueues);
  EXPECT_EQ(calls, kQueues + 1);
  EXPECT_EQ(store_->CurrentResourceVersion(), rv_before_);
}

TEST_F(RowUpgradeTest, ARowThatCannotBeUpgradedFailsOpenNamingIt) {
  OpenStore();
  Json cq = testing::ClusterQueue("bad", "poison");
  cq["apiVersion"] = "v1";
  MustCreate(kClusterQueues, cq);
  store_.reset();
  auto opened = SqliteObjectStore::Open(Upgrading());
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().message(),
            "upgrading the store: clusterqueues.kueue.x-k8s.io bad: spec.cohort: poisoned");
  // Nothing was lost: the row is there, as written.
  OpenStore(Options());
  auto got = store_->Get(kClusterQueues, "", "bad");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)["spec"]["cohort"], "poison");
}

}  // namespace
}  // namespace kuota::store
