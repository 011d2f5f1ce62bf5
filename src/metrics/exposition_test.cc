#include "metrics/exposition.h"

#include <gtest/gtest.h>

namespace kuota::metrics {
namespace {

TEST(ExpositionTest, EscapesLabelValues) {
  EXPECT_EQ(EscapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(EscapeLabelValue("team-a/ml"), "team-a/ml");
}

TEST(ExpositionTest, FormatsValues) {
  EXPECT_EQ(FormatValue(3), "3");
  EXPECT_EQ(FormatValue(0.5), "0.5");
  EXPECT_EQ(FormatValue(4831838208.0), "4831838208");
  EXPECT_EQ(FormatValue(0.1 + 0.2), "0.30000000000000004");  // read back exactly
  EXPECT_EQ(FormatValue(1.0 / 0.0), "+Inf");
  EXPECT_EQ(FormatValue(-1.0 / 0.0), "-Inf");
  EXPECT_EQ(FormatValue(0.0 / 0.0), "NaN");
}

TEST(ExpositionTest, RendersGaugesAndCountersAsPrometheusText) {
  MetricFamily g{"kueue_pending_workloads", "Pending\nworkloads", MetricType::kGauge, {}, {}};
  g.samples.push_back({{{"cluster_queue", "cq \"a\""}, {"status", "active"}}, 2, {}, 0, 0});
  MetricFamily c{"kueue_admitted_workloads_total", "Admitted", MetricType::kCounter, {}, {}};
  c.samples.push_back({{{"cluster_queue", "cq"}}, 7, {}, 0, 0});
  std::string out;
  Render({g, c}, Format::kPrometheusText, &out);
  Finish(Format::kPrometheusText, &out);
  EXPECT_EQ(out,
            "# HELP kueue_pending_workloads Pending\\nworkloads\n"
            "# TYPE kueue_pending_workloads gauge\n"
            "kueue_pending_workloads{cluster_queue=\"cq \\\"a\\\"\",status=\"active\"} 2\n"
            "# HELP kueue_admitted_workloads_total Admitted\n"
            "# TYPE kueue_admitted_workloads_total counter\n"
            "kueue_admitted_workloads_total{cluster_queue=\"cq\"} 7\n");
}

TEST(ExpositionTest, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  MetricFamily h{"kueue_admission_wait_time_seconds", "Wait", MetricType::kHistogram, {1, 2.5}, {}};
  h.samples.push_back({{{"cluster_queue", "cq"}}, 0, {1, 2, 3}, 20.5, 6});
  std::string out;
  Render({h}, Format::kPrometheusText, &out);
  EXPECT_NE(out.find("kueue_admission_wait_time_seconds_bucket{cluster_queue=\"cq\",le=\"1\"} 1\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("_bucket{cluster_queue=\"cq\",le=\"2.5\"} 3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("_bucket{cluster_queue=\"cq\",le=\"+Inf\"} 6\n"), std::string::npos) << out;
  EXPECT_NE(out.find("kueue_admission_wait_time_seconds_sum{cluster_queue=\"cq\"} 20.5\n"),
            std::string::npos);
  EXPECT_NE(out.find("kueue_admission_wait_time_seconds_count{cluster_queue=\"cq\"} 6\n"),
            std::string::npos);
}

TEST(ExpositionTest, OpenMetricsNamesCounterFamiliesWithoutTotalAndEnds) {
  MetricFamily c{"kueue_admitted_workloads_total", "Admitted", MetricType::kCounter, {}, {}};
  c.samples.push_back({{}, 1, {}, 0, 0});
  std::string out;
  Render({c}, Format::kOpenMetrics, &out);
  Finish(Format::kOpenMetrics, &out);
  EXPECT_EQ(out,
            "# HELP kueue_admitted_workloads Admitted\n"
            "# TYPE kueue_admitted_workloads counter\n"
            "kueue_admitted_workloads_total 1\n"
            "# EOF\n");
}

TEST(ExpositionTest, NegotiatesTheFormat) {
  EXPECT_EQ(FormatForAccept("application/openmetrics-text;version=1.0.0,text/plain;q=0.5"),
            Format::kOpenMetrics);
  EXPECT_EQ(FormatForAccept("text/plain;version=0.0.4"), Format::kPrometheusText);
  EXPECT_EQ(FormatForAccept(""), Format::kPrometheusText);
  EXPECT_STREQ(ContentType(Format::kPrometheusText), "text/plain; version=0.0.4; charset=utf-8");
}

TEST(ExpositionTest, ExponentialBuckets) {
  EXPECT_EQ(ExponentialBuckets(2.5, 2, 3), (std::vector<double>{2.5, 5, 10}));
}

}  // namespace
}  // namespace kuota::metrics
