// Table alignment as kubectl prints it, and JSON -> YAML that reads back as
// the same values.
#include "cli/output.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace kuota::cli {
namespace {

using Json = nlohmann::json;

Json Table() {
  return Json::parse(R"({
    "kind": "Table", "apiVersion": "meta.k8s.io/v1", "columnDefinitions": [
      {"name": "Name", "type": "string", "format": "name", "priority": 0},
      {"name": "Cohort", "type": "string", "format": "", "priority": 0},
      {"name": "Strategy", "type": "string", "format": "", "priority": 1},
      {"name": "Pending Workloads", "type": "integer", "format": "", "priority": 0}],
    "rows": [
      {"cells": ["cluster-queue-a", "team", "BestEffortFIFO", 3],
       "object": {"metadata": {"name": "cluster-queue-a", "namespace": "ns-1"}}},
      {"cells": ["b", null, "StrictFIFO", 0],
       "object": {"metadata": {"name": "b", "namespace": "n"}}}]})");
}

TEST(FormatTableTest, AlignsLikeKubectl) {
  EXPECT_EQ(FormatTable(Table(), {}),
            "NAME              COHORT   PENDING WORKLOADS\n"
            "cluster-queue-a   team     3\n"
            "b                          0\n");
}

TEST(FormatTableTest, WideNamespacesAndNoHeaders) {
  TableFormat wide;
  wide.wide = true;
  wide.with_namespace = true;
  EXPECT_EQ(FormatTable(Table(), wide),
            "NAMESPACE   NAME              COHORT   STRATEGY         PENDING WORKLOADS\n"
            "ns-1        cluster-queue-a   team     BestEffortFIFO   3\n"
            "n           b                          StrictFIFO       0\n");
  TableFormat bare;
  bare.headers = false;
  EXPECT_EQ(FormatTable(Table(), bare),
            "cluster-queue-a   team   3\n"
            "b                        0\n");
}

TEST(AlignColumnsTest, MinimumWidthAndIndent) {
  EXPECT_EQ(AlignColumns({{"A", "B", "C"}, {"x", "yy", "z"}}, "  "),
            "  A     B     C\n"
            "  x     yy    z\n");
}

TEST(ToYamlTest, RoundTripsTypes) {
  Json doc = {{"name", "x"},
              {"count", 3},
              {"ratio", 0.5},
              {"flag", true},
              {"nothing", nullptr},
              {"looks_bool", "true"},
              {"looks_number", "123"},
              {"looks_null", "null"},
              {"looks_time", "2026-01-01T00:00:00Z"},
              {"quantity", "500m"},
              {"empty", ""},
              {"multi", "a\nb\n"},
              {"colon", "a: b"},
              {"list", {1, "two", Json::object()}},
              {"map", Json::object()},
              {"nested", {{"k", Json::array()}}}};
  std::string yaml = ToYaml(doc);
  YAML::Node back = YAML::Load(yaml);
  EXPECT_EQ(back["name"].as<std::string>(), "x");
  EXPECT_EQ(back["count"].as<int>(), 3);
  EXPECT_EQ(back["flag"].as<bool>(), true);
  EXPECT_TRUE(back["nothing"].IsNull());
  EXPECT_EQ(back["looks_bool"].Tag(), "!") << yaml;  // quoted: a string
  EXPECT_EQ(back["looks_bool"].as<std::string>(), "true");
  EXPECT_EQ(back["looks_number"].Tag(), "!") << yaml;
  EXPECT_EQ(back["looks_null"].as<std::string>(), "null");
  EXPECT_FALSE(back["looks_null"].IsNull());
  EXPECT_EQ(back["empty"].as<std::string>(), "");
  EXPECT_NE(yaml.find("looks_time: \"2026-01-01T00:00:00Z\""), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("quantity: 500m\n"), std::string::npos) << yaml;
  EXPECT_EQ(back["multi"].as<std::string>(), "a\nb\n");
  EXPECT_EQ(back["colon"].as<std::string>(), "a: b");
  EXPECT_EQ(back["list"][1].as<std::string>(), "two");
  EXPECT_TRUE(back["map"].IsMap());
  EXPECT_EQ(back["map"].size(), 0u);
  EXPECT_NE(yaml.find("count: 3\n"), std::string::npos) << yaml;
}

TEST(AgeSinceTest, ShortAges) {
  Time now = *ParseRfc3339("2026-01-01T01:00:00Z");
  EXPECT_EQ(AgeSince("2026-01-01T00:59:30Z", now), "30s");
  EXPECT_EQ(AgeSince("2026-01-01T00:00:00Z", now), "60m");
  EXPECT_EQ(AgeSince("garbage", now), "<unknown>");
}

}  // namespace
}  // namespace kuota::cli
