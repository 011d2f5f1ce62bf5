// Output: how `kuota` prints what the server returns — a meta.k8s.io Table
// aligned as kubectl aligns it, objects as YAML (or JSON), and short ages.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/time.h"

namespace kuota::cli {

struct TableFormat {
  bool wide = false;            // also the columns of priority > 0 (-o wide)
  bool with_namespace = false;  // a NAMESPACE column first (-A)
  bool headers = true;
};

// A meta.k8s.io/v1 Table as text: upper-case headers, columns padded with
// three spaces (at least six wide), the last column unpadded — as kubectl
// prints it. Missing (null) cells print empty.
std::string FormatTable(const nlohmann::json& table, const TableFormat& format);

// Rows of cells aligned the same way (the first row usually the header).
std::string AlignColumns(const std::vector<std::vector<std::string>>& rows,
                         const std::string& indent = "");

// A JSON value as a YAML document (block style; strings that would read as
// another type are quoted).
std::string ToYaml(const nlohmann::json& value);

// "5s", "3m", "2h", "4d": the time from `then` (RFC 3339) to `now`; "<unknown>"
// when `then` does not parse.
std::string AgeSince(const std::string& then, Time now);

}  // namespace kuota::cli
