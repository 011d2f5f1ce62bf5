#include "metrics/exposition.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kuota::metrics {
namespace {

const char* TypeName(MetricType t) {
  switch (t) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

// Backslashes and newlines escaped, and with `quotes` double quotes too
// (HELP text escapes no quotes; label values do).
std::string Escape(const std::string& text, bool quotes) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeHelp(const std::string& help) { return Escape(help, false); }

void AppendLabels(const Labels& labels, const std::pair<std::string, std::string>* extra,
                  std::string* out) {
  if (labels.empty() && extra == nullptr) return;
  *out += '{';
  bool first = true;
  auto one = [&](const std::string& k, const std::string& v) {
    if (!first) *out += ',';
    first = false;
    *out += k;
    *out += "=\"";
    *out += EscapeLabelValue(v);
    *out += '"';
  };
  for (const auto& [k, v] : labels) one(k, v);
  if (extra != nullptr) one(extra->first, extra->second);
  *out += '}';
}

void Line(const std::string& name, const Labels& labels,
          const std::pair<std::string, std::string>* extra, double value, std::string* out) {
  *out += name;
  AppendLabels(labels, extra, out);
  *out += ' ';
  *out += FormatValue(value);
  *out += '\n';
}

}  // namespace

const char* ContentType(Format format) {
  return format == Format::kOpenMetrics
             ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
             : "text/plain; version=0.0.4; charset=utf-8";
}

Format FormatForAccept(const std::string& accept) {
  return accept.find("application/openmetrics-text") != std::string::npos ? Format::kOpenMetrics
                                                                          : Format::kPrometheusText;
}

std::string EscapeLabelValue(const std::string& value) { return Escape(value, true); }

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", value);
    return buf;
  }
  // The shortest of %.15g / %.17g that reads back as the same double.
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", value);
  if (std::strtod(buf, nullptr) != value) std::snprintf(buf, sizeof buf, "%.17g", value);
  return buf;
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  double v = start;
  for (int i = 0; i < count; ++i, v *= factor) out.push_back(v);
  return out;
}

void Render(const std::vector<MetricFamily>& families, Format format, std::string* out) {
  const bool om = format == Format::kOpenMetrics;
  for (const MetricFamily& f : families) {
    // OpenMetrics names a counter family without its _total suffix.
    std::string family = f.name;
    if (om && f.type == MetricType::kCounter && family.size() > 6 &&
        family.compare(family.size() - 6, 6, "_total") == 0) {
      family.resize(family.size() - 6);
    }
    *out += "# HELP " + family + " " + EscapeHelp(f.help) + "\n";
    *out += "# TYPE " + family + " " + TypeName(f.type) + "\n";
    for (const Sample& s : f.samples) {
      if (f.type != MetricType::kHistogram) {
        Line(f.name, s.labels, nullptr, s.value, out);
        continue;
      }
      double cumulative = 0;
      for (size_t i = 0; i <= f.buckets.size(); ++i) {
        if (i < s.bucket_counts.size()) cumulative += s.bucket_counts[i];
        const std::pair<std::string, std::string> le = {
            "le", i < f.buckets.size() ? FormatValue(f.buckets[i]) : "+Inf"};
        Line(f.name + "_bucket", s.labels, &le, cumulative, out);
      }
      Line(f.name + "_sum", s.labels, nullptr, s.sum, out);
      Line(f.name + "_count", s.labels, nullptr, s.count, out);
    }
  }
}

void Finish(Format format, std::string* out) {
  if (format == Format::kOpenMetrics) *out += "# EOF\n";
}

}  // namespace kuota::metrics
