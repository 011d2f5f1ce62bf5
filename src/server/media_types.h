// Media types: parses Accept and Content-Type headers and negotiates the
// representation of a reply the way kube-apiserver does (plain JSON, a
// meta.k8s.io Table, or aggregated discovery). Pure functions; thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kuota::server {

struct MediaRange {
  std::string type;  // "application/json", lower-cased, without parameters
  std::map<std::string, std::string> params;  // "as" -> "Table", "g" -> "meta.k8s.io", ...
};

// Splits an Accept header into its media ranges, in the client's order.
std::vector<MediaRange> ParseAccept(std::string_view accept);

// The base media type of a Content-Type header, lower-cased, parameters dropped.
std::string BaseMediaType(std::string_view content_type);

enum class Representation {
  kJson,                // the object or list itself
  kTable,               // meta.k8s.io/v1 Table
  kDiscoveryAggregated  // apidiscovery.k8s.io/v2 APIGroupDiscoveryList
};

// The first representation in the client's preference order that Kuota can
// produce (JSON when nothing servable is listed). `allow_table` and
// `allow_discovery` say which of the special forms the endpoint offers.
Representation Negotiate(std::string_view accept, bool allow_table, bool allow_discovery);

// The Content-Type of an aggregated discovery reply.
inline constexpr const char* kDiscoveryV2ContentType =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

}  // namespace kuota::server
