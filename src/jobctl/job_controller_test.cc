// Job controller: sequences of reconciles as kuotad would drive them (create
// the pods asked for, let them run, succeed, fail or restart, delete the ones
// asked for, write the status back) against Kubernetes' Job semantics.
#include "jobctl/job_controller.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "jobctl/job_labels.h"
#include "jobctl/job_spec.h"
#include "jobctl/pod_template.h"

namespace kuota::jobctl {
namespace {

// 2026-01-01T00:00:00Z plus `s` seconds: the time base of every test.
Time At(int64_t s) { return Time::FromSeconds(1767225600 + s); }
std::string Ts(int64_t s) { return FormatRfc3339(At(s)); }

Json MakeJob(const Json& spec_fields, const std::string& restart_policy = "Never") {
  Json job = Json::parse(R"({
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "pi", "namespace": "ns", "uid": "job-uid"},
    "spec": {"template": {"metadata": {"labels": {"app": "pi"}},
                          "spec": {"containers": [{"name": "main", "image": "busybox",
                                                   "command": ["sleep", "5"]}]}}}
  })");
  job["spec"].update(spec_fields);
  job["spec"]["template"]["spec"]["restartPolicy"] = restart_policy;
  return job;
}

const Json* Cond(const Json& status, const std::string& type) {
  if (!status.contains("conditions")) return nullptr;
  for (const Json& c : status["conditions"]) {
    if (c["type"] == type) return &c;
  }
  return nullptr;
}

std::vector<std::string> Types(const Json& status) {
  std::vector<std::string> out;
  for (const Json& c : status.value("conditions", Json::array())) out.push_back(c["type"]);
  return out;
}

bool HasEvent(const std::vector<EventNote>& events, const std::string& reason) {
  return std::any_of(events.begin(), events.end(),
                     [&](const EventNote& e) { return e.reason == reason; });
}

// Plays the store and the pod runner around the pure controller: applies the
// actions as kuotad does (creates pods under generated names, marks deleted
// pods, writes the status) and lets a test move pods through their phases.
class JobWorld {
 public:
  explicit JobWorld(Json job) : job_(std::move(job)) {}

  JobActions Sync(int64_t t, const JobControllerOptions& options = {}) {
    Result<JobActions> r = ReconcileJob(job_, Pods(), At(t), options);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {};
    JobActions a = *r;
    for (const Json& p : a.create_pods) {
      Json pod = p;
      std::string name = pod["metadata"]["generateName"].get<std::string>() + Suffix(next_++);
      pod["metadata"]["name"] = name;
      pod["metadata"]["uid"] = "uid-" + name;
      pod["metadata"]["creationTimestamp"] = Ts(t);
      pod["status"] = {{"phase", "Pending"}};
      pods_[name] = pod;
      created_.push_back(name);
      events_.push_back(PodCreatedEvent(name));
    }
    for (const std::string& name : a.delete_pods) {
      EXPECT_TRUE(pods_.count(name)) << name;
      EXPECT_FALSE(pods_[name]["metadata"].contains("deletionTimestamp")) << name;
      pods_[name]["metadata"]["deletionTimestamp"] = Ts(t);
    }
    if (a.status) job_["status"] = *a.status;
    events_.insert(events_.end(), a.events.begin(), a.events.end());
    return a;
  }

  // Adds a pod the controller did not ask for (e.g. left over or duplicated).
  std::string AddPod(const std::string& name, int64_t t, std::optional<int32_t> index) {
    Json pod = BuildPod(*ParseJobSpec(job_), index);
    pod["metadata"]["name"] = name;
    pod["metadata"]["creationTimestamp"] = Ts(t);
    pod["status"] = {{"phase", "Pending"}};
    pods_[name] = pod;
    return name;
  }

  void Run(const std::string& name, int64_t t, bool ready = true) {
    Json& st = Pod(name)["status"];
    st["phase"] = "Running";
    st["startTime"] = Ts(t);
    st["containerStatuses"] = {{{"name", "main"},
                                {"ready", ready},
                                {"restartCount", 0},
                                {"state", {{"running", {{"startedAt", Ts(t)}}}}}}};
    st["conditions"] = {
        {{"type", "Ready"}, {"status", ready ? "True" : "False"}, {"lastTransitionTime", Ts(t)}}};
  }
  void Restart(const std::string& name, int count) {
    Pod(name)["status"]["containerStatuses"][0]["restartCount"] = count;
  }
  void Finish(const std::string& name, int64_t t, int exit_code) {
    Json& st = Pod(name)["status"];
    st["phase"] = exit_code == 0 ? "Succeeded" : "Failed";
    st["containerStatuses"] = {{{"name", "main"},
                                {"ready", false},
                                {"restartCount", 0},
                                {"state",
                                 {{"terminated",
                                   {{"exitCode", exit_code},
                                    {"reason", exit_code == 0 ? "Completed" : "Error"},
                                    {"startedAt", Ts(t - 1)},
                                    {"finishedAt", Ts(t)}}}}}}};
    st["conditions"] = {{{"type", "Ready"}, {"status", "False"}, {"lastTransitionTime", Ts(t)}}};
  }
  void Succeed(const std::string& name, int64_t t) { Finish(name, t, 0); }
  void Fail(const std::string& name, int64_t t) { Finish(name, t, 1); }
  // The runner's SIGTERM ended a deleted pod; it stays until removed.
  void Killed(const std::string& name, int64_t t) { Finish(name, t, 143); }
  // The runner removed a deleted pod once it stopped.
  void Gone(const std::string& name) {
    EXPECT_TRUE(Pod(name)["metadata"].contains("deletionTimestamp")) << name;
    pods_.erase(name);
  }

  Json& Pod(const std::string& name) {
    EXPECT_TRUE(pods_.count(name)) << name;
    return pods_[name];
  }
  std::vector<Json> Pods() const {
    std::vector<Json> out;
    for (const auto& [name, pod] : pods_) out.push_back(pod);
    return out;
  }
  // Pods neither finished nor being deleted, by name.
  std::vector<std::string> ActiveNames() const {
    std::vector<std::string> out;
    for (const auto& [name, pod] : pods_) {
      const std::string phase = pod["status"].value("phase", "");
      if (phase != "Succeeded" && phase != "Failed" &&
          !pod["metadata"].contains("deletionTimestamp")) {
        out.push_back(name);
      }
    }
    return out;
  }

  Json& job() { return job_; }
  const Json& status() const { return job_["status"]; }
  const std::vector<std::string>& created() const { return created_; }
  const std::vector<EventNote>& events() const { return events_; }

 private:
  // Five letters counting up, so names sort in creation order.
  static std::string Suffix(int n) {
    std::string s(5, 'a');
    for (int i = 4; i >= 0; --i, n /= 26)
      s[static_cast<size_t>(i)] = static_cast<char>('a' + n % 26);
    return s;
  }

  Json job_;
  std::map<std::string, Json> pods_;
  std::vector<std::string> created_;
  std::vector<EventNote> events_;
  int next_ = 0;
};

// ---------------------------------------------------------------------------
// Creating pods, counting them, completing.

TEST(JobControllerTest, CreatesPodsUpToParallelismWithKubernetesStatusShape) {
  JobWorld w(MakeJob({{"parallelism", 2}, {"completions", 4}}));
  JobActions a = w.Sync(0);
  ASSERT_EQ(a.create_pods.size(), 2u);
  EXPECT_TRUE(a.delete_pods.empty());
  EXPECT_FALSE(a.requeue_at.has_value());
  EXPECT_FALSE(a.delete_job);
  EXPECT_EQ(w.status(), Json::parse(R"({"active": 2, "ready": 0, "terminating": 0,
      "startTime": ")" + Ts(0) + R"(", "uncountedTerminatedPods": {}})"));
  const Json& pod = a.create_pods[0];
  EXPECT_EQ(pod["metadata"]["generateName"], "pi-");
  EXPECT_EQ(pod["metadata"]["namespace"], "ns");
  EXPECT_EQ(pod["metadata"]["labels"]["app"], "pi");
  EXPECT_EQ(pod["metadata"]["labels"][kControllerUidLabel], "job-uid");
  EXPECT_EQ(pod["metadata"]["labels"][kJobNameLabel], "pi");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["uid"], "job-uid");
  EXPECT_EQ(pod["spec"]["restartPolicy"], "Never");
  EXPECT_EQ(w.events()[0], (EventNote{"Normal", "SuccessfulCreate", "Created pod: pi-aaaaa"}));

  // Nothing new: the same input asks for nothing.
  EXPECT_TRUE(w.Sync(1).empty());

  w.Run("pi-aaaaa", 2);
  w.Run("pi-aaaab", 2, /*ready=*/false);
  a = w.Sync(2);
  EXPECT_TRUE(a.create_pods.empty());
  ASSERT_TRUE(a.status.has_value());
  EXPECT_EQ(w.status()["ready"], 1);
  EXPECT_EQ(w.status()["active"], 2);
  EXPECT_EQ(w.status()["startTime"], Ts(0));  // set once
}

TEST(JobControllerTest, CompletesWhenCompletionsSucceeded) {
  JobWorld w(MakeJob({{"parallelism", 2}, {"completions", 3}}));
  w.Sync(0);
  w.Run("pi-aaaaa", 1);
  w.Run("pi-aaaab", 1);
  w.Sync(1);
  w.Succeed("pi-aaaaa", 10);
  JobActions a = w.Sync(10);
  EXPECT_EQ(a.create_pods.size(), 1u);  // 2 still to go, 1 running
  EXPECT_EQ(w.status()["succeeded"], 1);
  EXPECT_EQ(w.status()["active"], 2);
  w.Run("pi-aaaac", 11);
  w.Succeed("pi-aaaab", 12);
  a = w.Sync(12);
  EXPECT_TRUE(a.create_pods.empty()) << "only one completion left and one pod running";
  EXPECT_EQ(w.status()["succeeded"], 2);
  EXPECT_FALSE(Cond(w.status(), "Complete"));

  w.Succeed("pi-aaaac", 20);
  a = w.Sync(20);
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_EQ(Types(w.status()), (std::vector<std::string>{"SuccessCriteriaMet", "Complete"}));
  for (const char* type : {"SuccessCriteriaMet", "Complete"}) {
    const Json* c = Cond(w.status(), type);
    EXPECT_EQ((*c)["status"], "True");
    EXPECT_EQ((*c)["reason"], "CompletionsReached");
    EXPECT_EQ((*c)["message"], "Reached expected number of succeeded pods");
    EXPECT_EQ((*c)["lastTransitionTime"], Ts(20));
    EXPECT_EQ((*c)["lastProbeTime"], Ts(20));
  }
  EXPECT_EQ(w.status()["completionTime"], Ts(20));
  EXPECT_EQ(w.status()["succeeded"], 3);
  EXPECT_FALSE(w.status().contains("active"));
  EXPECT_EQ(a.events, (std::vector<EventNote>{{"Normal", "Completed", "Job completed"}}));
  EXPECT_EQ(w.created().size(), 3u);
  EXPECT_TRUE(w.Sync(30).empty());
}

TEST(JobControllerTest, WorkQueueCompletesWhenOneSucceededAndNoneIsActive) {
  JobWorld w(MakeJob({{"parallelism", 3}}));  // completions nil
  EXPECT_EQ(w.Sync(0).create_pods.size(), 3u);
  for (const auto& n : w.created()) w.Run(n, 1);
  w.Succeed("pi-aaaaa", 5);
  JobActions a = w.Sync(5);
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_FALSE(Cond(w.status(), "Complete"));
  EXPECT_EQ(w.status()["succeeded"], 1);
  EXPECT_EQ(w.status()["active"], 2);
  // After a success, a failure is not replaced and the rest run to their end.
  w.Fail("pi-aaaab", 6);
  a = w.Sync(6);
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_FALSE(a.requeue_at.has_value());
  EXPECT_EQ(w.status()["failed"], 1);
  w.Succeed("pi-aaaac", 7);
  a = w.Sync(7);
  EXPECT_TRUE(Cond(w.status(), "Complete"));
  EXPECT_EQ(w.status()["completionTime"], Ts(7));
  EXPECT_EQ(w.status()["succeeded"], 2);
  EXPECT_EQ(w.created().size(), 3u);
}

TEST(JobControllerTest, ZeroCompletionsCompletesAtOnce) {
  JobWorld w(MakeJob({{"parallelism", 2}, {"completions", 0}}));
  JobActions a = w.Sync(0);
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_TRUE(Cond(w.status(), "Complete"));
}

// ---------------------------------------------------------------------------
// Indexed completion mode.

TEST(JobControllerTest, IndexedRunsEachIndexOnceWithItsEnv) {
  JobWorld w(MakeJob({{"parallelism", 2}, {"completions", 3}, {"completionMode", "Indexed"}}));
  JobActions a = w.Sync(0);
  ASSERT_EQ(a.create_pods.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const Json& pod = a.create_pods[static_cast<size_t>(i)];
    const std::string ix = std::to_string(i);
    EXPECT_EQ(pod["metadata"]["generateName"], "pi-" + ix + "-");
    EXPECT_EQ(pod["metadata"]["annotations"][kCompletionIndexKey], ix);
    EXPECT_EQ(pod["metadata"]["labels"][kCompletionIndexKey], ix);
    EXPECT_EQ(pod["spec"]["hostname"], "pi-" + ix);
    EXPECT_EQ(pod["spec"]["containers"][0]["env"],
              Json::parse(R"([{"name": "JOB_COMPLETION_INDEX", "value": ")" + ix + "\"}]"));
  }
  EXPECT_EQ(w.created(), (std::vector<std::string>{"pi-0-aaaaa", "pi-1-aaaab"}));
  w.Run("pi-0-aaaaa", 1);
  w.Run("pi-1-aaaab", 1);

  w.Succeed("pi-1-aaaab", 5);
  a = w.Sync(5);
  ASSERT_EQ(a.create_pods.size(), 1u);
  EXPECT_EQ(a.create_pods[0]["metadata"]["annotations"][kCompletionIndexKey], "2");
  EXPECT_EQ(w.status()["completedIndexes"], "1");
  EXPECT_EQ(w.status()["succeeded"], 1);
  w.Run("pi-2-aaaac", 6);

  w.Succeed("pi-0-aaaaa", 7);
  a = w.Sync(7);
  EXPECT_TRUE(a.create_pods.empty()) << "indexes 0 and 1 are done, 2 is running";
  EXPECT_EQ(w.status()["completedIndexes"], "0-1");

  w.Succeed("pi-2-aaaac", 9);
  w.Sync(9);
  EXPECT_EQ(w.status()["completedIndexes"], "0-2");
  EXPECT_EQ(w.status()["succeeded"], 3);
  EXPECT_TRUE(Cond(w.status(), "Complete"));
  EXPECT_EQ(w.created().size(), 3u);
}

TEST(JobControllerTest, IndexedReplacesAFailedIndexAfterBackoff) {
  JobWorld w(MakeJob({{"parallelism", 2}, {"completions", 2}, {"completionMode", "Indexed"}}));
  w.Sync(0);
  w.Run("pi-0-aaaaa", 1);
  w.Run("pi-1-aaaab", 1);
  w.Fail("pi-0-aaaaa", 3);
  JobActions a = w.Sync(3);
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_EQ(a.requeue_at, At(13));
  EXPECT_EQ(w.status()["failed"], 1);
  a = w.Sync(13);
  ASSERT_EQ(a.create_pods.size(), 1u);
  EXPECT_EQ(a.create_pods[0]["metadata"]["generateName"], "pi-0-");
  EXPECT_FALSE(w.status().contains("completedIndexes"));
}

TEST(JobControllerTest, IndexedRemovesDuplicateAndInvalidIndexPods) {
  JobWorld w(MakeJob({{"parallelism", 2}, {"completions", 2}, {"completionMode", "Indexed"}}));
  w.AddPod("dup-new", 2, 0);  // Pending duplicate of index 0
  w.AddPod("keep-0", 1, 0);
  w.Run("keep-0", 1);
  w.AddPod("keep-1", 1, 1);
  w.AddPod("out-of-range", 1, 7);
  w.AddPod("no-index", 1, std::nullopt);
  JobActions a = w.Sync(3);
  std::vector<std::string> deleted = a.delete_pods;
  std::sort(deleted.begin(), deleted.end());
  EXPECT_EQ(deleted, (std::vector<std::string>{"dup-new", "no-index", "out-of-range"}));
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_EQ(w.status()["active"], 2);
  EXPECT_EQ(w.status()["terminating"], 3);
  w.Gone("dup-new");
  w.Gone("no-index");
  w.Killed("out-of-range", 4);
  a = w.Sync(4);
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_TRUE(a.delete_pods.empty());
  EXPECT_EQ(w.status()["terminating"], 0);
  EXPECT_FALSE(w.status().contains("failed"));
}

TEST(JobControllerTest, IndexedDeletesPodOfAnIndexAlreadyCompleted) {
  JobWorld w(MakeJob({{"parallelism", 2}, {"completions", 2}, {"completionMode", "Indexed"}}));
  w.job()["status"] = {{"completedIndexes", "0"}, {"succeeded", 1}};
  w.AddPod("late-0", 1, 0);
  JobActions a = w.Sync(2);
  EXPECT_EQ(a.delete_pods, (std::vector<std::string>{"late-0"}));
  EXPECT_TRUE(a.create_pods.empty()) << "deletions and creations never share a call";
  w.Gone("late-0");
  a = w.Sync(3);
  ASSERT_EQ(a.create_pods.size(), 1u);
  EXPECT_EQ(a.create_pods[0]["metadata"]["generateName"], "pi-1-");
  EXPECT_EQ(w.status()["completedIndexes"], "0");
}

// ---------------------------------------------------------------------------
// Failures: backoff, backoffLimit, OnFailure restarts, deadline.

TEST(JobControllerTest, FailedPodIsReplacedAfterExponentialBackoff) {
  JobWorld w(MakeJob({{"completions", 1}}));
  w.Sync(0);
  w.Run("pi-aaaaa", 1);
  w.Fail("pi-aaaaa", 100);
  JobActions a = w.Sync(100);
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_EQ(a.requeue_at, At(110));  // 10s after the first failure
  EXPECT_EQ(w.status()["failed"], 1);
  EXPECT_FALSE(w.status().contains("active"));
  a = w.Sync(105);
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_EQ(a.requeue_at, At(110));
  EXPECT_EQ(w.Sync(110).create_pods.size(), 1u);

  w.Run("pi-aaaab", 111);
  w.Fail("pi-aaaab", 200);
  a = w.Sync(200);
  EXPECT_EQ(a.requeue_at, At(220));  // 20s after the second
  EXPECT_TRUE(w.Sync(219).create_pods.empty());
  EXPECT_EQ(w.Sync(220).create_pods.size(), 1u);

  w.Fail("pi-aaaac", 300);
  EXPECT_EQ(w.Sync(300).requeue_at, At(340));  // 40s after the third
  // Failed pods stay in the store; they are counted once however often we sync.
  for (int t = 301; t < 305; ++t) w.Sync(t);
  EXPECT_EQ(w.status()["failed"], 3);
}

TEST(JobControllerTest, BackoffIsCappedAndResetBySuccess) {
  JobControllerOptions opts;
  opts.pod_failure_backoff_base = Duration{10'000};
  opts.pod_failure_backoff_max = Duration{30'000};
  JobWorld w(MakeJob({{"completions", 3}, {"backoffLimit", 10}}));
  int64_t t = 0;
  w.Sync(t, opts);
  std::vector<int64_t> delays;
  for (int i = 0; i < 4; ++i) {
    t += 5;
    w.Fail(w.ActiveNames().at(0), t);
    JobActions a = w.Sync(t, opts);
    ASSERT_TRUE(a.requeue_at.has_value());
    delays.push_back((*a.requeue_at - At(t)).ms / 1000);
    t = (*a.requeue_at - At(0)).ms / 1000;
    ASSERT_EQ(w.Sync(t, opts).create_pods.size(), 1u);
  }
  EXPECT_EQ(delays, (std::vector<int64_t>{10, 20, 30, 30}));
  // A success resets the count: the next failure waits the base delay again.
  t += 5;
  w.Succeed(w.ActiveNames().at(0), t);
  JobActions a = w.Sync(t, opts);
  EXPECT_EQ(a.create_pods.size(), 1u) << "no backoff right after a success";
  t += 5;
  w.Fail(w.ActiveNames().at(0), t);
  a = w.Sync(t, opts);
  EXPECT_EQ(a.requeue_at, At(t + 10));
}

TEST(JobControllerTest, BackoffLimitExceededFailsTheJob) {
  JobWorld w(MakeJob({{"parallelism", 2}, {"completions", 4}, {"backoffLimit", 1}}));
  w.Sync(0);
  w.Run("pi-aaaaa", 1);
  w.Run("pi-aaaab", 1);
  w.Fail("pi-aaaaa", 10);
  JobActions a = w.Sync(10);
  EXPECT_FALSE(Cond(w.status(), "FailureTarget")) << "1 failure is within backoffLimit 1";
  EXPECT_EQ(w.Sync(20).create_pods.size(), 1u);
  w.Run("pi-aaaac", 21);
  w.Fail("pi-aaaac", 30);
  a = w.Sync(30);
  // The failure is decided; the running pod is deleted before Failed is set.
  EXPECT_EQ(a.delete_pods, (std::vector<std::string>{"pi-aaaab"}));
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_EQ(Types(w.status()), (std::vector<std::string>{"FailureTarget"}));
  const Json* ft = Cond(w.status(), "FailureTarget");
  EXPECT_EQ((*ft)["reason"], "BackoffLimitExceeded");
  EXPECT_EQ((*ft)["message"], "Job has reached the specified backoff limit");
  EXPECT_EQ(w.status()["terminating"], 1);
  EXPECT_FALSE(HasEvent(a.events, "BackoffLimitExceeded"));
  EXPECT_TRUE(HasEvent(a.events, "SuccessfulDelete"));

  w.Killed("pi-aaaab", 31);  // SIGTERM: ends Failed, still being deleted
  a = w.Sync(31);
  EXPECT_EQ(Types(w.status()), (std::vector<std::string>{"FailureTarget", "Failed"}));
  const Json* failed = Cond(w.status(), "Failed");
  EXPECT_EQ((*failed)["reason"], "BackoffLimitExceeded");
  EXPECT_EQ((*failed)["lastTransitionTime"], Ts(31));
  EXPECT_EQ(w.status()["failed"], 2) << "the pod the controller deleted is not a failure";
  EXPECT_EQ(w.status()["terminating"], 0);
  EXPECT_FALSE(w.status().contains("completionTime"));
  EXPECT_EQ(a.events, (std::vector<EventNote>{{"Warning", "BackoffLimitExceeded",
                                               "Job has reached the specified backoff limit"}}));
  w.Gone("pi-aaaab");
  EXPECT_TRUE(w.Sync(32).empty());
}

TEST(JobControllerTest, OnFailureRestartsCountAgainstBackoffLimit) {
  JobWorld w(MakeJob({{"backoffLimit", 2}}, "OnFailure"));
  w.Sync(0);
  w.Run("pi-aaaaa", 1);
  w.Sync(1);
  w.Restart("pi-aaaaa", 1);
  EXPECT_TRUE(w.Sync(5).empty()) << "1 restart is below backoffLimit 2";
  w.Restart("pi-aaaaa", 2);
  JobActions a = w.Sync(6);
  EXPECT_EQ(a.delete_pods, (std::vector<std::string>{"pi-aaaaa"}));
  EXPECT_EQ((*Cond(w.status(), "FailureTarget"))["reason"], "BackoffLimitExceeded");
  w.Killed("pi-aaaaa", 7);
  w.Sync(7);
  EXPECT_EQ((*Cond(w.status(), "Failed"))["reason"], "BackoffLimitExceeded");
  EXPECT_FALSE(w.status().contains("failed"));
}

TEST(JobControllerTest, OnFailureWithZeroBackoffLimitFailsOnFirstRestart) {
  JobWorld w(MakeJob({{"backoffLimit", 0}}, "OnFailure"));
  w.Sync(0);
  w.Run("pi-aaaaa", 1);
  w.Restart("pi-aaaaa", 1);
  EXPECT_EQ(w.Sync(2).delete_pods.size(), 1u);
  EXPECT_TRUE(Cond(w.status(), "FailureTarget"));
}

TEST(JobControllerTest, ActiveDeadlineFailsTheJob) {
  JobWorld w(MakeJob({{"activeDeadlineSeconds", 30}}));
  JobActions a = w.Sync(0);
  EXPECT_EQ(a.requeue_at, At(30));
  w.Run("pi-aaaaa", 1);
  EXPECT_EQ(w.Sync(10).requeue_at, At(30));
  a = w.Sync(30);
  EXPECT_EQ(a.delete_pods, (std::vector<std::string>{"pi-aaaaa"}));
  EXPECT_FALSE(a.requeue_at.has_value());
  const Json* ft = Cond(w.status(), "FailureTarget");
  ASSERT_TRUE(ft);
  EXPECT_EQ((*ft)["reason"], "DeadlineExceeded");
  EXPECT_EQ((*ft)["message"], "Job was active longer than specified deadline");
  EXPECT_FALSE(Cond(w.status(), "Failed"));
  w.Gone("pi-aaaaa");
  a = w.Sync(31);
  EXPECT_EQ((*Cond(w.status(), "Failed"))["reason"], "DeadlineExceeded");
  EXPECT_EQ(a.events, (std::vector<EventNote>{{"Warning", "DeadlineExceeded",
                                               "Job was active longer than specified deadline"}}));
  EXPECT_FALSE(w.status().contains("completionTime"));
  EXPECT_TRUE(w.Sync(40).empty());
}

// ---------------------------------------------------------------------------
// Scaling down.

TEST(JobControllerTest, SurplusPodsAreDeletedWhenParallelismShrinks) {
  JobWorld w(MakeJob({{"parallelism", 3}, {"completions", 10}}));
  w.Sync(0);
  w.Run("pi-aaaaa", 1);                   // running and ready: kept
  w.Run("pi-aaaab", 1, /*ready=*/false);  // running, not ready
  w.job()["spec"]["parallelism"] = 1;     // pi-aaaac is still Pending
  JobActions a = w.Sync(2);
  EXPECT_EQ(a.delete_pods, (std::vector<std::string>{"pi-aaaac", "pi-aaaab"}));
  EXPECT_EQ(a.events[0], (EventNote{"Normal", "SuccessfulDelete", "Deleted pod: pi-aaaac"}));
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_EQ(w.status()["active"], 1);
  EXPECT_EQ(w.status()["ready"], 1);
  EXPECT_EQ(w.status()["terminating"], 2);
  w.Killed("pi-aaaab", 3);
  w.Gone("pi-aaaac");
  a = w.Sync(3);
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_TRUE(a.delete_pods.empty());
  EXPECT_EQ(w.status()["terminating"], 0);
  EXPECT_FALSE(w.status().contains("failed")) << "deleted pods are not failures";
}

TEST(JobControllerTest, SurplusDeletionTakesTheNewestFirst) {
  JobWorld w(MakeJob({{"parallelism", 1}, {"completions", 10}}));
  w.Sync(0);
  w.job()["spec"]["parallelism"] = 2;
  EXPECT_EQ(w.Sync(5).create_pods.size(), 1u);  // pi-aaaab, created at 5
  w.job()["spec"]["parallelism"] = 3;
  EXPECT_EQ(w.Sync(7).create_pods.size(), 1u);  // pi-aaaac, created at 7
  w.job()["spec"]["parallelism"] = 1;
  JobActions a = w.Sync(8);  // all three Pending: the newest go first
  EXPECT_EQ(a.delete_pods, (std::vector<std::string>{"pi-aaaac", "pi-aaaab"}));
}

// ---------------------------------------------------------------------------
// Suspend and resume.

TEST(JobControllerTest, JobCreatedSuspendedWaitsWithoutPods) {
  JobWorld w(MakeJob({{"suspend", true}, {"parallelism", 2}}));
  JobActions a = w.Sync(0);
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_EQ(w.status(), Json::parse(R"({"conditions": [{"type": "Suspended", "status": "True",
      "reason": "JobSuspended", "message": "Job suspended", "lastProbeTime": ")" +
                                    Ts(0) + R"(", "lastTransitionTime": ")" + Ts(0) +
                                    R"("}], "ready": 0, "terminating": 0,
      "uncountedTerminatedPods": {}})"));
  EXPECT_EQ(a.events, (std::vector<EventNote>{{"Normal", "Suspended", "Job suspended"}}));
  EXPECT_TRUE(w.Sync(50).empty());
}

TEST(JobControllerTest, SuspendDeletesPodsAndResumeRestartsTheDeadline) {
  JobWorld w(MakeJob({{"parallelism", 2}, {"completions", 4}, {"activeDeadlineSeconds", 100}}));
  w.Sync(0);
  w.Run("pi-aaaaa", 1);
  w.Run("pi-aaaab", 1);
  w.Sync(1);

  w.job()["spec"]["suspend"] = true;
  JobActions a = w.Sync(20);
  EXPECT_EQ(a.delete_pods.size(), 2u);
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_FALSE(a.requeue_at.has_value()) << "no deadline while suspended";
  const Json* s = Cond(w.status(), "Suspended");
  ASSERT_TRUE(s);
  EXPECT_EQ((*s)["status"], "True");
  EXPECT_EQ((*s)["reason"], "JobSuspended");
  EXPECT_FALSE(w.status().contains("startTime"));
  EXPECT_FALSE(w.status().contains("active"));
  EXPECT_EQ(w.status()["terminating"], 2);
  EXPECT_TRUE(HasEvent(a.events, "Suspended"));
  w.Killed("pi-aaaaa", 21);
  w.Gone("pi-aaaab");
  a = w.Sync(21);
  EXPECT_TRUE(a.create_pods.empty());
  EXPECT_FALSE(w.status().contains("failed"));
  EXPECT_EQ(w.status()["terminating"], 0);
  w.Gone("pi-aaaaa");

  // Resumed long after the original deadline would have passed.
  w.job()["spec"]["suspend"] = false;
  a = w.Sync(200);
  EXPECT_EQ(a.create_pods.size(), 2u);
  EXPECT_EQ(a.requeue_at, At(300));
  s = Cond(w.status(), "Suspended");
  EXPECT_EQ((*s)["status"], "False");
  EXPECT_EQ((*s)["reason"], "JobResumed");
  EXPECT_EQ((*s)["message"], "Job resumed");
  EXPECT_EQ((*s)["lastTransitionTime"], Ts(200));
  EXPECT_EQ(w.status()["startTime"], Ts(200));
  EXPECT_EQ(a.events, (std::vector<EventNote>{{"Normal", "Resumed", "Job resumed"}}));
  EXPECT_FALSE(Cond(w.status(), "FailureTarget"));
  EXPECT_TRUE(w.Sync(250).delete_pods.empty());
  EXPECT_FALSE(Cond(w.status(), "FailureTarget"));
}

TEST(JobControllerTest, ConditionTimeMovesOnlyWhenItsStatusChanges) {
  JobWorld w(MakeJob({{"suspend", true}}));
  w.Sync(0);
  w.Sync(10);
  EXPECT_EQ((*Cond(w.status(), "Suspended"))["lastTransitionTime"], Ts(0));
  w.job()["spec"]["suspend"] = false;
  w.Sync(20);
  w.Sync(25);
  EXPECT_EQ((*Cond(w.status(), "Suspended"))["lastTransitionTime"], Ts(20));
  w.job()["spec"]["suspend"] = true;
  w.Sync(30);
  EXPECT_EQ(Types(w.status()), (std::vector<std::string>{"Suspended"}));
  EXPECT_EQ((*Cond(w.status(), "Suspended"))["status"], "True");
  EXPECT_EQ((*Cond(w.status(), "Suspended"))["lastTransitionTime"], Ts(30));
}

TEST(JobControllerTest, PodThatSucceededBeforeTheKillLandedCounts) {
  JobWorld w(MakeJob({{"completions", 2}}));
  w.Sync(0);
  w.Run("pi-aaaaa", 1);
  w.job()["spec"]["suspend"] = true;
  w.Sync(5);
  w.Succeed("pi-aaaaa", 6);  // finished its work while being deleted
  w.Sync(6);
  EXPECT_EQ(w.status()["succeeded"], 1);
  EXPECT_EQ(w.status()["terminating"], 0);
}

// ---------------------------------------------------------------------------
// Success criteria met while pods still run; finished Jobs; TTL.

TEST(JobControllerTest, CompleteWaitsForTerminatingPods) {
  JobWorld w(MakeJob({{"completions", 1}}));
  // A succeeded pod already counted (and since removed by hand) and a stray
  // active pod: success is decided, the pod is deleted, Complete waits.
  w.job()["status"] = {{"succeeded", 1}, {"startTime", Ts(0)}};
  w.AddPod("stray", 1, std::nullopt);
  w.Run("stray", 1);
  JobActions a = w.Sync(10);
  EXPECT_EQ(a.delete_pods, (std::vector<std::string>{"stray"}));
  EXPECT_EQ(Types(w.status()), (std::vector<std::string>{"SuccessCriteriaMet"}));
  EXPECT_FALSE(w.status().contains("completionTime"));
  EXPECT_FALSE(HasEvent(a.events, "Completed"));
  EXPECT_TRUE(w.Sync(11).empty()) << "still terminating";
  w.Gone("stray");
  a = w.Sync(12);
  EXPECT_EQ(Types(w.status()), (std::vector<std::string>{"SuccessCriteriaMet", "Complete"}));
  EXPECT_EQ((*Cond(w.status(), "SuccessCriteriaMet"))["lastTransitionTime"], Ts(10));
  EXPECT_EQ(w.status()["completionTime"], Ts(12));
  EXPECT_TRUE(HasEvent(a.events, "Completed"));
}

TEST(JobControllerTest, FinishedJobCreatesNothingMore) {
  JobWorld w(MakeJob({{"completions", 1}}));
  w.Sync(0);
  w.Succeed("pi-aaaaa", 3);
  w.Sync(3);
  ASSERT_TRUE(Cond(w.status(), "Complete"));
  w.job()["spec"]["parallelism"] = 5;
  w.AddPod("late", 4, std::nullopt);
  w.Fail("late", 5);
  EXPECT_TRUE(w.Sync(6).empty());
}

TEST(JobControllerTest, TtlDeletesTheJobAfterCompletion) {
  JobWorld w(MakeJob({{"ttlSecondsAfterFinished", 60}}));
  w.Sync(0);
  w.Succeed("pi-aaaaa", 10);
  JobActions a = w.Sync(10);
  ASSERT_TRUE(Cond(w.status(), "Complete"));
  EXPECT_EQ(a.requeue_at, At(70));
  EXPECT_FALSE(a.delete_job);
  a = w.Sync(69);
  EXPECT_EQ(a.requeue_at, At(70));
  EXPECT_FALSE(a.delete_job);
  EXPECT_FALSE(a.status.has_value());
  a = w.Sync(70);
  EXPECT_TRUE(a.delete_job);
  EXPECT_FALSE(a.requeue_at.has_value());
}

TEST(JobControllerTest, ZeroTtlDeletesRightAfterTheStatusIsWritten) {
  JobWorld w(MakeJob({{"ttlSecondsAfterFinished", 0}}));
  w.Sync(0);
  w.Succeed("pi-aaaaa", 10);
  JobActions a = w.Sync(10);
  EXPECT_FALSE(a.delete_job) << "the Complete status is written first";
  EXPECT_EQ(a.requeue_at, At(10));
  EXPECT_TRUE(w.Sync(10).delete_job);
}

TEST(JobControllerTest, TtlOfAFailedJobCountsFromItsFailedCondition) {
  JobWorld w(MakeJob({{"backoffLimit", 0}, {"ttlSecondsAfterFinished", 5}}));
  w.Sync(0);
  w.Fail("pi-aaaaa", 10);
  JobActions a = w.Sync(10);
  ASSERT_TRUE(Cond(w.status(), "Failed"));
  EXPECT_EQ(a.requeue_at, At(15));
  EXPECT_FALSE(w.Sync(14).delete_job);
  EXPECT_TRUE(w.Sync(15).delete_job);
}

// ---------------------------------------------------------------------------
// Counting, ownership, limits, determinism, bad input.

TEST(JobControllerTest, CountsNeverDropBelowTheStatus) {
  JobWorld w(MakeJob({{"completions", 5}, {"parallelism", 2}}));
  w.job()["status"] = {{"succeeded", 2}, {"failed", 1}};
  JobActions a = w.Sync(0);
  EXPECT_EQ(a.create_pods.size(), 2u);
  EXPECT_EQ(w.status()["succeeded"], 2);
  EXPECT_EQ(w.status()["failed"], 1);
  w.Succeed("pi-aaaaa", 1);
  w.Sync(1);
  EXPECT_EQ(w.status()["succeeded"], 2) << "recomputed from pods, floored by the status";
}

TEST(JobControllerTest, PodsOfOtherOwnersAreIgnored) {
  JobWorld w(MakeJob({{"completions", 1}}));
  w.AddPod("foreign", 0, std::nullopt);
  w.Pod("foreign")["metadata"]["ownerReferences"][0]["uid"] = "another-job";
  w.Run("foreign", 0);
  w.AddPod("orphan", 0, std::nullopt);
  w.Pod("orphan")["metadata"].erase("ownerReferences");
  JobActions a = w.Sync(1);
  EXPECT_EQ(a.create_pods.size(), 1u);
  EXPECT_EQ(w.status()["active"], 1);
  EXPECT_EQ(w.status()["ready"], 0);
}

TEST(JobControllerTest, CreationsAreCappedPerCall) {
  JobWorld w(MakeJob({{"parallelism", 1200}}));
  JobActions a = w.Sync(0);
  EXPECT_EQ(a.create_pods.size(), 500u);
  EXPECT_EQ(a.requeue_at, At(0));
  EXPECT_EQ(w.Sync(0).create_pods.size(), 500u);
  a = w.Sync(0);
  EXPECT_EQ(a.create_pods.size(), 200u);
  EXPECT_FALSE(a.requeue_at.has_value());
  EXPECT_EQ(w.status()["active"], 1200);
}

TEST(JobControllerTest, ManagedByAnotherControllerGetsNoActions) {
  JobWorld w(MakeJob({{"managedBy", "kueue.x-k8s.io/multikueue"}}));
  EXPECT_TRUE(w.Sync(0).empty());
  EXPECT_FALSE(w.job().contains("status"));
}

TEST(JobControllerTest, JobBeingDeletedGetsNoActions) {
  JobWorld w(MakeJob({{"parallelism", 2}}));
  w.job()["metadata"]["deletionTimestamp"] = Ts(0);
  EXPECT_TRUE(w.Sync(1).empty());
}

TEST(JobControllerTest, SameInputGivesSameOutput) {
  Json job = MakeJob({{"parallelism", 3}, {"completions", 6}, {"activeDeadlineSeconds", 900}});
  JobWorld w(job);
  w.Sync(0);
  w.Run("pi-aaaaa", 1);
  w.Fail("pi-aaaab", 2);
  w.job()["spec"]["parallelism"] = 1;
  auto dump = [](const JobActions& a) {
    Json out = {{"create", a.create_pods},
                {"delete", a.delete_pods},
                {"status", a.status ? *a.status : Json()},
                {"requeue", a.requeue_at ? a.requeue_at->unix_ms : -1},
                {"delete_job", a.delete_job}};
    for (const EventNote& e : a.events) out["events"].push_back({e.type, e.reason, e.message});
    return out.dump();
  };
  std::vector<Json> pods = w.Pods();
  Result<JobActions> first = ReconcileJob(w.job(), pods, At(3));
  std::reverse(pods.begin(), pods.end());  // order of the pod list does not matter
  Result<JobActions> second = ReconcileJob(w.job(), pods, At(3));
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(dump(*first), dump(*second));
  EXPECT_EQ(first->delete_pods, (std::vector<std::string>{"pi-aaaac"}));
}

TEST(JobControllerTest, MalformedJobIsAnErrorNotACrash) {
  Result<JobActions> r = ReconcileJob(MakeJob({{"completions", -1}}), {}, At(0));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(r.status().message(),
            "spec.completions: Invalid value: -1: must be greater than or equal to 0");
  r = ReconcileJob(MakeJob({{"parallelism", "many"}}), {}, At(0));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "spec.parallelism: Invalid value: \"many\": must be an integer");
  r = ReconcileJob(Json("not a job"), {}, At(0));
  EXPECT_FALSE(r.ok());
}

TEST(JobControllerTest, MalformedPodsAndStatusAreReadAsAbsent) {
  Json job = MakeJob({{"parallelism", 2}, {"completions", 2}, {"completionMode", "Indexed"}});
  job["status"] = {{"conditions", "garbage"},
                   {"startTime", "yesterday"},
                   {"succeeded", "x"},
                   {"completedIndexes", "9-1"}};
  Json owned = BuildPod(*ParseJobSpec(job), 0);
  owned["metadata"]["name"] = "odd";
  owned["metadata"]["annotations"][kCompletionIndexKey] = "-3";
  owned["metadata"]["labels"][kCompletionIndexKey] = "zero";
  owned["status"] = {{"phase", 7},
                     {"containerStatuses", "none"},
                     {"conditions", {{{"type", "Ready"}, {"status", true}}}}};
  Json no_name = BuildPod(*ParseJobSpec(job), 1);
  std::vector<Json> pods = {Json(3), Json("pod"), Json::object(), no_name, owned};
  Result<JobActions> r = ReconcileJob(job, pods, At(5));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // "odd" has no readable index: it is deleted; nothing is created in the same call.
  EXPECT_EQ(r->delete_pods, (std::vector<std::string>{"odd"}));
  ASSERT_TRUE(r->status.has_value());
  EXPECT_EQ((*r->status)["startTime"], Ts(5));
  EXPECT_EQ((*r->status)["conditions"], Json::array());
  EXPECT_FALSE(r->status->contains("succeeded"));
}

}  // namespace
}  // namespace kuota::jobctl
