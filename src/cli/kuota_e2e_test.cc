// End to end: a real kuotad on a temporary data directory, driven by the
// real `kuota` binary as a user would: submit, get, describe, why, stop and
// resume, logs, server discovery, --help, and clear errors for bad input.
#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>
#include <sstream>

#include "base/url_encode.h"
#include "cli/cli_test_support.h"
#include "server/client_credentials.h"
#include "testing/find_on_path.h"

namespace kuota::cli {
namespace {

using testing::Contains;
using testing::EnvChanges;
using testing::KuotadProcess;
using testing::ProcessResult;
using testing::TempDir;
using testing::WaitUntil;
using namespace std::chrono_literals;

constexpr char kKueue[] = "/apis/kueue.x-k8s.io/v1beta1";

using kuota::testing::FindOnPath;

class KuotaE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kuotad_ = std::make_unique<KuotadProcess>(dir_.path());
    ASSERT_TRUE(kuotad_->Start()) << "kuotad did not start:\n" << kuotad_->log();
    http_ = std::make_unique<httplib::Client>(kuotad_->url());
    http_->set_read_timeout(30, 0);
    // As the admin: kuotad's CA and token from its kubeconfig.
    ASSERT_TRUE(
        server::UseCredentials(*http_, kuotad_->target().ca_pem, kuotad_->target().token).ok());
    // One flavor; a ClusterQueue with a little quota (memory is the tight one,
    // so a big request waits on quota, not on this machine's size).
    Create(std::string(kKueue) + "/resourceflavors", {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
                                                      {"kind", "ResourceFlavor"},
                                                      {"metadata", {{"name", "default-flavor"}}}});
    Json resources = Json::array({{{"name", "cpu"}, {"nominalQuota", "2"}},
                                  {{"name", "memory"}, {"nominalQuota", "1Gi"}},
                                  {{"name", "nvidia.com/gpu"}, {"nominalQuota", "2"}}});
    Create(std::string(kKueue) + "/clusterqueues",
           {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
            {"kind", "ClusterQueue"},
            {"metadata", {{"name", "cq"}}},
            {"spec",
             {{"namespaceSelector", Json::object()},
              {"resourceGroups",
               Json::array({{{"coveredResources", {"cpu", "memory", "nvidia.com/gpu"}},
                             {"flavors", Json::array({{{"name", "default-flavor"},
                                                       {"resources", resources}}})}}})}}}});
    Create(std::string(kKueue) + "/namespaces/default/localqueues",
           {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
            {"kind", "LocalQueue"},
            {"metadata", {{"name", "lq"}, {"namespace", "default"}}},
            {"spec", {{"clusterQueue", "cq"}}}});
    Create(std::string(kKueue) + "/workloadpriorityclasses",
           {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
            {"kind", "WorkloadPriorityClass"},
            {"metadata", {{"name", "high"}}},
            {"value", 1000}});
  }

  void TearDown() override {
    if (HasFailure() && kuotad_) std::cerr << "kuotad's log:\n" << kuotad_->log();
    if (http_ && kuotad_) {
      // kuotad leaves pods running when it stops: delete them first (its
      // runner stops their processes), Jobs before pods so none come back.
      http_->Delete("/apis/batch/v1/namespaces/default/jobs");
      http_->Delete("/api/v1/namespaces/default/pods");
      WaitUntil(
          [&] {
            Json pods = Get("/api/v1/namespaces/default/pods");
            return !pods.is_object() || pods["items"].empty();
          },
          5s);
    }
    http_.reset();
    if (kuotad_) kuotad_->Stop();
  }

  void Create(const std::string& path, const Json& object) {
    auto res = http_->Post(path, object.dump(), "application/json");
    ASSERT_TRUE(res) << path;
    ASSERT_EQ(res->status, 201) << path << ": " << res->body;
  }

  Json Get(const std::string& path) {
    auto res = http_->Get(path);
    if (!res || res->status != 200) return nullptr;
    return Json::parse(res->body, nullptr, false);
  }

  // Runs `kuota args...` with KUOTA_SERVER pointing at the test's kuotad.
  ProcessResult Kuota(std::vector<std::string> args, EnvChanges env = {}) {
    args.insert(args.begin(), KUOTA_BIN);
    if (env.count("KUOTA_SERVER") == 0) env["KUOTA_SERVER"] = kuotad_->url();
    // The admin's credentials, as a user would have them (kuotad's kubeconfig).
    if (env.count("KUBECONFIG") == 0) env["KUBECONFIG"] = kuotad_->kubeconfig();
    return testing::Run(args, env);
  }

  // Runs kuota and expects success.
  std::string Ok(std::vector<std::string> args) {
    ProcessResult r = Kuota(args);
    std::string line;
    for (const std::string& a : args) line += " " + a;
    EXPECT_EQ(r.exit_code, 0) << "kuota" << line << "\nstdout:\n"
                              << r.out << "\nstderr:\n"
                              << r.err;
    return r.out;
  }

  // The Workload kuotad made for Job `job` (null until there is one).
  Json WorkloadOf(const std::string& job) {
    Json j = Get("/apis/batch/v1/namespaces/default/jobs/" + job);
    if (!j.is_object()) return nullptr;
    Json list = Get(std::string(kKueue) + "/namespaces/default/workloads?labelSelector=" +
                    UrlEncode("kueue.x-k8s.io/job-uid=" + j["metadata"]["uid"].get<std::string>()));
    if (!list.is_object() || list["items"].empty()) return nullptr;
    return list["items"][0];
  }

  static bool ConditionIs(const Json& wl, const std::string& type, const std::string& status) {
    if (!wl.is_object() || !wl.contains("status")) return false;
    for (const Json& c : wl["status"].value("conditions", Json::array())) {
      if (c.value("type", "") == type) return c.value("status", "") == status;
    }
    return false;
  }

  // Submits a small Job (fits this machine and the quota) and waits for its admission.
  void SubmitSmall(const std::string& name) {
    Ok({"submit", "-q", "lq", "--name", name, "--cpu", "100m", "--memory", "64Mi", "--", "sleep",
        "60"});
    ASSERT_TRUE(WaitUntil([&] { return ConditionIs(WorkloadOf(name), "Admitted", "True"); }))
        << WorkloadOf(name).dump(2);
  }

  TempDir dir_;
  std::unique_ptr<KuotadProcess> kuotad_;
  std::unique_ptr<httplib::Client> http_;
};

TEST_F(KuotaE2eTest, SubmitCreatesAJobAndKuotadItsWorkload) {
  ProcessResult r =
      Kuota({"submit", "--queue",   "lq",       "--name",        "train",    "--cpu",
             "2",      "--memory",  "1Gi",      "--gpus",        "1",        "--priority",
             "high",   "--env",     "EPOCHS=3", "--parallelism", "2",        "--completions",
             "4",      "--indexed", "--",       "python3",       "train.py", "--epochs",
             "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "job.batch/train created in queue lq")) << r.out;
  EXPECT_TRUE(Contains(r.out, "kuota logs -f train")) << r.out;
  Json job = Get("/apis/batch/v1/namespaces/default/jobs/train");
  ASSERT_TRUE(job.is_object());
  EXPECT_EQ(job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"], "lq");
  EXPECT_EQ(job["metadata"]["labels"]["kueue.x-k8s.io/priority-class"], "high");
  EXPECT_EQ(job["spec"]["parallelism"], 2);
  EXPECT_EQ(job["spec"]["completions"], 4);
  EXPECT_EQ(job["spec"]["completionMode"], "Indexed");
  const Json& c = job["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["command"], Json({"python3", "train.py", "--epochs", "3"}));
  EXPECT_EQ(c["resources"]["requests"]["cpu"], "2");
  EXPECT_EQ(c["resources"]["requests"]["memory"], "1Gi");
  EXPECT_EQ(c["resources"]["limits"]["nvidia.com/gpu"], "1");
  EXPECT_EQ(c["env"][0]["name"], "EPOCHS");
  EXPECT_FALSE(c.value("workingDir", "").empty());  // the current directory
  // kuotad queues it: a Workload for the Job, with the priority class.
  ASSERT_TRUE(WaitUntil([&] { return WorkloadOf("train").is_object(); }));
  Json wl = WorkloadOf("train");
  EXPECT_EQ(wl["spec"]["queueName"], "lq");
  EXPECT_EQ(wl["spec"]["priorityClassName"], "high");

  // A generated name.
  ProcessResult gen = Kuota({"submit", "-q", "lq", "--", "/bin/echo", "hi"});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  EXPECT_TRUE(Contains(gen.out, "job.batch/echo-")) << gen.out;
}

TEST_F(KuotaE2eTest, SubmitKindPyTorchJobRunsTwoRanks) {
  std::string out = Ok({"submit", "-q", "lq", "--kind", "pytorchjob", "--name", "ddp",
                        "--parallelism", "2", "--cpu", "100m", "--", "sh", "-c",
                        "echo rank=$RANK world=$WORLD_SIZE master=$MASTER_ADDR"});
  EXPECT_TRUE(Contains(out, "pytorchjob.kubeflow.org/ddp created in queue lq")) << out;
  Json pt;
  ASSERT_TRUE(WaitUntil([&] {
    pt = Get("/apis/kubeflow.org/v1/namespaces/default/pytorchjobs/ddp");
    for (const Json& c :
         pt.is_object() ? pt["status"].value("conditions", Json::array()) : Json::array()) {
      if (c.value("type", "") == "Succeeded" && c.value("status", "") == "True") return true;
    }
    return false;
  })) << pt.dump(2);
  EXPECT_EQ(pt["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"], 1);
  // The master's pod stays (Succeeded) after the job succeeded.
  std::string logs = Ok({"logs", "ddp-master-0"});
  EXPECT_TRUE(Contains(logs, "rank=0 world=2 master=127.0.0.1")) << logs;
  // The table kubectl prints for the kind, through kuota get.
  EXPECT_TRUE(Contains(Ok({"get", "pytorchjobs"}), "Succeeded"));
}

TEST_F(KuotaE2eTest, GetPrintsWhatKubectlPrints) {
  SubmitSmall("small");
  std::string cq = Ok({"get", "cq"});
  EXPECT_TRUE(Contains(cq, "NAME   COHORT   PENDING WORKLOADS   AGE\ncq ")) << cq;
  std::string wide = Ok({"get", "clusterqueues", "-o", "wide"});
  EXPECT_TRUE(
      Contains(wide, "NAME   COHORT   STRATEGY         PENDING WORKLOADS   ADMITTED WORKLOADS"))
      << wide;
  std::string wl = Ok({"get", "wl"});
  EXPECT_TRUE(Contains(wl, "job-small-")) << wl;
  EXPECT_TRUE(Contains(wl, "RESERVED IN")) << wl;
  EXPECT_TRUE(Contains(Ok({"get", "workloads", "-A"}), "NAMESPACE"));
  EXPECT_TRUE(Contains(Ok({"get", "lq", "-o", "yaml"}), "clusterQueue: cq"));
  Json as_json = Json::parse(Ok({"get", "rf", "-o", "json"}), nullptr, false);
  ASSERT_TRUE(as_json.is_object());
  EXPECT_EQ(as_json["kind"], "List");
  EXPECT_EQ(as_json["items"][0]["metadata"]["name"], "default-flavor");
  EXPECT_EQ(Ok({"get", "cq", "cq", "-o", "name"}), "clusterqueue.kueue.x-k8s.io/cq\n");
  EXPECT_TRUE(Contains(Ok({"get", "jobs"}), "small"));
  ProcessResult none = Kuota({"get", "pods", "-n", "kube-system"});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_EQ(none.err, "No resources found in kube-system namespace.\n");

  // The same tables as the real kubectl prints (AGE, the last column, left out: it ticks).
  const std::string kubectl = FindOnPath("kubectl");
  ASSERT_FALSE(kubectl.empty()) << "kubectl was not found on PATH";
  auto without_age = [](const std::string& table) {
    std::string out;
    std::stringstream lines(table);
    for (std::string line; std::getline(lines, line);) {
      size_t end = line.find_last_not_of(' ', line.find_last_of(' '));
      out += line.substr(0, end + 1) + "\n";
    }
    return out;
  };
  for (std::vector<std::string> args : {std::vector<std::string>{"get", "cq", "-o", "wide"},
                                        {"get", "lq", "-A"},
                                        {"get", "wl"},
                                        {"get", "rf"}}) {
    std::vector<std::string> argv = {kubectl, "--kubeconfig=" + kuotad_->kubeconfig(),
                                     "--cache-dir=" + dir_.path() + "/cache"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult theirs =
        testing::Run(argv, {{"HOME", dir_.path()}, {"KUBECONFIG", std::nullopt}});
    ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
    std::string ours = Ok(args);
    EXPECT_EQ(without_age(ours), without_age(theirs.out)) << "kuota " << args[1];
  }
}

TEST_F(KuotaE2eTest, DescribeShowsEssentialsConditionsAndEvents) {
  SubmitSmall("small");
  // ClusterQueue status is written a moment after the change.
  ASSERT_TRUE(WaitUntil([&] {
    return ConditionIs(Get(std::string(kKueue) + "/clusterqueues/cq"), "Active", "True");
  }));
  Json wl = WorkloadOf("small");
  const std::string name = wl["metadata"]["name"];
  std::string d = Ok({"describe", "wl", name});
  EXPECT_TRUE(Contains(d, "Name:             " + name)) << d;
  EXPECT_TRUE(Contains(d, "Queue:            lq")) << d;
  EXPECT_TRUE(Contains(d, "Conditions:")) << d;
  EXPECT_TRUE(Contains(d, "QuotaReserved   True")) << d;
  EXPECT_TRUE(Contains(d, "Admitted        True")) << d;
  EXPECT_TRUE(Contains(d, "Events:")) << d;
  EXPECT_TRUE(Contains(d, "Admitted by ClusterQueue cq")) << d;
  std::string cq = Ok({"describe", "cq", "cq"});
  EXPECT_TRUE(Contains(cq, "Active   True")) << cq;
  EXPECT_TRUE(Contains(cq, "default-flavor   memory")) << cq;
  EXPECT_TRUE(Contains(cq, "1Gi")) << cq;
  std::string job = Ok({"describe", "job", "small"});
  EXPECT_TRUE(Contains(job, "Command:        sleep 60")) << job;
  EXPECT_TRUE(Contains(job, "CreatedWorkload")) << job;
  ProcessResult missing = Kuota({"describe", "cq", "nope"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(Contains(missing.err, "clusterqueues.kueue.x-k8s.io \"nope\" not found"))
      << missing.err;
}

TEST_F(KuotaE2eTest, WhyExplainsAPendingJob) {
  ProcessResult r = Kuota({"submit", "-q", "lq", "--name", "big", "--cpu", "100m", "--memory",
                           "2Gi", "--", "sleep", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(WaitUntil([&] { return ConditionIs(WorkloadOf("big"), "QuotaReserved", "False"); }));
  std::string why = Ok({"why", "big"});
  EXPECT_TRUE(Contains(why, "(for Job big)")) << why;
  EXPECT_TRUE(Contains(why, "State:         pending")) << why;
  EXPECT_TRUE(Contains(why, "insufficient quota for memory in flavor default-flavor")) << why;
  EXPECT_TRUE(Contains(why, "LocalQueue default/lq -> ClusterQueue cq")) << why;
  EXPECT_TRUE(Contains(why, "Position:")) << why;
  // By the Workload's own name too.
  std::string by_wl = Ok({"why", WorkloadOf("big")["metadata"]["name"].get<std::string>()});
  EXPECT_TRUE(Contains(by_wl, "State:         pending")) << by_wl;
  ProcessResult missing = Kuota({"why", "nope"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(Contains(missing.err, "no Workload or Job named \"nope\" in namespace \"default\""))
      << missing.err;
}

// Needs kuotad to serve Kueue's visibility API (a PendingWorkloadsSource in
// its controller).
TEST_F(KuotaE2eTest, WhyShowsThePositionInTheQueues) {
  for (const char* name : {"big-1", "big-2"}) {
    ASSERT_EQ(Kuota({"submit", "-q", "lq", "--name", name, "--cpu", "100m", "--memory", "2Gi", "--",
                     "sleep", "1"})
                  .exit_code,
              0);
  }
  auto probe =
      http_->Get("/apis/visibility.kueue.x-k8s.io/v1beta1/clusterqueues/cq/pendingworkloads");
  ASSERT_TRUE(probe);
  ASSERT_EQ(probe->status, 200) << "kuotad must serve the visibility API: " << probe->body;
  ASSERT_TRUE(WaitUntil([&] {
    return ConditionIs(WorkloadOf("big-1"), "QuotaReserved", "False") &&
           ConditionIs(WorkloadOf("big-2"), "QuotaReserved", "False") &&
           Get(std::string(kKueue) + "/clusterqueues/cq")
                   .value("status", Json::object())
                   .value("pendingWorkloads", 0) == 2;
  }));
  std::string first = Ok({"why", "big-1"});
  EXPECT_TRUE(
      Contains(first, "Position:      1 in ClusterQueue cq (of 2 pending), 1 in LocalQueue lq"))
      << first;
  std::string second = Ok({"why", "big-2"});
  EXPECT_TRUE(
      Contains(second, "Position:      2 in ClusterQueue cq (of 2 pending), 2 in LocalQueue lq"))
      << second;
}

TEST_F(KuotaE2eTest, StopAndResumeSetStopPolicyAndActive) {
  EXPECT_TRUE(Contains(Ok({"stop", "cq", "cq"}),
                       "clusterqueue.kueue.x-k8s.io/cq stopped (stopPolicy: Hold)"));
  EXPECT_EQ(Get(std::string(kKueue) + "/clusterqueues/cq")["spec"]["stopPolicy"], "Hold");
  Ok({"stop", "clusterqueue", "cq", "--drain"});
  EXPECT_EQ(Get(std::string(kKueue) + "/clusterqueues/cq")["spec"]["stopPolicy"], "HoldAndDrain");
  // A job submitted to a stopped queue waits.
  ASSERT_EQ(Kuota({"submit", "-q", "lq", "--name", "held", "--cpu", "100m", "--", "sleep", "20"})
                .exit_code,
            0);
  ASSERT_TRUE(WaitUntil([&] { return WorkloadOf("held").is_object(); }));
  std::this_thread::sleep_for(500ms);
  EXPECT_FALSE(ConditionIs(WorkloadOf("held"), "QuotaReserved", "True"));
  std::string why = Ok({"why", "held"});
  EXPECT_TRUE(Contains(why, "cq is stopped (stopPolicy HoldAndDrain)")) << why;
  Ok({"resume", "cq", "cq"});
  EXPECT_EQ(Get(std::string(kKueue) + "/clusterqueues/cq")["spec"]["stopPolicy"], "None");
  EXPECT_TRUE(WaitUntil([&] { return ConditionIs(WorkloadOf("held"), "Admitted", "True"); }));

  Ok({"stop", "lq", "lq"});
  EXPECT_EQ(Get(std::string(kKueue) + "/namespaces/default/localqueues/lq")["spec"]["stopPolicy"],
            "Hold");
  Ok({"stop", "localqueue", "lq", "--drain"});
  EXPECT_EQ(Get(std::string(kKueue) + "/namespaces/default/localqueues/lq")["spec"]["stopPolicy"],
            "HoldAndDrain");
  Ok({"resume", "lq", "lq"});
  EXPECT_EQ(Get(std::string(kKueue) + "/namespaces/default/localqueues/lq")["spec"]["stopPolicy"],
            "None");

  // A workload, named by its Job.
  std::string stopped = Ok({"stop", "workload", "held"});
  EXPECT_TRUE(Contains(stopped, "stopped (spec.active=false)")) << stopped;
  Json wl = WorkloadOf("held");
  EXPECT_EQ(wl["spec"]["active"], false);
  Ok({"resume", "wl", wl["metadata"]["name"].get<std::string>()});
  EXPECT_EQ(WorkloadOf("held")["spec"]["active"], true);
}

// The workload's state follows stopPolicy HoldAndDrain and spec.active=false:
// an admitted workload is evicted (and admitted again on resume).
TEST_F(KuotaE2eTest, StoppingEvictsAdmittedWorkloads) {
  SubmitSmall("small");
  // `stop` takes "small"'s quota and `kuota why` then says `why`; `resume`
  // has it admitted again.
  auto stop_and_resume = [&](std::vector<std::string> stop, const std::string& why,
                             std::vector<std::string> resume) {
    Ok(std::move(stop));
    EXPECT_TRUE(
        WaitUntil([&] { return !ConditionIs(WorkloadOf("small"), "QuotaReserved", "True"); }, 5s))
        << WorkloadOf("small").dump(2);
    std::string said = Ok({"why", "small"});
    EXPECT_TRUE(Contains(said, why)) << said;
    Ok(std::move(resume));
    EXPECT_TRUE(WaitUntil([&] { return ConditionIs(WorkloadOf("small"), "Admitted", "True"); }));
  };
  stop_and_resume({"stop", "cq", "cq", "--drain"}, "evicted", {"resume", "cq", "cq"});
  stop_and_resume({"stop", "workload", "small"}, "State:         inactive",
                  {"resume", "workload", "small"});
}

TEST_F(KuotaE2eTest, BadInputGetsClearErrors) {
  struct Case {
    std::vector<std::string> args;
    int code;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"submit", "-q", "lq", "--cpu", "2x", "--", "true"}, 2, "--cpu: invalid quantity \"2x\""},
      {{"submit", "-q", "lq", "--memory", "-1Gi", "--", "true"},
       2,
       "--memory: must be greater than zero"},
      {{"submit", "-q", "lq"}, 2, "a command to run is required after --"},
      {{"submit", "--", "true"}, 106, "--queue is required"},
      {{"submit", "-q", "nope", "--", "true"},
       1,
       "--queue: LocalQueue \"nope\" not found in namespace \"default\"; its LocalQueues: lq"},
      {{"submit", "-q", "lq", "--priority", "urgent", "--", "true"},
       1,
       "--priority: WorkloadPriorityClass \"urgent\" not found; there are: high"},
      {{"submit", "-q", "lq", "--bogus", "--", "true"}, 109, "--bogus"},
      {{"get", "gizmos"}, 2, "unknown resource type \"gizmos\""},
      {{"get", "cq", "x", "-A"}, 2, "cannot be retrieved by name across all namespaces"},
      {{"get", "cq", "-o", "toml"}, 105, "toml"},
      {{"stop", "job-ish", "x"}, 2, "want workload (wl), clusterqueue (cq) or localqueue (lq)"},
      {{"stop", "wl", "x", "--drain"}, 2, "--drain applies to"},
      {{"logs", "nope"}, 1, "no Pod or Job named \"nope\""},
  };
  for (const Case& c : cases) {
    ProcessResult r = Kuota(c.args);
    std::string line;
    for (const std::string& a : c.args) line += " " + a;
    EXPECT_EQ(r.exit_code, c.code) << "kuota" << line << "\n" << r.err;
    EXPECT_TRUE(Contains(r.err, c.err)) << "kuota" << line << "\nstderr: " << r.err;
  }
}

TEST_F(KuotaE2eTest, FindsTheServer) {
  // kuotad's default kubeconfig, found through XDG_STATE_HOME.
  ProcessResult xdg = Kuota({"get", "cq"}, {{"KUOTA_SERVER", std::nullopt},
                                            {"KUBECONFIG", std::nullopt},
                                            {"XDG_STATE_HOME", dir_.path() + "/state"}});
  EXPECT_EQ(xdg.exit_code, 0) << xdg.err;
  EXPECT_TRUE(Contains(xdg.out, "cq")) << xdg.out;
  ProcessResult flag = Kuota({"get", "cq", "--kubeconfig", kuotad_->data_dir() + "/kubeconfig"},
                             {{"KUOTA_SERVER", std::nullopt},
                              {"KUBECONFIG", std::nullopt},
                              {"XDG_STATE_HOME", "/nonexistent"}});
  EXPECT_EQ(flag.exit_code, 0) << flag.err;
  ProcessResult server =
      Kuota({"get", "cq", "--server", kuotad_->url()}, {{"KUOTA_SERVER", "http://127.0.0.1:1"}});
  EXPECT_EQ(server.exit_code, 0) << server.err;
  ProcessResult none = Kuota({"get", "cq"}, {{"KUOTA_SERVER", std::nullopt},
                                             {"KUBECONFIG", std::nullopt},
                                             {"XDG_STATE_HOME", dir_.path() + "/nothing"}});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_TRUE(Contains(none.err, "Start the server with `kuotad`")) << none.err;
  kuotad_->Stop();
  ProcessResult down = Kuota({"get", "cq"});
  EXPECT_EQ(down.exit_code, 1);
  EXPECT_EQ(down.err, "kuota get: cannot reach kuotad at " + kuotad_->url() +
                          ": connection refused — start it with `kuotad`\n");
}

// A client given kuotad's CA trusts that CA alone (as kubectl trusts only its
// kubeconfig's), not the system's bundle as well.
TEST_F(KuotaE2eTest, ClientsTrustOnlyKuotadsCa) {
  auto r = http_->Get(std::string(kKueue));
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  X509_STORE* store = SSL_CTX_get_cert_store(http_->ssl_context());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(sk_X509_OBJECT_num(X509_STORE_get0_objects(store)), 1);
}

TEST_F(KuotaE2eTest, HelpOnEveryCommand) {
  for (const char* cmd : {"submit", "get", "describe", "why", "stop", "resume", "logs"}) {
    ProcessResult r = Kuota({cmd, "--help"});
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_TRUE(Contains(r.out, "Examples:")) << cmd << ":\n" << r.out;
    EXPECT_TRUE(Contains(r.out, "--server")) << cmd;
  }
  ProcessResult top = Kuota({"--help"});
  for (const char* cmd : {"submit", "get", "describe", "why", "stop", "resume", "logs"}) {
    EXPECT_TRUE(Contains(top.out, cmd)) << top.out;
  }
}

// kuotad runs admitted pods (the local runtime publishes a Node).
TEST_F(KuotaE2eTest, LogsOfASubmittedJob) {
  Json nodes = Get("/api/v1/nodes");
  ASSERT_TRUE(nodes.is_object() && !nodes["items"].empty())
      << "kuotad must publish its Node (the local runtime): " << nodes.dump();
  ProcessResult r = Kuota({"submit", "-q", "lq", "--name", "hello", "--cpu", "100m", "--", "sh",
                           "-c", "echo hello; sleep 1; echo world"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ProcessResult follow = Kuota({"logs", "-f", "hello"});
  EXPECT_EQ(follow.exit_code, 0) << follow.err;
  EXPECT_EQ(follow.out, "hello\nworld\n") << follow.err;
  ProcessResult again = Kuota({"logs", "hello"});
  EXPECT_EQ(again.out, "hello\nworld\n") << again.err;
  ProcessResult indexed =
      Kuota({"submit", "-q", "lq", "--name", "shards", "--cpu", "100m", "--parallelism", "2",
             "--indexed", "--", "sh", "-c", "echo index $JOB_COMPLETION_INDEX"});
  ASSERT_EQ(indexed.exit_code, 0) << indexed.err;
  ProcessResult shards = Kuota({"logs", "-f", "shards"});
  EXPECT_EQ(shards.exit_code, 0) << shards.err;
  EXPECT_TRUE(Contains(shards.out, "] index 0\n")) << shards.out;
  EXPECT_TRUE(Contains(shards.out, "] index 1\n")) << shards.out;
}

// MultiKueue's workers as `kuota get multikueueclusters` shows them: each
// one's Active condition as kuotad's MultiKueue controller writes it (a
// worker reached with kuotad's own kubeconfig, one whose Secret is missing),
// and the unfinished Workloads here that run there (status.clusterName,
// written through the status subresource); then describe and why of those
// Workloads.
TEST_F(KuotaE2eTest, GetMultiKueueClustersAndWhereWorkloadsRun) {
  const std::string v2 = "/apis/kueue.x-k8s.io/v1beta2";
  Create("/api/v1/namespaces",
         {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "kueue-system"}}}});
  Create("/api/v1/namespaces/kueue-system/secrets",
         {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", "self-kubeconfig"}, {"namespace", "kueue-system"}}},
          {"stringData", {{"kubeconfig", testing::ReadFile(kuotad_->kubeconfig())}}}});
  auto cluster = [](const std::string& name, const std::string& secret) {
    return Json{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                {"kind", "MultiKueueCluster"},
                {"metadata", {{"name", name}}},
                {"spec",
                 {{"clusterSource",
                   {{"kubeConfig", {{"location", secret}, {"locationType", "Secret"}}}}}}}};
  };
  Create(v2 + "/multikueueclusters", cluster("self", "self-kubeconfig"));
  Create(v2 + "/multikueueclusters", cluster("lost", "no-such-secret"));
  // Workloads of a LocalQueue that does not exist (nothing admits them here),
  // with the status MultiKueue writes: nominated, then admitted on a worker.
  // No MultiKueue AdmissionCheck exists, so kuotad's MultiKueue controller
  // leaves them alone (with one, it would clear the clusterName of a
  // Workload that holds no quota).
  auto status = [&](const std::string& name, const Json& patch) {
    const std::string path = v2 + "/namespaces/default/workloads/" + name + "/status";
    auto res = http_->Patch(path, Json{{"status", patch}}.dump(), "application/merge-patch+json");
    ASSERT_TRUE(res) << path;
    ASSERT_EQ(res->status, 200) << path << ": " << res->body;
  };
  auto dispatch = [&](const std::string& name, const std::vector<std::string>& nominated,
                      const std::string& on) {
    Create(v2 + "/namespaces/default/workloads",
           {{"apiVersion", "kueue.x-k8s.io/v1beta2"},
            {"kind", "Workload"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec",
             {{"queueName", "nowhere"},
              {"podSets",
               Json::array(
                   {{{"name", "main"},
                     {"count", 1},
                     {"template",
                      {{"spec",
                        {{"containers", Json::array({{{"name", "c"}, {"image", "x"}}})}}}}}}})}}}});
    status(name, {{"nominatedClusterNames", nominated}});
    if (on.empty()) return;
    status(name, {{"nominatedClusterNames", nullptr},
                  {"clusterName", on},
                  {"admissionChecks",
                   Json::array({{{"name", "mk"},
                                 {"state", "Ready"},
                                 {"lastTransitionTime", "2026-01-01T00:00:00Z"},
                                 {"message", "The workload was admitted on \"" + on + "\""}}})}});
  };
  dispatch("on-self", {"self", "lost"}, "self");
  dispatch("done-on-self", {"self"}, "self");
  status("done-on-self",
         {{"conditions", Json::array({{{"type", "Finished"},
                                       {"status", "True"},
                                       {"reason", "Succeeded"},
                                       {"message", "done"},
                                       {"lastTransitionTime", "2026-01-01T00:00:00Z"}}})}});
  dispatch("on-lost", {"lost"}, "lost");
  dispatch("waiting", {"self", "lost"}, "");

  // The controller writes both conditions within a couple of seconds.
  std::string out;
  ASSERT_TRUE(WaitUntil(
      [&] {
        out = Kuota({"get", "mkc"}).out;
        return Contains(out, "BadConfig") && Contains(out, "True");
      },
      10s))
      << out << kuotad_->log();
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) lines.push_back(line.substr(0, line.rfind(' ')));
  ASSERT_EQ(lines.size(), 3u) << out;
  EXPECT_EQ(lines[0], "NAME   CONNECTED   REASON      WORKLOADS  ") << out;
  EXPECT_EQ(lines[1], "lost   False       BadConfig   1          ") << out;
  EXPECT_EQ(lines[2], "self   True                    1          ") << out;
  std::string wide = Ok({"get", "multikueueclusters", "-o", "wide"});
  EXPECT_TRUE(Contains(wide, "MESSAGE")) << wide;
  EXPECT_TRUE(Contains(wide, "Connected")) << wide;
  EXPECT_TRUE(Contains(wide, "no-such-secret")) << wide;
  std::string one = Ok({"get", "multikueuecluster", "self", "--no-headers"});
  EXPECT_EQ(one.rfind("self   True", 0), 0u) << one;
  EXPECT_FALSE(Contains(one, "lost")) << one;

  std::string described = Ok({"describe", "workload", "on-self"});
  EXPECT_TRUE(Contains(described,
                       "MultiKueue:\n"
                       "  Runs on:        self (the worker that admitted it)\n"
                       "  Check:          mk (Ready): The workload was admitted on \"self\"\n"))
      << described;
  described = Ok({"describe", "workload", "waiting"});
  EXPECT_TRUE(
      Contains(described, "  Dispatched to:  self, lost (waiting for one of them to admit it)\n"))
      << described;
  std::string why = Ok({"why", "on-self"});
  EXPECT_TRUE(Contains(why, "Runs on:       worker cluster self (MultiKueue)")) << why;
}

}  // namespace
}  // namespace kuota::cli
