#include "metrics/registry.h"

#include <gtest/gtest.h>

#include <thread>

namespace kuota::metrics {
namespace {

TEST(RegistryTest, CountsPerLabelValues) {
  Registry r;
  r.DeclareCounter("kueue_evicted_workloads_total", "Evicted", {"cluster_queue", "reason"});
  r.Add("kueue_evicted_workloads_total", {"a", "Preempted"});
  r.Add("kueue_evicted_workloads_total", {"a", "Preempted"});
  r.Add("kueue_evicted_workloads_total", {"b", "PodsReadyTimeout"}, 3);
  EXPECT_EQ(r.CounterValue("kueue_evicted_workloads_total", {"a", "Preempted"}), 2);
  EXPECT_EQ(r.CounterValue("kueue_evicted_workloads_total", {"b", "PodsReadyTimeout"}), 3);
  EXPECT_EQ(r.CounterValue("kueue_evicted_workloads_total", {"c", "x"}), 0);
  const std::string text = r.Render(Format::kPrometheusText);
  EXPECT_NE(
      text.find("kueue_evicted_workloads_total{cluster_queue=\"a\",reason=\"Preempted\"} 2\n"),
      std::string::npos)
      << text;
}

TEST(RegistryTest, WrongLabelCountIsIgnoredNotFatal) {
  Registry r;
  r.DeclareCounter("c_total", "c", {"a"});
  r.Add("c_total", {"x", "y"});  // a programming error: logged, nothing recorded
  r.Add("no_such_total", {"x"});
  EXPECT_EQ(r.CounterValue("c_total", {"x", "y"}), 0);
}

TEST(RegistryTest, HistogramObservationsLandInTheirBucket) {
  Registry r;
  r.DeclareHistogram("h_seconds", "h", {"q"}, {1, 2.5, 5});
  r.Observe("h_seconds", {"q"}, 0.5);
  r.Observe("h_seconds", {"q"}, 1);  // le="1" includes 1
  r.Observe("h_seconds", {"q"}, 3);
  r.Observe("h_seconds", {"q"}, 100);
  const std::string text = r.Render(Format::kPrometheusText);
  EXPECT_NE(text.find("h_seconds_bucket{q=\"q\",le=\"1\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("h_seconds_bucket{q=\"q\",le=\"2.5\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("h_seconds_bucket{q=\"q\",le=\"5\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("h_seconds_bucket{q=\"q\",le=\"+Inf\"} 4\n"), std::string::npos);
  EXPECT_NE(text.find("h_seconds_sum{q=\"q\"} 104.5\n"), std::string::npos);
}

TEST(RegistryTest, PublishedGaugesReplaceTheLastSnapshotAndCollectorsRunPerScrape) {
  Registry r;
  MetricFamily g{"kueue_pending_workloads", "p", MetricType::kGauge, {}, {}};
  g.samples.push_back({{{"cluster_queue", "a"}}, 1, {}, 0, 0});
  r.PublishGauges({g});
  g.samples[0].value = 5;
  r.PublishGauges({g});
  int calls = 0;
  r.AddCollector([&calls] {
    ++calls;
    MetricFamily f{"kuota_gpus", "g", MetricType::kGauge, {}, {}};
    f.samples.push_back({{}, static_cast<double>(calls), {}, 0, 0});
    return std::vector<MetricFamily>{f};
  });
  std::string text = r.Render(Format::kPrometheusText);
  EXPECT_NE(text.find("kueue_pending_workloads{cluster_queue=\"a\"} 5\n"), std::string::npos);
  EXPECT_EQ(text.find("} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("kuota_gpus 1\n"), std::string::npos) << text;
  text = r.Render(Format::kOpenMetrics);
  EXPECT_NE(text.find("kuota_gpus 2\n"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
  EXPECT_EQ(r.Collect().size(), 2u);  // the gauge and the collected family (no counters)
}

TEST(RegistryTest, ConcurrentUpdatesAndScrapesAgree) {
  Registry r;
  r.DeclareCounter("n_total", "n", {"t"});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&r] {
      for (int i = 0; i < 1000; ++i) r.Add("n_total", {"x"});
    });
  }
  std::thread scraper([&r] {
    for (int i = 0; i < 50; ++i) (void)r.Render(Format::kPrometheusText);
  });
  for (auto& th : threads) th.join();
  scraper.join();
  EXPECT_EQ(r.CounterValue("n_total", {"x"}), 4000);
}

}  // namespace
}  // namespace kuota::metrics
