// LeaderElector over a KubeObjectStore and KubeClient talking HTTP to a
// loopback kube-apiserver stand-in: recorded exchanges where the wire format
// is the point (404, 201, 409 AlreadyExists / Conflict), and a small stateful
// Lease endpoint (FakeLeaseApi) where another holder renews over time.
#include "kube/leader_elector.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <thread>

#include "kube/kube_object_store.h"
#include "kube/replay_server_test_util.h"

namespace kuota::kube {
namespace {

using std::chrono::steady_clock;

constexpr const char* kLeases = "/apis/coordination.k8s.io/v1/namespaces/kuota-system/leases";
constexpr const char* kLease =
    "/apis/coordination.k8s.io/v1/namespaces/kuota-system/leases/kuota-controller-leader";

LeaderElectionOptions Options(const std::string& identity) {
  LeaderElectionOptions o;
  o.ns = "kuota-system";
  o.name = "kuota-controller-leader";
  o.identity = identity;
  o.lease_duration = std::chrono::seconds(1);
  o.renew_deadline = milliseconds(300);
  o.retry_period = milliseconds(100);
  return o;
}

// The store and client a candidate uses; the server must outlive them.
struct Candidate {
  explicit Candidate(const ReplayServer& server)
      : client(testing::TargetOf(server), ClientOptions{}),
        store(client, {"leases.coordination.k8s.io"}) {}
  KubeClient client;
  KubeObjectStore store;
};

// Acquire() on a thread of its own.
class Campaign {
 public:
  explicit Campaign(LeaderElector& elector)
      : thread_([this, &elector] {
          result_ = elector.Acquire(stop_);
          done_at_ = steady_clock::now();
          done_ = true;
        }) {}
  ~Campaign() { Finish(); }
  bool WaitDone(milliseconds timeout) {
    const auto deadline = steady_clock::now() + timeout;
    while (!done_ && steady_clock::now() < deadline) std::this_thread::sleep_for(milliseconds(5));
    return done_;
  }
  // Stops campaigning; Acquire's result.
  bool Finish() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return result_;
  }
  bool done() const { return done_; }
  steady_clock::time_point done_at() const { return done_at_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  bool result_ = false;
  steady_clock::time_point done_at_;
  std::thread thread_;
};

// The Lease endpoints of a kube-apiserver, with state: create (409
// AlreadyExists when present), get (404 when absent), update (409 Conflict
// at another resourceVersion), each write a new resourceVersion. Error
// bodies are the recorded ones.
class FakeLeaseApi {
 public:
  explicit FakeLeaseApi(ReplayServer& server) {
    server.Handle("GET", kLease, [this](const RecordedRequest&) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!lease_) return LoadExchange("lease_get_not_found").reply;
      return Reply::Json(200, *lease_);
    });
    server.Handle("POST", kLeases, [this](const RecordedRequest& req) {
      std::lock_guard<std::mutex> lock(mu_);
      if (lease_) return LoadExchange("lease_create_already_exists").reply;
      lease_ = req.Json();
      (*lease_)["metadata"]["uid"] = "0e1f2a3b-4c5d-4e6f-9a7b-9c0d1e2f3a4b";
      Bump();
      return Reply::Json(201, *lease_);
    });
    server.Handle("PUT", kLease, [this](const RecordedRequest& req) {
      std::lock_guard<std::mutex> lock(mu_);
      Json sent = req.Json();
      if (!lease_) return LoadExchange("lease_get_not_found").reply;
      if (sent["metadata"].value("resourceVersion", "") !=
          (*lease_)["metadata"].value("resourceVersion", "")) {
        return LoadExchange("lease_update_conflict").reply;
      }
      lease_ = sent;
      Bump();
      return Reply::Json(200, *lease_);
    });
  }

  void Seed(Json lease) {
    std::lock_guard<std::mutex> lock(mu_);
    lease_ = std::move(lease);
    rv_ = std::stoll((*lease_)["metadata"]["resourceVersion"].get<std::string>());
  }
  // Another replica writes the Lease (renews, or takes it as `holder`).
  void OtherWrites(const std::string& holder) {
    std::lock_guard<std::mutex> lock(mu_);
    (*lease_)["spec"]["holderIdentity"] = holder;
    (*lease_)["spec"]["renewTime"] = "2024-05-02T11:05:01.000000Z";
    Bump();
    last_other_write_ = steady_clock::now();
  }
  steady_clock::time_point last_other_write() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_other_write_;
  }
  std::optional<Json> lease() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lease_;
  }

 private:
  void Bump() { (*lease_)["metadata"]["resourceVersion"] = std::to_string(++rv_); }

  mutable std::mutex mu_;
  std::optional<Json> lease_;
  int64_t rv_ = 7000;
  steady_clock::time_point last_other_write_{};
};

bool IsMicroTime(const Json& v) {
  static const std::regex re(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)");
  return v.is_string() && std::regex_match(v.get<std::string>(), re);
}

TEST(LeaderElectorTest, CreatesTheLeaseWhenThereIsNone) {
  ReplayServer server;
  server.Add("lease_get_not_found");
  server.Add("lease_create");
  Candidate c(server);
  LeaderElectionOptions o = Options("kuotad-test_candidate");
  o.lease_duration = std::chrono::seconds(15);
  LeaderElector elector(c.store, o);
  std::atomic<bool> stop{false};
  ASSERT_TRUE(elector.Acquire(stop));
  EXPECT_TRUE(elector.leading());

  std::vector<RecordedRequest> reqs = server.Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].method, "GET");
  EXPECT_EQ(reqs[0].path, kLease);
  EXPECT_EQ(reqs[1].method, "POST");
  EXPECT_EQ(reqs[1].path, kLeases);
  Json sent = reqs[1].Json();
  EXPECT_EQ(sent["apiVersion"], "coordination.k8s.io/v1");
  EXPECT_EQ(sent["kind"], "Lease");
  EXPECT_EQ(sent["metadata"]["name"], "kuota-controller-leader");
  EXPECT_EQ(sent["metadata"]["namespace"], "kuota-system");
  EXPECT_EQ(sent["spec"]["holderIdentity"], "kuotad-test_candidate");
  EXPECT_EQ(sent["spec"]["leaseDurationSeconds"], 15);
  EXPECT_EQ(sent["spec"]["leaseTransitions"], 0);
  EXPECT_TRUE(IsMicroTime(sent["spec"]["acquireTime"])) << sent["spec"]["acquireTime"];
  EXPECT_TRUE(IsMicroTime(sent["spec"]["renewTime"])) << sent["spec"]["renewTime"];
}

TEST(LeaderElectorTest, LosesTheCreateRaceOnAlreadyExists) {
  ReplayServer server;
  server.Add("lease_get_not_found", -1);
  server.Add("lease_create_already_exists", -1);
  Candidate c(server);
  LeaderElector elector(c.store, Options("late"));
  Campaign campaign(elector);
  ASSERT_TRUE(server.WaitForRequests("POST", kLeases, 1, milliseconds(5000)));
  EXPECT_FALSE(campaign.done());
  EXPECT_FALSE(campaign.Finish());
  EXPECT_FALSE(elector.leading());
}

TEST(LeaderElectorTest, LosesTheUpdateRaceOnConflict) {
  ReplayServer server;
  server.Add("lease_get_released", -1);     // free to take...
  server.Add("lease_update_conflict", -1);  // ...but another candidate wrote first
  Candidate c(server);
  LeaderElector elector(c.store, Options("slow"));
  Campaign campaign(elector);
  ASSERT_TRUE(server.WaitForRequests("PUT", kLease, 2, milliseconds(5000)));
  EXPECT_FALSE(campaign.done());  // still waiting, not leading
  EXPECT_FALSE(elector.leading());
  EXPECT_FALSE(campaign.Finish());
  EXPECT_FALSE(elector.leading());

  const Json sent = server.Requests("PUT", kLease)[0].Json();
  // An update at the version read, so that only one writer can win.
  EXPECT_EQ(sent["metadata"]["resourceVersion"], "7100");
  EXPECT_EQ(sent["metadata"]["uid"], "0e1f2a3b-4c5d-4e6f-9a7b-9c0d1e2f3a4b");
  EXPECT_EQ(sent["spec"]["holderIdentity"], "slow");
  EXPECT_EQ(sent["spec"]["leaseTransitions"], 4);
  EXPECT_TRUE(server.Requests("POST", "").empty());
}

TEST(LeaderElectorTest, WaitsWhileTheHolderRenewsAndTakesTheLeaseOnceItStops) {
  ReplayServer server;
  FakeLeaseApi api(server);
  Json held = RecordedBody("lease_get_held");
  held["spec"]["leaseDurationSeconds"] = 1;
  api.Seed(held);
  Candidate c(server);
  LeaderElector elector(c.store, Options("standby"));

  std::atomic<bool> renewing{true};
  std::thread holder([&] {
    while (renewing) {
      api.OtherWrites("kuotad-0_x7k2m9qa");
      std::this_thread::sleep_for(milliseconds(150));
    }
  });
  Campaign campaign(elector);
  // Longer than the lease duration: a renewed lease is not taken.
  std::this_thread::sleep_for(milliseconds(1500));
  renewing = false;
  holder.join();
  EXPECT_FALSE(campaign.done());
  EXPECT_FALSE(elector.leading());
  EXPECT_TRUE(server.Requests("PUT", kLease).empty());
  EXPECT_TRUE(server.Requests("POST", "").empty());
  EXPECT_GE(server.Requests("GET", kLease).size(), 5u);  // it kept looking

  // Unchanged for the lease duration: taken.
  ASSERT_TRUE(campaign.WaitDone(milliseconds(5000)));
  EXPECT_TRUE(campaign.Finish());
  EXPECT_TRUE(elector.leading());
  EXPECT_GE(campaign.done_at() - api.last_other_write(), milliseconds(900));
  std::vector<RecordedRequest> puts = server.Requests("PUT", kLease);
  ASSERT_EQ(puts.size(), 1u);
  const Json sent = puts[0].Json();
  EXPECT_EQ(sent["spec"]["holderIdentity"], "standby");
  EXPECT_EQ(sent["spec"]["leaseTransitions"], 4);
  EXPECT_EQ(api.lease()->at("spec").at("holderIdentity"), "standby");
}

// A candidate with the stateful Lease endpoint to itself, about to
// campaign as `identity`; the server outlives the rest.
struct Elected {
  explicit Elected(const std::string& identity) : elector(c.store, Options(identity)) {}
  ReplayServer server;
  FakeLeaseApi api{server};
  Candidate c{server};
  LeaderElector elector;
  std::atomic<bool> stop{false};
};

TEST(LeaderElectorTest, RenewsAndStepsDownWhenAnotherHolderTakesOver) {
  Elected e("leader");
  ASSERT_TRUE(e.elector.Acquire(e.stop));
  std::atomic<bool> lost{false};
  e.elector.KeepRenewing([&] { lost = true; });
  // Renewals are updates of its own Lease.
  ASSERT_TRUE(e.server.WaitForRequests("PUT", kLease, 2, milliseconds(3000)));
  EXPECT_EQ(e.server.Requests("PUT", kLease)[0].Json()["spec"]["holderIdentity"], "leader");
  EXPECT_FALSE(lost);

  std::atomic<bool> other{true};
  std::thread usurper([&] {
    while (other) {
      e.api.OtherWrites("usurper");
      std::this_thread::sleep_for(milliseconds(100));
    }
  });
  const auto taken = steady_clock::now();
  bool stepped_down = false;
  while (steady_clock::now() - taken < milliseconds(3000)) {
    if (lost) {
      stepped_down = true;
      break;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  other = false;
  usurper.join();
  EXPECT_TRUE(stepped_down);
  EXPECT_FALSE(e.elector.leading());
  EXPECT_EQ(e.api.lease()->at("spec").at("holderIdentity"), "usurper");
}

TEST(LeaderElectorTest, ReleaseClearsTheHolder) {
  Elected e("leaving");
  ASSERT_TRUE(e.elector.Acquire(e.stop));
  ASSERT_EQ(e.api.lease()->at("spec").at("holderIdentity"), "leaving");
  e.elector.Release();
  EXPECT_FALSE(e.elector.leading());
  EXPECT_EQ(e.api.lease()->at("spec").at("holderIdentity"), "");
  EXPECT_EQ(e.api.lease()->at("spec").at("leaseDurationSeconds"), 1);

  // A standby takes a released Lease at once.
  LeaderElector standby(e.c.store, Options("standby"));
  const auto start = steady_clock::now();
  ASSERT_TRUE(standby.Acquire(e.stop));
  EXPECT_LT(steady_clock::now() - start, milliseconds(900));
  EXPECT_EQ(e.api.lease()->at("spec").at("holderIdentity"), "standby");
}

}  // namespace
}  // namespace kuota::kube
