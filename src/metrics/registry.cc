#include "metrics/registry.h"

#include <algorithm>
#include <cstdio>

namespace kuota::metrics {

void Registry::Declare(const std::string& name, const std::string& help, MetricType type,
                       std::vector<std::string> label_names, std::vector<double> buckets) {
  std::lock_guard<std::mutex> lock(mu_);
  if (families_.count(name)) return;
  Family& f = families_[name];
  f.help = help;
  f.type = type;
  f.label_names = std::move(label_names);
  f.buckets = std::move(buckets);
  order_.push_back(name);
}

void Registry::DeclareCounter(const std::string& name, const std::string& help,
                              std::vector<std::string> label_names) {
  Declare(name, help, MetricType::kCounter, std::move(label_names), {});
}

void Registry::DeclareHistogram(const std::string& name, const std::string& help,
                                std::vector<std::string> label_names, std::vector<double> buckets) {
  Declare(name, help, MetricType::kHistogram, std::move(label_names), std::move(buckets));
}

Registry::Family* Registry::Find(const std::string& name, MetricType type, size_t labels) {
  auto it = families_.find(name);
  if (it == families_.end() || it->second.type != type || it->second.label_names.size() != labels) {
    // A programming error; never take the process down for a metric.
    std::fprintf(stderr, "kuota: metric %s used with the wrong type or labels\n", name.c_str());
    return nullptr;
  }
  return &it->second;
}

void Registry::Add(const std::string& name, const std::vector<std::string>& label_values,
                   double by) {
  std::lock_guard<std::mutex> lock(mu_);
  if (Family* f = Find(name, MetricType::kCounter, label_values.size())) {
    f->series[label_values].value += by;
  }
}

void Registry::Observe(const std::string& name, const std::vector<std::string>& label_values,
                       double value) {
  std::lock_guard<std::mutex> lock(mu_);
  Family* f = Find(name, MetricType::kHistogram, label_values.size());
  if (f == nullptr) return;
  Series& s = f->series[label_values];
  if (s.bucket_counts.empty()) s.bucket_counts.assign(f->buckets.size() + 1, 0);
  const size_t i = static_cast<size_t>(
      std::lower_bound(f->buckets.begin(), f->buckets.end(), value) - f->buckets.begin());
  s.bucket_counts[i] += 1;
  s.sum += value;
  s.count += 1;
}

double Registry::CounterValue(const std::string& name,
                              const std::vector<std::string>& label_values) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = families_.find(name);
  if (it == families_.end()) return 0;
  auto s = it->second.series.find(label_values);
  return s == it->second.series.end() ? 0 : s->second.value;
}

void Registry::PublishGauges(std::vector<MetricFamily> gauges) {
  auto fresh = std::make_shared<const std::vector<MetricFamily>>(std::move(gauges));
  std::lock_guard<std::mutex> lock(mu_);
  gauges_ = std::move(fresh);
}

std::vector<MetricFamily> Registry::CollectOwnLocked() const {
  std::vector<MetricFamily> out;
  for (const std::string& name : order_) {
    const Family& f = families_.at(name);
    MetricFamily mf;
    mf.name = name;
    mf.help = f.help;
    mf.type = f.type;
    mf.buckets = f.buckets;
    for (const auto& [values, s] : f.series) {
      Sample sample;
      for (size_t i = 0; i < values.size(); ++i) {
        sample.labels.emplace_back(f.label_names[i], values[i]);
      }
      sample.value = s.value;
      sample.bucket_counts = s.bucket_counts;
      sample.sum = s.sum;
      sample.count = s.count;
      mf.samples.push_back(std::move(sample));
    }
    out.push_back(std::move(mf));
  }
  return out;
}

void Registry::AddCollector(Collector collect) {
  std::lock_guard<std::mutex> lock(mu_);
  collectors_.push_back(std::move(collect));
}

Registry::Snapshot Registry::TakeSnapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Snapshot{gauges_, CollectOwnLocked(), collectors_};
}

std::vector<MetricFamily> Registry::Collect() const {
  Snapshot snap = TakeSnapshot();
  std::vector<MetricFamily> out(snap.gauges->begin(), snap.gauges->end());
  for (const Collector& c : snap.collectors) {
    for (MetricFamily& f : c()) out.push_back(std::move(f));
  }
  out.insert(out.end(), std::make_move_iterator(snap.own.begin()),
             std::make_move_iterator(snap.own.end()));
  return out;
}

std::string Registry::Render(Format format) const {
  // Rendered outside the lock: a big snapshot never holds up writers.
  const Snapshot snap = TakeSnapshot();
  std::string text;
  metrics::Render(*snap.gauges, format, &text);
  for (const Collector& c : snap.collectors) metrics::Render(c(), format, &text);
  metrics::Render(snap.own, format, &text);
  Finish(format, &text);
  return text;
}

}  // namespace kuota::metrics
