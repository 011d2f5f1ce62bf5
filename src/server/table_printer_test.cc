// Table output: kubectl's durations, each kind's columns and cells, and Table
// lists over HTTP.
#include <string>
#include <vector>

#include "base/clock.h"
#include "server/table_printer.h"
#include "server/test_server.h"

namespace kuota::server {
namespace {

using testing::ClusterQueue;
using testing::kKueue;
using testing::Reply;
using testing::ServerTest;

const Time kNow = Time::FromSeconds(1'767'225'600);  // 2026-01-01T00:00:00Z

Json At(const char* kind_json) { return Json::parse(kind_json); }

std::vector<std::string> ColumnNames(const ResourceInfo& r, bool wide) {
  std::vector<std::string> names;
  for (const TableColumn& c : TableColumns(r)) {
    if (wide || c.priority == 0) names.push_back(c.name);
  }
  return names;
}

const ResourceInfo& Res(const std::string& group, const std::string& plural) {
  const ResourceInfo* r = FindResource(group, plural);
  EXPECT_NE(r, nullptr) << plural;
  return *r;
}

TEST(HumanDurationTest, MatchesKubectl) {
  struct Case {
    int64_t seconds;
    const char* want;
  };
  for (const Case& c : std::vector<Case>{{0, "0s"},
                                         {5, "5s"},
                                         {119, "119s"},
                                         {120, "2m"},
                                         {330, "5m30s"},
                                         {600, "10m"},
                                         {3 * 3600, "3h"},
                                         {3 * 3600 + 600, "3h10m"},
                                         {20 * 3600, "20h"},
                                         {4 * 86400, "4d"},
                                         {4 * 86400 + 3600, "4d1h"},
                                         {30 * 86400, "30d"},
                                         {800 * 86400, "2y70d"}}) {
    EXPECT_EQ(HumanDuration(Duration{c.seconds * 1000}), c.want) << c.seconds;
  }
  EXPECT_EQ(HumanDuration(Duration{-5000}), "<invalid>");
}

TEST(TableColumnsTest, KueueAndBuiltinKinds) {
  const std::string kueue = "kueue.x-k8s.io";
  EXPECT_EQ(ColumnNames(Res(kueue, "clusterqueues"), false),
            (std::vector<std::string>{"Name", "Cohort", "Pending Workloads", "Age"}));
  EXPECT_EQ(ColumnNames(Res(kueue, "clusterqueues"), true),
            (std::vector<std::string>{"Name", "Cohort", "Strategy", "Pending Workloads",
                                      "Admitted Workloads", "Age"}));
  EXPECT_EQ(ColumnNames(Res(kueue, "localqueues"), false),
            (std::vector<std::string>{"Name", "ClusterQueue", "Pending Workloads",
                                      "Admitted Workloads", "Age"}));
  EXPECT_EQ(
      ColumnNames(Res(kueue, "workloads"), false),
      (std::vector<std::string>{"Name", "Queue", "Reserved in", "Admitted", "Finished", "Age"}));
  for (const char* plural : {"resourceflavors", "cohorts", "admissionchecks"}) {
    EXPECT_EQ(ColumnNames(Res(kueue, plural), true), (std::vector<std::string>{"Name", "Age"}));
  }
  EXPECT_EQ(ColumnNames(Res(kueue, "workloadpriorityclasses"), false),
            (std::vector<std::string>{"Name", "Value", "Age"}));
  EXPECT_EQ(ColumnNames(Res("batch", "jobs"), false),
            (std::vector<std::string>{"Name", "Status", "Completions", "Duration", "Age"}));
  EXPECT_EQ(ColumnNames(Res("batch", "jobs"), true),
            (std::vector<std::string>{"Name", "Status", "Completions", "Duration", "Age",
                                      "Containers", "Images", "Selector"}));
  EXPECT_EQ(ColumnNames(Res("", "pods"), false),
            (std::vector<std::string>{"Name", "Ready", "Status", "Restarts", "Age"}));
  EXPECT_EQ(ColumnNames(Res("", "namespaces"), false),
            (std::vector<std::string>{"Name", "Status", "Age"}));
  EXPECT_EQ(ColumnNames(Res("", "events"), false),
            (std::vector<std::string>{"Last Seen", "Type", "Reason", "Object", "Message"}));
  EXPECT_EQ(ColumnNames(Res("", "nodes"), false),
            (std::vector<std::string>{"Name", "Status", "Roles", "Age", "Version"}));
  std::vector<std::string> pc = ColumnNames(Res("scheduling.k8s.io", "priorityclasses"), false);
  EXPECT_EQ(std::vector<std::string>(pc.begin(), pc.begin() + 4),
            (std::vector<std::string>{"Name", "Value", "Global-Default", "Age"}));
}

TEST(TableCellsTest, Cells) {
  const std::string kueue = "kueue.x-k8s.io";
  EXPECT_EQ(TableCells(Res(kueue, "clusterqueues"), At(R"({
      "metadata":{"name":"cq","creationTimestamp":"2025-12-31T23:55:00Z"},
      "spec":{"cohort":"all","queueingStrategy":"BestEffortFIFO"},
      "status":{"pendingWorkloads":3,"admittedWorkloads":1}})"),
                       kNow),
            Json::parse(R"(["cq","all","BestEffortFIFO",3,1,"5m"])"));
  // Absent values are null (kubectl prints nothing).
  EXPECT_EQ(TableCells(Res(kueue, "clusterqueues"), At(R"({"metadata":{"name":"cq"}})"), kNow),
            Json::parse(R"(["cq",null,null,null,null,"<unknown>"])"));
  EXPECT_EQ(TableCells(Res(kueue, "workloads"), At(R"({
      "metadata":{"name":"w","creationTimestamp":"2025-12-31T22:00:00Z"},
      "spec":{"queueName":"lq"},
      "status":{"admission":{"clusterQueue":"cq"},
                "conditions":[{"type":"Admitted","status":"True"},{"type":"QuotaReserved","status":"True"}]}})"),
                       kNow),
            Json::parse(R"(["w","lq","cq","True",null,"120m"])"));
  EXPECT_EQ(TableCells(Res("batch", "jobs"), At(R"({
      "metadata":{"name":"j","creationTimestamp":"2025-12-31T23:00:00Z"},
      "spec":{"completions":3,"selector":{"matchLabels":{"b":"2","a":"1"}},
              "template":{"spec":{"containers":[{"name":"c1","image":"i1"},{"name":"c2","image":"i2"}]}}},
      "status":{"succeeded":1,"startTime":"2025-12-31T23:58:00Z",
                "conditions":[{"type":"Suspended","status":"True"}]}})"),
                       kNow),
            Json::parse(R"(["j","Suspended","1/3","2m","60m","c1,c2","i1,i2","a=1,b=2"])"));
  EXPECT_EQ(TableCells(Res("batch", "jobs"), At(R"({"metadata":{"name":"j"},
      "status":{"conditions":[{"type":"Complete","status":"True"}]}})"),
                       kNow)[1],
            "Complete");
  EXPECT_EQ(
      TableCells(Res("", "pods"), At(R"({
      "metadata":{"name":"p","creationTimestamp":"2025-12-31T23:59:50Z"},
      "spec":{"containers":[{"name":"a"},{"name":"b"}],"nodeName":"n1"},
      "status":{"phase":"Running","podIP":"10.0.0.1","containerStatuses":[
        {"name":"a","ready":true,"restartCount":2,"state":{"running":{}}},
        {"name":"b","ready":false,"restartCount":0,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}})"),
                 kNow),
      Json::parse(R"(["p","1/2","CrashLoopBackOff","2","10s","10.0.0.1","n1","<none>","<none>"])"));
  EXPECT_EQ(TableCells(Res("", "events"), At(R"({
      "metadata":{"name":"w.123"},"type":"Normal","reason":"Admitted",
      "involvedObject":{"kind":"Workload","name":"w","namespace":"default"},
      "message":"Admitted by ClusterQueue cq\n","lastTimestamp":"2025-12-31T23:59:00Z",
      "firstTimestamp":"2025-12-31T23:50:00Z","count":2,"source":{"component":"kuota"}})"),
                       kNow),
            Json::parse(R"(["60s","Normal","Admitted","workload/w","","kuota",
                            "Admitted by ClusterQueue cq","10m",2,"w.123"])"));
  EXPECT_EQ(TableCells(Res("", "nodes"), At(R"({
      "metadata":{"name":"n","labels":{"node-role.kubernetes.io/control-plane":""}},
      "spec":{"unschedulable":true},
      "status":{"conditions":[{"type":"Ready","status":"True"}],"nodeInfo":{"kubeletVersion":"v1.32.0"}}})"),
                       kNow)
                .at(1),
            "Ready,SchedulingDisabled");
  EXPECT_EQ(
      TableCells(Res("scheduling.k8s.io", "priorityclasses"),
                 At(R"({"metadata":{"name":"high"},"value":1000,"globalDefault":true})"), kNow)
          .at(2),
      true);
}

TEST(TableCellsTest, ConfigMapsAndSecretsAsKube) {
  EXPECT_EQ(ColumnNames(Res("", "configmaps"), true),
            (std::vector<std::string>{"Name", "Data", "Age"}));
  EXPECT_EQ(ColumnNames(Res("", "secrets"), true),
            (std::vector<std::string>{"Name", "Type", "Data", "Age"}));
  // DATA counts data and binaryData keys.
  EXPECT_EQ(TableCells(Res("", "configmaps"), At(R"({
      "metadata":{"name":"app","creationTimestamp":"2025-12-31T23:59:00Z"},
      "data":{"a":"1","b":"2"},"binaryData":{"c":"AA=="}})"),
                       kNow),
            Json::parse(R"(["app",3,"60s"])"));
  EXPECT_EQ(TableCells(Res("", "configmaps"), At(R"({"metadata":{"name":"empty"}})"), kNow),
            Json::parse(R"(["empty",0,"<unknown>"])"));
  EXPECT_EQ(TableCells(Res("", "secrets"), At(R"({
      "metadata":{"name":"tls","creationTimestamp":"2025-12-31T23:00:00Z"},
      "type":"kubernetes.io/tls","data":{"tls.crt":"QQ==","tls.key":"Qg=="}})"),
                       kNow),
            Json::parse(R"(["tls","kubernetes.io/tls",2,"60m"])"));
}

using TableHttpTest = ServerTest;

TEST_F(TableHttpTest, ListAndGetAsTable) {
  ASSERT_EQ(Post(std::string(kKueue) + "/clusterqueues", ClusterQueue("cq", "all")).status, 201);
  const std::string accept =
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta."
      "k8s.io,application/json";
  Reply list = Get(std::string(kKueue) + "/clusterqueues?limit=500", accept);
  ASSERT_EQ(list.status, 200) << list.raw;
  EXPECT_EQ(list.body["kind"], "Table");
  EXPECT_EQ(list.body["apiVersion"], "meta.k8s.io/v1");
  EXPECT_FALSE(list.body["metadata"]["resourceVersion"].get<std::string>().empty());
  ASSERT_EQ(list.body["rows"].size(), 1u);
  EXPECT_EQ(list.body["rows"][0]["cells"][0], "cq");
  EXPECT_EQ(list.body["rows"][0]["object"]["metadata"]["name"], "cq");
  EXPECT_EQ(list.body["columnDefinitions"][2]["priority"], 1);

  Reply full = Get(std::string(kKueue) + "/clusterqueues?includeObject=Object", accept);
  EXPECT_EQ(full.body["rows"][0]["object"]["kind"], "ClusterQueue");
  Reply none = Get(std::string(kKueue) + "/clusterqueues?includeObject=None", accept);
  EXPECT_FALSE(none.body["rows"][0].contains("object"));

  Reply one = Get(std::string(kKueue) + "/clusterqueues/cq", accept);
  EXPECT_EQ(one.body["kind"], "Table");
  EXPECT_EQ(one.body["rows"][0]["cells"][1], "all");
}

}  // namespace
}  // namespace kuota::server
