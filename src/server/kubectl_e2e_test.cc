// End to end with the real kubectl (found on PATH; the test fails when it is
// missing): apply Kueue manifests and a Job with default (strict) validation,
// get in every output format, describe, label, patch, watch, delete,
// api-resources and kubeconfig use, against an in-process server.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <thread>

#include "server/kubeconfig.h"
#include "server/test_server.h"
#include "testing/find_on_path.h"

namespace kuota::server {
namespace {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

using kuota::testing::FindOnPath;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// `text` contains each of `parts`.
void ExpectContains(const std::string& text, std::initializer_list<const char*> parts) {
  for (const char* part : parts) EXPECT_TRUE(Contains(text, part)) << part << " in:\n" << text;
}

constexpr const char* kManifests = R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: default-flavor
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: cluster-queue
spec:
  namespaceSelector: {}
  queueingStrategy: BestEffortFIFO
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: default-flavor
      resources:
      - name: cpu
        nominalQuota: 9
      - name: memory
        nominalQuota: 36Gi
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  namespace: default
  name: user-queue
spec:
  clusterQueue: cluster-queue
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata:
  name: high
value: 1000
description: important
---
apiVersion: batch/v1
kind: Job
metadata:
  name: sample-job
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  parallelism: 3
  completions: 3
  suspend: true
  template:
    spec:
      containers:
      - name: dummy-job
        image: registry.k8s.io/e2e-test-images/agnhost:2.53
        args: ["entrypoint-tester", "hello", "world"]
        env:
        - name: A
          value: "1"
        resources:
          requests:
            cpu: 1
            memory: "200Mi"
      restartPolicy: Never
)";

class KubectlE2eTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    kubectl_ = FindOnPath("kubectl");
    ASSERT_FALSE(kubectl_.empty())
        << "kubectl was not found on PATH: this end-to-end test drives the real kubectl "
           "(v1.32) and cannot run without it";
    server_url_ = "http://127.0.0.1:" + std::to_string(port());
  }

  // Runs a shell command line; stdout and stderr are captured apart.
  CommandResult Shell(const std::string& command) {
    std::string err_file = dir_ + "/stderr-" + std::to_string(++commands_) + ".txt";
    CommandResult result;
    FILE* pipe = popen((command + " 2>" + err_file).c_str(), "r");
    if (pipe == nullptr) return result;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) result.out.append(buf, n);
    int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.err = ReadFile(err_file);
    return result;
  }

  // kubectl with only --server (no kubeconfig: HOME is the test directory).
  std::string Kubectl() const {
    return "env -u KUBECONFIG HOME=" + dir_ + " " + kubectl_ + " --server=" + server_url_ +
           " --cache-dir=" + dir_ + "/cache --request-timeout=30s";
  }
  CommandResult Run(const std::string& args) { return Shell(Kubectl() + " " + args); }

  // Runs kubectl and expects success without anything on stderr.
  std::string Ok(const std::string& args) {
    CommandResult r = Run(args);
    EXPECT_EQ(r.exit_code, 0) << "kubectl " << args << "\nstdout:\n"
                              << r.out << "\nstderr:\n"
                              << r.err;
    EXPECT_EQ(r.err, "") << "kubectl " << args << " wrote to stderr";
    return r.out;
  }

  std::string kubectl_;
  std::string server_url_;
  int commands_ = 0;
};

TEST_F(KubectlE2eTest, Workflow) {
  // Discovery.
  std::string resources = Ok("api-resources");
  // Kueue's kinds are listed in their preferred version, v1beta2.
  ExpectContains(resources, {"clusterqueues", "kueue.x-k8s.io/v1beta2"});
  std::string kueue_resources = Ok("api-resources --api-group=kueue.x-k8s.io -o name");
  EXPECT_TRUE(Contains(kueue_resources, "workloads.kueue.x-k8s.io")) << kueue_resources;
  EXPECT_TRUE(
      Contains(Ok("api-resources --categories=kueue -o name"), "localqueues.kueue.x-k8s.io"));
  EXPECT_TRUE(Contains(Ok("version"), "Server Version: v1.32.0-kuota"));

  // apply with default (strict) validation, twice.
  WriteFile(dir_ + "/kueue.yaml", kManifests);
  std::string applied = Ok("apply -f " + dir_ + "/kueue.yaml");
  ExpectContains(applied, {"resourceflavor.kueue.x-k8s.io/default-flavor created",
                           "clusterqueue.kueue.x-k8s.io/cluster-queue created",
                           "localqueue.kueue.x-k8s.io/user-queue created",
                           "workloadpriorityclass.kueue.x-k8s.io/high created",
                           "job.batch/sample-job created"});
  std::string unchanged = Ok("apply -f " + dir_ + "/kueue.yaml");
  EXPECT_TRUE(Contains(unchanged, "clusterqueue.kueue.x-k8s.io/cluster-queue unchanged"))
      << unchanged;

  std::string modified = kManifests;
  modified.replace(modified.find("  queueingStrategy: BestEffortFIFO"),
                   std::string("  queueingStrategy: BestEffortFIFO").size(),
                   "  cohort: team\n  queueingStrategy: StrictFIFO");
  modified.replace(modified.find("          value: \"1\""),
                   std::string("          value: \"1\"").size(),
                   "          value: \"1\"\n        - name: B\n          value: \"2\"");
  WriteFile(dir_ + "/kueue2.yaml", modified);
  std::string reapplied = Ok("apply -f " + dir_ + "/kueue2.yaml");
  EXPECT_TRUE(Contains(reapplied, "clusterqueue.kueue.x-k8s.io/cluster-queue configured"))
      << reapplied;
  EXPECT_TRUE(Contains(reapplied, "job.batch/sample-job configured")) << reapplied;
  Reply cq = Get(std::string(kKueue) + "/clusterqueues/cluster-queue");
  EXPECT_EQ(cq.body["spec"]["cohort"], "team");
  EXPECT_EQ(cq.body["spec"]["queueingStrategy"], "StrictFIFO");
  Reply job = Get("/apis/batch/v1/namespaces/default/jobs/sample-job");
  EXPECT_EQ(job.body["spec"]["template"]["spec"]["containers"][0]["env"].size(), 2u) << job.raw;

  // get, in each format.
  std::string table = Ok("get cq");
  ExpectContains(table, {"NAME", "COHORT", "PENDING WORKLOADS"});
  EXPECT_FALSE(Contains(table, "STRATEGY")) << table;
  EXPECT_TRUE(Contains(table, "cluster-queue   team")) << table;
  std::string wide = Ok("get clusterqueues -o wide");
  ExpectContains(wide, {"STRATEGY", "StrictFIFO"});
  std::string yaml = Ok("get cq cluster-queue -o yaml");
  ExpectContains(yaml, {"kind: ClusterQueue", "nominalQuota: 36Gi"});
  Json as_json = Json::parse(Ok("get lq -o json"));
  EXPECT_EQ(as_json["kind"], "List");
  ASSERT_EQ(as_json["items"].size(), 1u);
  EXPECT_EQ(as_json["items"][0]["spec"]["clusterQueue"], "cluster-queue");
  // "queues" is Volcano's Queue's plural, which kubectl prefers to LocalQueue's
  // short name (as in a cluster running both); the group picks LocalQueue.
  EXPECT_TRUE(Contains(Ok("get queues.kueue.x-k8s.io"), "user-queue"));
  EXPECT_TRUE(Contains(Run("get queues").err, "No resources found"));
  EXPECT_TRUE(Contains(Ok("get lq -A"), "NAMESPACE"));
  EXPECT_TRUE(Contains(Ok("get rf -o name"), "resourceflavor.kueue.x-k8s.io/default-flavor"));
  EXPECT_TRUE(Contains(Ok("get workloadpriorityclasses"), "1000"));
  std::string jobs = Ok("get jobs -o wide");
  ExpectContains(jobs, {"COMPLETIONS", "0/3", "dummy-job"});
  EXPECT_TRUE(Contains(Ok("get kueue"), "clusterqueue.kueue.x-k8s.io/cluster-queue"));
  EXPECT_TRUE(Contains(Ok("get all"), "job.batch/sample-job"));
  CommandResult none = Run("get wl");
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_TRUE(Contains(none.err, "No resources found in default namespace.")) << none.err;
  EXPECT_TRUE(Contains(Ok("get ns"), "kube-system"));

  // describe.
  std::string described = Ok("describe cq cluster-queue");
  ExpectContains(described, {"cluster-queue", "ClusterQueue", "Events:"});
  std::string described_job = Ok("describe job sample-job");
  ExpectContains(described_job, {"sample-job", "Parallelism:"});
  EXPECT_TRUE(Contains(Ok("describe lq user-queue"), "user-queue"));

  // label and patch.
  EXPECT_TRUE(Contains(Ok("label cq cluster-queue team=a"),
                       "clusterqueue.kueue.x-k8s.io/cluster-queue labeled"));
  EXPECT_TRUE(Contains(Ok("get cq -l team=a"), "cluster-queue"));
  EXPECT_FALSE(Contains(Run("get cq -l team=b -o name").out, "cluster-queue"));
  EXPECT_TRUE(
      Contains(Ok("patch cq cluster-queue --type=merge -p '{\"spec\":{\"cohortName\":\"c2\"}}'"),
               "patched"));  // kubectl speaks v1beta2, the preferred version
  EXPECT_EQ(Get(std::string(kKueue) + "/clusterqueues/cluster-queue").body["spec"]["cohort"], "c2");
  EXPECT_TRUE(Contains(Ok("patch job sample-job -p '{\"metadata\":{\"labels\":{\"x\":\"y\"}}}'"),
                       "patched"));
  EXPECT_TRUE(
      Contains(Ok("patch cq cluster-queue --type=json "
                  "-p '[{\"op\":\"replace\",\"path\":\"/spec/cohortName\",\"value\":\"c3\"}]'"),
               "patched"));
  CommandResult smp = Run("patch cq cluster-queue -p '{\"spec\":{\"cohort\":\"x\"}}'");
  EXPECT_NE(smp.exit_code, 0);
  EXPECT_TRUE(Contains(smp.err, "UnsupportedMediaType") || Contains(smp.err, "not supported"))
      << smp.err;

  // Server errors as kubectl prints them.
  CommandResult missing = Run("get cq nope");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_TRUE(Contains(missing.err,
                       "Error from server (NotFound): clusterqueues.kueue.x-k8s.io \"nope\" not "
                       "found"))
      << missing.err;
  WriteFile(
      dir_ + "/bad.yaml",
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata:\n  name: Bad_Name\n");
  CommandResult bad = Run("apply -f " + dir_ + "/bad.yaml");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_TRUE(Contains(bad.err, "is invalid: metadata.name: Invalid value: \"Bad_Name\""))
      << bad.err;

  // Namespaces.
  EXPECT_TRUE(Contains(Ok("create namespace team-a"), "namespace/team-a created"));
  EXPECT_TRUE(Contains(Ok("create priorityclass high --value=1000 --description=top"),
                       "priorityclass.scheduling.k8s.io/high created"));
  EXPECT_TRUE(Contains(Ok("get pc"), "1000"));
  WriteFile(dir_ + "/lq.yaml",
            "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: lq\n"
            "spec:\n  clusterQueue: cluster-queue\n");
  EXPECT_TRUE(Contains(Ok("-n team-a create -f " + dir_ + "/lq.yaml --dry-run=server -o name"),
                       "localqueue.kueue.x-k8s.io/lq"));
  EXPECT_TRUE(Contains(Ok("-n team-a apply -f " + dir_ + "/lq.yaml"),
                       "localqueue.kueue.x-k8s.io/lq created"));
  CommandResult wrong_ns = Run("-n ghost get lq");
  EXPECT_TRUE(Contains(wrong_ns.err, "No resources found in ghost namespace.")) << wrong_ns.err;

  // delete.
  EXPECT_TRUE(
      Contains(Ok("delete lq user-queue"), "localqueue.kueue.x-k8s.io \"user-queue\" deleted"));
  std::string deleted = Ok("delete -f " + dir_ + "/kueue2.yaml --ignore-not-found");
  EXPECT_TRUE(Contains(deleted, "clusterqueue.kueue.x-k8s.io \"cluster-queue\" deleted"))
      << deleted;
  EXPECT_TRUE(Contains(deleted, "job.batch \"sample-job\" deleted")) << deleted;
  EXPECT_EQ(Get(std::string(kKueue) + "/clusterqueues").body["items"].size(), 0u);
  EXPECT_TRUE(Contains(Ok("delete namespace team-a"), "namespace \"team-a\" deleted"));
}

TEST_F(KubectlE2eTest, WatchPrintsRowsAsChangesHappen) {
  ASSERT_EQ(Post(std::string(kKueue) + "/clusterqueues", ClusterQueue("first", "all")).status, 201);
  CommandResult watched;
  std::thread watcher([&] { watched = Shell("timeout 6 " + Kubectl() + " get cq -w"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  ASSERT_EQ(Post(std::string(kKueue) + "/clusterqueues", ClusterQueue("second", "all")).status,
            201);
  Reply patched =
      MergePatch(std::string(kKueue) + "/clusterqueues/first", R"({"spec":{"cohort":"changed"}})");
  ASSERT_EQ(patched.status, 200);
  watcher.join();
  EXPECT_EQ(watched.exit_code, 124) << "timeout ends the watch\n" << watched.err;
  EXPECT_EQ(watched.err, "");
  EXPECT_TRUE(Contains(watched.out, "COHORT")) << watched.out;
  EXPECT_TRUE(Contains(watched.out, "first")) << watched.out;
  EXPECT_TRUE(Contains(watched.out, "all")) << watched.out;
  EXPECT_TRUE(Contains(watched.out, "second")) << watched.out;
  EXPECT_TRUE(Contains(watched.out, "changed")) << watched.out;
}

TEST_F(KubectlE2eTest, KubeconfigFile) {
  WriteFile(dir_ + "/kubeconfig", KubeconfigYaml(server_url_));
  CommandResult r = Shell("env -u KUBECONFIG HOME=" + dir_ + " " + kubectl_ + " --kubeconfig " +
                          dir_ + "/kubeconfig --cache-dir=" + dir_ + "/cache get ns default");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "Active")) << r.out;
  EXPECT_EQ(r.err, "");
  CommandResult ctx = Shell(kubectl_ + " --kubeconfig " + dir_ + "/kubeconfig config view -o json");
  Json config = Json::parse(ctx.out, nullptr, false);
  ASSERT_TRUE(config.is_object()) << ctx.out << ctx.err;
  EXPECT_EQ(config["clusters"][0]["cluster"]["server"], server_url_);
  EXPECT_EQ(config["contexts"][0]["context"]["namespace"], "default");
}

}  // namespace
}  // namespace kuota::server
