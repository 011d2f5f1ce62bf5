#include "standalone/store_loop.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "base/clock.h"
#include "store/list_all.h"
#include "testing/sqlite_store_test.h"

namespace kuota::standalone {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr const char* kMaps = "configmaps";

// A loop over ConfigMaps whose names say what each step does:
// "again" asks to be reconciled at once until its third step, "later" wakes
// itself 150 ms after its first step, "throws" throws on its first step,
// "bad-handle" makes Handle throw.
class TestLoop final : public StoreLoop {
 public:
  TestLoop(store::ObjectStore& store, const Clock& clock)
      : StoreLoop(store, clock, "test loop", milliseconds(20)), store_(store), clock_(clock) {}
  ~TestLoop() override { Stop(); }

  int Steps(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    return steps_[key];
  }
  int64_t Gap(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    return (last_[key] - first_[key]).ms;
  }

  std::atomic<int> lists{0};
  std::atomic<int> after_lists{0};
  std::atomic<int> handle_failures{0};
  std::atomic<int> reconcile_failures{0};
  std::atomic<bool> fail_list{false};

 private:
  Status List() override {
    ++lists;
    if (fail_list) return Status::Unavailable("the store is away");
    return store::ListEach(store_, kMaps, [&](json& item) { Replay(kMaps, std::move(item)); });
  }
  void Handle(const store::WatchEvent& ev) override {
    if (ev.resource != kMaps) return;
    const std::string name = ev.object["metadata"]["name"];
    if (name == "bad-handle") throw std::runtime_error("cannot read it");
    if (ev.type == store::EventType::kDeleted) {
      Forget(name);
      return;
    }
    MarkDirty(name);
  }
  bool Reconcile(const std::string& key) override {
    int n;
    {
      std::lock_guard<std::mutex> lock(mu_);
      n = ++steps_[key];
      if (n == 1) first_[key] = clock_.Now();
      last_[key] = clock_.Now();
    }
    if (key == "throws" && n == 1) throw std::runtime_error("boom");
    if (key == "later" && n == 1) WakeAt(key, clock_.Now() + Duration{150});
    return key == "again" && n < 3;
  }
  void HandleFailed(const store::WatchEvent& ev, const std::string& error) override {
    EXPECT_NE(error.find("cannot read it"), std::string::npos) << error;
    EXPECT_EQ(ev.resource, kMaps);
    ++handle_failures;
  }
  void ReconcileFailed(const std::string& key, const std::string& error) override {
    EXPECT_EQ(key, "throws");
    EXPECT_NE(error.find("boom"), std::string::npos) << error;
    ++reconcile_failures;
    StoreLoop::ReconcileFailed(key, error);  // logged, retried a second later
  }
  void AfterList() override { ++after_lists; }

  store::ObjectStore& store_;
  const Clock& clock_;
  std::mutex mu_;
  std::map<std::string, int> steps_;
  std::map<std::string, Time> first_, last_;
};

class StoreLoopTest : public testing::SqliteStoreTest {
 protected:
  void Put(const std::string& name) {
    auto created =
        store_->Create(kMaps, json{{"apiVersion", "v1"},
                                   {"kind", "ConfigMap"},
                                   {"metadata", {{"name", name}, {"namespace", "default"}}}});
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  // Polls `done` for up to 5 s.
  template <typename Fn>
  bool Eventually(Fn done) {
    for (int i = 0; i < 500; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return done();
  }

  RealClock clock_;
};

TEST_F(StoreLoopTest, ListsWhatIsStoredThenFollowsChanges) {
  Put("before");
  TestLoop loop(*store_, clock_);
  ASSERT_TRUE(loop.Start().ok());
  Put("after");
  ASSERT_TRUE(loop.WaitIdle(milliseconds(5000)));
  EXPECT_EQ(loop.Steps("before"), 1);
  EXPECT_EQ(loop.Steps("after"), 1);
  EXPECT_EQ(loop.lists, 1);
  EXPECT_TRUE(Eventually([&] { return loop.after_lists == 1; }));
  loop.Stop();
  loop.Stop();  // idempotent
  Put("stopped");
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(loop.Steps("stopped"), 0);
}

TEST_F(StoreLoopTest, ReconcilesAgainWhenAskedAndWhenWoken) {
  TestLoop loop(*store_, clock_);
  ASSERT_TRUE(loop.Start().ok());
  Put("again");
  Put("later");
  ASSERT_TRUE(loop.WaitIdle(milliseconds(5000)));
  EXPECT_EQ(loop.Steps("again"), 3);
  ASSERT_TRUE(Eventually([&] { return loop.Steps("later") == 2; }));
  EXPECT_GE(loop.Gap("later"), 150);
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(loop.Steps("later"), 2);  // woken once, not again
  EXPECT_EQ(loop.Steps("again"), 3);
}

TEST_F(StoreLoopTest, AStepThatThrowsIsRetriedAndTheLoopGoesOn) {
  TestLoop loop(*store_, clock_);
  ASSERT_TRUE(loop.Start().ok());
  Put("bad-handle");
  Put("throws");
  Put("fine");
  ASSERT_TRUE(Eventually([&] { return loop.Steps("throws") == 2; }));
  EXPECT_GE(loop.Gap("throws"), 1000);
  EXPECT_EQ(loop.reconcile_failures, 1);
  EXPECT_EQ(loop.handle_failures, 1);
  EXPECT_EQ(loop.Steps("bad-handle"), 0);
  EXPECT_EQ(loop.Steps("fine"), 1);
  EXPECT_EQ(loop.lists, 1);  // nothing escaped the loop
}

TEST_F(StoreLoopTest, ADeletedObjectsWakeUpIsForgotten) {
  TestLoop loop(*store_, clock_);
  ASSERT_TRUE(loop.Start().ok());
  Put("later");
  ASSERT_TRUE(Eventually([&] { return loop.Steps("later") == 1; }));
  ASSERT_TRUE(store_->Delete(kMaps, "default", "later").ok());
  ASSERT_TRUE(loop.WaitIdle(milliseconds(5000)));
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(loop.Steps("later"), 1);
}

TEST_F(StoreLoopTest, StartFailsWhenTheFirstListDoes) {
  TestLoop loop(*store_, clock_);
  loop.fail_list = true;
  Status st = loop.Start();
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
  EXPECT_NE(st.message().find("test loop"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("the store is away"), std::string::npos) << st.message();
  loop.Stop();  // nothing started: still fine
}

}  // namespace
}  // namespace kuota::standalone
