// The controller writes a scheduling burst's Workload statuses as one store
// batch (one transaction: store/write_batch_test.cc), not one write each,
// publishing every admission, and its Events off its own thread: a real
// SQLite store behind a store that counts the calls.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "control/controller.h"
#include "metrics/registry.h"
#include "testing/sqlite_store_test.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;
constexpr char kWorkloads[] = "workloads.kueue.x-k8s.io";

// Forwards to a real store; remembers the Workload writes of each call.
class CountingStore final : public store::ObjectStore {
 public:
  explicit CountingStore(store::ObjectStore& inner) : inner_(inner) {}

  Result<Json> Create(const std::string& r, Json o) override { return inner_.Create(r, o); }
  Result<Json> Get(const std::string& r, const std::string& ns, const std::string& n) override {
    return inner_.Get(r, ns, n);
  }
  Result<store::ListResult> List(const std::string& r, const store::ListOptions& o) override {
    return inner_.List(r, o);
  }
  Result<Json> Update(const std::string& r, Json o, const store::UpdateOptions& u) override {
    if (r == kWorkloads) {
      std::lock_guard<std::mutex> lock(mu_);
      single_workload_updates_++;
    }
    return inner_.Update(r, std::move(o), u);
  }
  Result<Json> Delete(const std::string& r, const std::string& ns, const std::string& n,
                      const store::DeleteOptions& o) override {
    return inner_.Delete(r, ns, n, o);
  }
  std::vector<Result<Json>> WriteBatch(std::vector<store::BatchWrite> writes) override {
    int workloads = 0, events = 0, queues = 0;
    for (const auto& w : writes) {
      workloads += w.resource == kWorkloads;
      events += w.resource == "events";
      queues += w.resource == "clusterqueues.kueue.x-k8s.io" ||
                w.resource == "localqueues.kueue.x-k8s.io";
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (workloads > 0) workload_batches_.push_back(workloads);
      if (queues > 0) queue_batches_.push_back({std::chrono::steady_clock::now(), queues});
      event_writes_ += events;
    }
    return inner_.WriteBatch(std::move(writes));
  }
  Result<std::unique_ptr<store::Watcher>> Watch(const std::string& r, const std::string& ns,
                                                int64_t from) override {
    return inner_.Watch(r, ns, from);
  }
  int64_t CurrentResourceVersion() override { return inner_.CurrentResourceVersion(); }

  std::vector<int> workload_batches() {
    std::lock_guard<std::mutex> lock(mu_);
    return workload_batches_;
  }
  int single_workload_updates() {
    std::lock_guard<std::mutex> lock(mu_);
    return single_workload_updates_;
  }
  int event_writes() {
    std::lock_guard<std::mutex> lock(mu_);
    return event_writes_;
  }
  // When each batch of ClusterQueue/LocalQueue status writes began, and its size.
  std::vector<std::pair<std::chrono::steady_clock::time_point, int>> queue_batches() {
    std::lock_guard<std::mutex> lock(mu_);
    return queue_batches_;
  }

 private:
  store::ObjectStore& inner_;
  std::mutex mu_;
  std::vector<int> workload_batches_;
  std::vector<std::pair<std::chrono::steady_clock::time_point, int>> queue_batches_;
  int single_workload_updates_ = 0;
  int event_writes_ = 0;
};

Json Workload(const std::string& name, int priority) {
  Json container = {
      {"name", "c"}, {"image", "busybox"}, {"resources", {{"requests", {{"cpu", "1"}}}}}};
  return {
      {"apiVersion", "kueue.x-k8s.io/v1beta1"},
      {"kind", "Workload"},
      {"metadata", {{"name", name}, {"namespace", "ns"}}},
      {"spec",
       {{"queueName", "lq"},
        {"priority", priority},
        {"podSets",
         Json::array({{{"name", "main"},
                       {"count", 1},
                       {"template", {{"spec", {{"containers", Json::array({container})}}}}}}})}}}};
}

class ControllerBatchTest : public testing::SqliteStoreTest {
 protected:
  void SetUp() override {
    SqliteStoreTest::SetUp();
    if (HasFatalFailure()) return;
    counting_ = std::make_unique<CountingStore>(*store_);
    auto must = [&](const std::string& resource, Json obj) {
      auto r = store_->Create(resource, std::move(obj));
      ASSERT_TRUE(r.ok()) << resource << ": " << r.status().ToString();
    };
    must("namespaces",
         {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ns"}}}});
    must("resourceflavors.kueue.x-k8s.io", {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
                                            {"kind", "ResourceFlavor"},
                                            {"metadata", {{"name", "rf"}}}});
    Json cpu = {{"name", "cpu"}, {"nominalQuota", "10"}};
    must("clusterqueues.kueue.x-k8s.io",
         {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
          {"kind", "ClusterQueue"},
          {"metadata", {{"name", "cq"}}},
          {"spec",
           {{"namespaceSelector", Json::object()},
            {"preemption", {{"withinClusterQueue", "LowerPriority"}}},
            {"resourceGroups",
             Json::array({{{"coveredResources", Json::array({"cpu"})},
                           {"flavors", Json::array({{{"name", "rf"},
                                                     {"resources", Json::array({cpu})}}})}}})}}}});
    must("localqueues.kueue.x-k8s.io", {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
                                        {"kind", "LocalQueue"},
                                        {"metadata", {{"name", "lq"}, {"namespace", "ns"}}},
                                        {"spec", {{"clusterQueue", "cq"}}}});
    for (int i = 0; i < 20; ++i) must(kWorkloads, Workload("low-" + std::to_string(i), 10));
  }
  void TearDown() override {
    controller_.reset();
    counting_.reset();
    store_.reset();
  }

  // Workload name -> whether its QuotaReserved condition is true.
  std::map<std::string, bool> Reserved() {
    std::map<std::string, bool> out;
    auto list = store_->List(kWorkloads, {});
    EXPECT_TRUE(list.ok());
    for (const Json& wl : list->items) {
      bool reserved = false;
      for (const Json& c : wl.value("status", Json::object()).value("conditions", Json::array())) {
        if (c.value("type", "") == "QuotaReserved") reserved = c.value("status", "") == "True";
      }
      out[wl["metadata"]["name"]] = reserved;
    }
    return out;
  }

  // LocalQueues lq-0 .. lq-<n-1> of "cq" in namespace "ns".
  void AddLocalQueues(int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(
          store_
              ->Create("localqueues.kueue.x-k8s.io",
                       {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
                        {"kind", "LocalQueue"},
                        {"metadata", {{"name", "lq-" + std::to_string(i)}, {"namespace", "ns"}}},
                        {"spec", {{"clusterQueue", "cq"}}}})
              .ok());
    }
  }

  // Polls (up to 20 s) until `want` workloads hold quota; how many do.
  int WaitForReserved(int want) {
    int n = 0;
    for (int attempt = 0; attempt < 400 && n < want; ++attempt) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      n = 0;
      for (const auto& [name, reserved] : Reserved()) n += reserved;
    }
    return n;
  }

  RealClock clock_;
  std::unique_ptr<CountingStore> counting_;
  std::unique_ptr<Controller> controller_;
};

TEST_F(ControllerBatchTest, ABurstsStatusesAreOneBatchAndPreemptionsFollowAdmissions) {
  // A round long enough for the ten cycles however loaded the machine is
  // (with the default 100 ms, a slow sanitized run split them in two
  // rounds; ARoundStopsWhenItsTimeIsUp covers the limit).
  ControllerOptions options;
  options.schedule_round = std::chrono::milliseconds(10'000);
  controller_ = std::make_unique<Controller>(*counting_, clock_, options);
  ASSERT_TRUE(controller_->Start().ok());
  EXPECT_EQ(WaitForReserved(10), 10);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // Events written
  // The ten admissions, decided one per cycle (one head per ClusterQueue),
  // are written as one batch at the end of the burst, not one write each.
  std::vector<int> batches = counting_->workload_batches();
  ASSERT_FALSE(batches.empty());
  EXPECT_GE(batches.front(), 10);
  EXPECT_EQ(counting_->single_workload_updates(), 0);
  EXPECT_GE(counting_->event_writes(),
            10);  // QuotaReserved and Admitted, written in batches

  // Higher-priority work preempts: each victim's eviction is written after
  // the admission it ends, and the preemptors are admitted.
  std::map<std::string, bool> held = Reserved();  // as a watcher sees it from here
  auto watch = store_->Watch(kWorkloads, "", store_->CurrentResourceVersion());
  ASSERT_TRUE(watch.ok());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store_->Create(kWorkloads, Workload("high-" + std::to_string(i), 100)).ok());
  }
  bool all_in = false;
  for (int attempt = 0; attempt < 400 && !all_in; ++attempt) {
    std::map<std::string, bool> reserved = Reserved();
    all_in = true;
    for (int i = 0; i < 5; ++i) all_in = all_in && reserved["high-" + std::to_string(i)];
    if (!all_in) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(all_in);
  int evicted_seen = 0;
  for (int i = 0; i < 10000; ++i) {
    store::WatchEvent ev;
    if (!(*watch)->Next(&ev, std::chrono::milliseconds(200))) break;
    const std::string name = ev.object["metadata"]["name"];
    bool reserved = false, evicted = false;
    for (const Json& c :
         ev.object.value("status", Json::object()).value("conditions", Json::array())) {
      if (c.value("type", "") == "QuotaReserved") reserved = c.value("status", "") == "True";
      if (c.value("type", "") == "Evicted") evicted = c.value("status", "") == "True";
    }
    if (evicted && !reserved && held[name]) ++evicted_seen;
    held[name] = reserved;
  }
  EXPECT_EQ(evicted_seen,
            5);  // five lows made room, each seen admitted before its eviction
  int admitted_after = 0;
  for (const auto& [name, reserved] : Reserved()) admitted_after += reserved;
  EXPECT_EQ(admitted_after, 10);
}

// A scheduling round ends when its time is up, and the loop reads events
// before the next: with no time per round each round runs one cycle, so the
// ten admissions (one head per cycle) are written in rounds of their own,
// and the rounds go on until all ten are in.
TEST_F(ControllerBatchTest, ARoundStopsWhenItsTimeIsUp) {
  ControllerOptions options;
  options.schedule_round = std::chrono::milliseconds(0);
  controller_ = std::make_unique<Controller>(*counting_, clock_, options);
  ASSERT_TRUE(controller_->Start().ok());
  EXPECT_EQ(WaitForReserved(10), 10);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the pending heads' statuses
  std::vector<int> batches = counting_->workload_batches();
  ASSERT_GE(batches.size(), 10u);
  for (int n : batches) EXPECT_EQ(n, 1);  // one admission per round
}

// The loop's time per step is exported: rounds, the steps of each, and the
// time spent waiting for status batches to commit.
TEST_F(ControllerBatchTest, TheLoopsTimeIsInItsMetrics) {
  metrics::Registry registry;
  ControllerOptions options;
  options.metrics = &registry;
  controller_ = std::make_unique<Controller>(*counting_, clock_, options);
  ASSERT_TRUE(controller_->Start().ok());
  EXPECT_EQ(WaitForReserved(10), 10);
  // One more round after the admissions' echoes: the loop waits idle_tick.
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  controller_->Stop();
  EXPECT_GE(registry.CounterValue("kuota_controller_rounds_total", {}), 2);
  EXPECT_GT(registry.CounterValue("kuota_controller_loop_seconds_total", {"wait"}), 0.1);
  EXPECT_GT(registry.CounterValue("kuota_controller_loop_seconds_total", {"events"}), 0);
  EXPECT_GT(registry.CounterValue("kuota_controller_loop_seconds_total", {"schedule"}), 0);
  EXPECT_GT(registry.CounterValue("kuota_controller_status_flush_seconds_total", {}), 0);
  // A status flush happens inside a step: never more than the steps' total.
  double steps = 0;
  for (const char* s : {"wait", "events", "schedule", "queue_status", "queries"}) {
    steps += registry.CounterValue("kuota_controller_loop_seconds_total", {s});
  }
  EXPECT_LE(registry.CounterValue("kuota_controller_status_flush_seconds_total", {}), steps);
}

// Queue statuses are paced: after a pass that wrote K of them the next waits
// K / queue_status_writes_per_second (when longer than status_interval).
TEST_F(ControllerBatchTest, QueueStatusWritesArePaced) {
  ASSERT_NO_FATAL_FAILURE(AddLocalQueues(40));
  ControllerOptions options;
  options.queue_status_writes_per_second = 40;  // 42 queues: a full pass, then ~1 s of quiet
  controller_ = std::make_unique<Controller>(*counting_, clock_, options);
  ASSERT_TRUE(controller_->Start().ok());
  // Keep the queues changing: workloads arrive in lq-0..lq-9 for 3 s.
  for (int i = 0; i < 30; ++i) {
    Json wl = Workload("w-" + std::to_string(i), 10);
    wl["spec"]["queueName"] = "lq-" + std::to_string(i % 10);
    ASSERT_TRUE(store_->Create(kWorkloads, wl).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto batches = counting_->queue_batches();
  ASSERT_GE(batches.size(), 2u);
  EXPECT_GE(batches.front().second, 42);  // the first pass writes every queue
  for (size_t i = 1; i < batches.size(); ++i) {
    const auto gap = batches[i].first - batches[i - 1].first;
    const auto want = std::chrono::milliseconds(
        std::max<int64_t>(300, int64_t{batches[i - 1].second} * 1000 / 40));
    // The pause counts from the start of a pass, these times from its write:
    // a pass's build time (slow under the sanitizers) may come off the gap.
    EXPECT_GE(gap, want - std::chrono::milliseconds(150))
        << "batch " << i << " of " << batches[i].second << " came "
        << std::chrono::duration_cast<std::chrono::milliseconds>(gap).count() << " ms after one of "
        << batches[i - 1].second;
  }
}

// The sum of a gauge family's series for ClusterQueue "cq", as a scrape
// shows it.
double CqGauge(const metrics::Registry& registry, const std::string& family) {
  const std::string prefix = family + "{cluster_queue=\"cq\"";
  std::istringstream lines(registry.Render(metrics::Format::kPrometheusText));
  double sum = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) == 0) sum += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

// Queue statuses wait out their pacing; the Prometheus gauges do not: they
// are published at least once a second whatever the statuses' pause.
TEST_F(ControllerBatchTest, GaugesDoNotWaitForPacedQueueStatuses) {
  ASSERT_NO_FATAL_FAILURE(AddLocalQueues(40));
  metrics::Registry registry;
  // The controller writes into `registry`: it stops before `registry` goes,
  // a failed assertion's early return included.
  struct StopController {
    std::unique_ptr<Controller>& controller;
    ~StopController() { controller.reset(); }
  } stop{controller_};
  ControllerOptions options;
  options.metrics = &registry;
  options.queue_status_writes_per_second = 1;  // 42 queues: the next pass waits ~42 s
  controller_ = std::make_unique<Controller>(*counting_, clock_, options);
  ASSERT_TRUE(controller_->Start().ok());
  ASSERT_EQ(WaitForReserved(10), 10);
  // The gauges agree with the first pass: 10 reserving, 10 pending.
  for (int i = 0; i < 60 && CqGauge(registry, "kueue_reserving_active_workloads") != 10; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(CqGauge(registry, "kueue_reserving_active_workloads"), 10);
  ASSERT_FALSE(counting_->queue_batches().empty());
  // Five more arrive while the queue statuses wait.
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store_->Create(kWorkloads, Workload("more-" + std::to_string(i), 10)).ok());
  }
  const auto start = std::chrono::steady_clock::now();
  while (CqGauge(registry, "kueue_pending_workloads") != 15 &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(6)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(CqGauge(registry, "kueue_pending_workloads"), 15);
  EXPECT_EQ(counting_->queue_batches().size(), 1u);  // the statuses did wait
}

}  // namespace
}  // namespace kuota::control
