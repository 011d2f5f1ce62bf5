// JSON limits: the bounds kuotad puts on what a client's JSON may cost before
// anything recursive (serialization, copies, comparisons) touches it — nesting
// depth (1,000 levels; see kMaxJsonDepth), JSON patch
// operation count (kube's 10,000) and the size of a patched object. Each check
// is iterative, so hostile input cannot exhaust the stack. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kuota::server {

// The limits (kube-apiserver's, but for the depth).
// kube-apiserver's decoder stops at 10,000 levels; kuotad at 1,000, because
// its JSON library copies, compares and serializes values recursively and a
// 10,000-deep value overflows a thread's stack under the sanitizers. No real
// manifest nests more than a few dozen levels.
inline constexpr int kMaxJsonDepth = 1000;
inline constexpr size_t kMaxJsonPatchOperations = 10000;
// The largest object kuotad stores (etcd's default request limit, which
// bounds kube-apiserver's objects: 1.5 MiB).
inline constexpr size_t kMaxObjectBytes = 1572864;
// The most items one list page holds; a larger `limit` is answered with this
// many, a continue token and a Warning header.
inline constexpr int64_t kMaxListPage = 10000;

// Scans JSON text without parsing it: a message naming the limit when arrays
// and objects nest deeper than `max_depth`, else nullopt. Strings (with their
// escapes) are skipped; malformed text is left for the parser to report.
std::optional<std::string> CheckJsonTextDepth(std::string_view text, int max_depth = kMaxJsonDepth);

// The nesting depth of a parsed value (a scalar is 0, [] is 1), counting no
// further than `cap` + 1. Iterative.
int JsonDepth(const nlohmann::json& value, int cap = kMaxJsonDepth);

// An upper bound close to the length of value.dump(), counting no further
// than `cap` + 1 (it stops walking once past it). Iterative.
size_t JsonSizeBound(const nlohmann::json& value, size_t cap);

}  // namespace kuota::server
