// Exposition: renders metric families in Prometheus' text exposition format
// (version 0.0.4) or in OpenMetrics 1.0 text, as a scraper asks for them:
// HELP and TYPE lines, label values escaped (backslash, double quote,
// newline), histograms as cumulative _bucket{le=...} series with _sum and
// _count, counters with _total (and OpenMetrics' # EOF). Pure; thread-safe.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kuota::metrics {

enum class MetricType { kCounter, kGauge, kHistogram };

using Labels = std::vector<std::pair<std::string, std::string>>;

// One labelled value of a counter or gauge; for a histogram, one label set's
// buckets (upper bounds from MetricFamily::buckets, counts not cumulative),
// sum and count.
struct Sample {
  Labels labels;
  double value = 0;
  std::vector<double> bucket_counts;  // histograms: one per bound, then +Inf
  double sum = 0;
  double count = 0;
};

struct MetricFamily {
  std::string name;  // a counter's name ends in _total
  std::string help;
  MetricType type = MetricType::kGauge;
  std::vector<double> buckets;  // histograms: upper bounds, ascending (no +Inf)
  std::vector<Sample> samples;
};

enum class Format { kPrometheusText, kOpenMetrics };

// The Content-Type of each format.
const char* ContentType(Format format);
// The format an Accept header asks for: OpenMetrics when it names
// application/openmetrics-text, else Prometheus text.
Format FormatForAccept(const std::string& accept);

// Appends `families` to `out`.
void Render(const std::vector<MetricFamily>& families, Format format, std::string* out);
// Ends a document (OpenMetrics' "# EOF").
void Finish(Format format, std::string* out);

// A label value escaped for the exposition formats.
std::string EscapeLabelValue(const std::string& value);
// A sample value: integers without a fraction, +Inf, -Inf, NaN.
std::string FormatValue(double value);

// Kueue's and Prometheus' usual bucket layouts.
std::vector<double> ExponentialBuckets(double start, double factor, int count);

}  // namespace kuota::metrics
