// Registry: the metrics one process exports. Counters and histograms are
// kept here, keyed by their label values, and updated from any thread;
// gauges that describe a state (queues, quotas) are published as a whole
// snapshot by the thread that owns that state and swapped in at once, so a
// scrape never waits on that thread nor sees half an update. Collect()
// gathers both for rendering (exposition.h). Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "metrics/exposition.h"

namespace kuota::metrics {

class Registry {
 public:
  // Declares a counter or histogram family (idempotent). `label_names` fixes
  // the label order; histogram `buckets` are upper bounds, ascending.
  void DeclareCounter(const std::string& name, const std::string& help,
                      std::vector<std::string> label_names);
  void DeclareHistogram(const std::string& name, const std::string& help,
                        std::vector<std::string> label_names, std::vector<double> buckets);

  // Adds `by` to the counter with these label values (one per label name).
  void Add(const std::string& name, const std::vector<std::string>& label_values, double by = 1);
  // Records one observation in the histogram.
  void Observe(const std::string& name, const std::vector<std::string>& label_values, double value);
  // A counter's current value (0 when never added to); for tests.
  double CounterValue(const std::string& name, const std::vector<std::string>& label_values) const;

  // Replaces every gauge family published before.
  void PublishGauges(std::vector<MetricFamily> gauges);
  // Adds families computed at each scrape (GPU readings): `collect` is called
  // from the scraping thread, outside the registry's lock, so it must be
  // thread-safe and outlive the registry's use.
  using Collector = std::function<std::vector<MetricFamily>()>;
  void AddCollector(Collector collect);

  // Every family: published gauges, then collected ones, then counters and
  // histograms in declaration order.
  std::vector<MetricFamily> Collect() const;
  // Collect() rendered in `format`, ended.
  std::string Render(Format format) const;

 private:
  struct Series {
    double value = 0;
    std::vector<double> bucket_counts;
    double sum = 0;
    double count = 0;
  };
  struct Family {
    std::string help;
    MetricType type = MetricType::kCounter;
    std::vector<std::string> label_names;
    std::vector<double> buckets;
    std::map<std::vector<std::string>, Series> series;
  };
  // DeclareCounter and DeclareHistogram (`buckets` empty for a counter).
  void Declare(const std::string& name, const std::string& help, MetricType type,
               std::vector<std::string> label_names, std::vector<double> buckets);
  Family* Find(const std::string& name, MetricType type, size_t labels);
  // The counters and histograms as families; mu_ held.
  std::vector<MetricFamily> CollectOwnLocked() const;
  // What Collect and Render read, taken under mu_ and used outside it.
  struct Snapshot {
    std::shared_ptr<const std::vector<MetricFamily>> gauges;
    std::vector<MetricFamily> own;
    std::vector<Collector> collectors;
  };
  Snapshot TakeSnapshot() const;

  mutable std::mutex mu_;
  std::vector<std::string> order_;
  std::vector<Collector> collectors_;
  std::map<std::string, Family> families_;
  std::shared_ptr<const std::vector<MetricFamily>> gauges_ =
      std::make_shared<const std::vector<MetricFamily>>();
};

}  // namespace kuota::metrics
