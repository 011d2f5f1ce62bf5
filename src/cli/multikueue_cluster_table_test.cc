// `kuota get multikueueclusters`' table: connected or why not, and the
// unfinished Workloads each worker runs ("?" when they cannot be listed).
#include "cli/multikueue_cluster_table.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/output.h"

namespace kuota::cli {
namespace {

using Json = nlohmann::json;

Json MkcClusters() {
  return Json::parse(R"([
    {"metadata": {"name": "w1", "creationTimestamp": "2026-01-01T00:00:00Z"},
     "status": {"conditions": [{"type": "Active", "status": "True", "reason": "Active",
                                "message": "Connected"}]}},
    {"metadata": {"name": "w2", "creationTimestamp": "2026-01-01T00:00:00Z"},
     "status": {"conditions": [{"type": "Active", "status": "False", "reason": "BadConfig",
                                "message": "load client config failed"}]}},
    {"metadata": {"name": "w3", "creationTimestamp": "2026-01-01T00:00:00Z"}}])");
}

Json MkcWorkloads() {
  return Json::parse(R"([
    {"metadata": {"name": "a"}, "status": {"clusterName": "w1"}},
    {"metadata": {"name": "b"}, "status": {"clusterName": "w1"}},
    {"metadata": {"name": "done"}, "status": {"clusterName": "w1",
      "conditions": [{"type": "Finished", "status": "True"}]}},
    {"metadata": {"name": "waiting"}, "status": {"nominatedClusterNames": ["w1", "w2"]}},
    {"metadata": {"name": "c"}, "status": {"clusterName": "w2"}}])");
}

const Time kMkcNow = ParseRfc3339("2026-01-01T00:05:00Z").value();

TEST(MultiKueueClusterTableTest, ConnectedReasonAndWorkloads) {
  Json table = MultiKueueClusterTable(MkcClusters(), MkcWorkloads(), kMkcNow);
  EXPECT_EQ(FormatTable(table, {}),
            "NAME   CONNECTED   REASON      WORKLOADS   AGE\n"
            "w1     True                    2           5m\n"
            "w2     False       BadConfig   1           5m\n"
            "w3                             0           5m\n");
  TableFormat wide;
  wide.wide = true;
  EXPECT_EQ(FormatTable(table, wide),
            "NAME   CONNECTED   REASON      WORKLOADS   AGE   MESSAGE\n"
            "w1     True                    2           5m    Connected\n"
            "w2     False       BadConfig   1           5m    load client config failed\n"
            "w3                             0           5m    \n");
}

TEST(MultiKueueClusterTableTest, WorkloadsNotListable) {
  Json table = MultiKueueClusterTable(MkcClusters(), std::nullopt, kMkcNow);
  TableFormat plain;
  plain.headers = false;
  EXPECT_EQ(FormatTable(table, plain),
            "w1    True                ?     5m\n"
            "w2    False   BadConfig   ?     5m\n"
            "w3                        ?     5m\n");
}

}  // namespace
}  // namespace kuota::cli
