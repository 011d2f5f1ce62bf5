#include "server/media_types.h"

#include <cctype>

namespace kuota::server {
namespace {

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (true) {
    size_t next = s.find(sep, pos);
    out.push_back(s.substr(pos, next == std::string_view::npos ? s.npos : next - pos));
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return out;
}

MediaRange ParseRange(std::string_view text) {
  MediaRange range;
  std::vector<std::string_view> parts = Split(text, ';');
  range.type = Lower(Trim(parts[0]));
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    size_t eq = p.find('=');
    if (eq == std::string_view::npos) continue;
    std::string value = Trim(p.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    range.params[Lower(Trim(p.substr(0, eq)))] = value;
  }
  return range;
}

std::string Param(const MediaRange& r, const std::string& key) {
  auto it = r.params.find(key);
  return it == r.params.end() ? "" : it->second;
}

bool IsJsonLike(const std::string& type) {
  return type == "application/json" || type == "application/*" || type == "*/*";
}

}  // namespace

std::vector<MediaRange> ParseAccept(std::string_view accept) {
  std::vector<MediaRange> ranges;
  for (std::string_view part : Split(accept, ',')) {
    if (Trim(part).empty()) continue;
    ranges.push_back(ParseRange(part));
  }
  return ranges;
}

std::string BaseMediaType(std::string_view content_type) {
  return ParseRange(content_type).type;
}

Representation Negotiate(std::string_view accept, bool allow_table, bool allow_discovery) {
  for (const MediaRange& r : ParseAccept(accept)) {
    if (!IsJsonLike(r.type)) continue;  // protobuf, yaml, ...: not produced
    std::string as = Param(r, "as");
    if (as.empty()) return Representation::kJson;
    if (as == "Table" && allow_table && Param(r, "g") == "meta.k8s.io" &&
        (Param(r, "v") == "v1" || Param(r, "v") == "v1beta1")) {
      return Representation::kTable;
    }
    if (as == "APIGroupDiscoveryList" && allow_discovery &&
        Param(r, "g") == "apidiscovery.k8s.io" && Param(r, "v") == "v2") {
      return Representation::kDiscoveryAggregated;
    }
  }
  return Representation::kJson;
}

}  // namespace kuota::server
