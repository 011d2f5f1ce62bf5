// TablePrinter: converts objects to meta.k8s.io/v1 Table, the server-side
// printing kubectl asks for (Accept: ...;as=Table;g=meta.k8s.io;v=v1), with
// Kueue's printer columns for its kinds and kube-apiserver's for Job, Pod,
// Namespace, Event, Node and PriorityClass (priority 1 = only with -o wide).
// Pure functions over their arguments; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/time.h"
#include "server/resource_info.h"

namespace kuota::server {

struct TableColumn {
  std::string name;         // "Pending Workloads"
  std::string type;         // "string", "integer", "boolean", "date"
  std::string format;       // "name" for the Name column, else ""
  std::string description;
  int priority = 0;         // 0: always shown; 1: -o wide
};

// What each row's "object" carries (the includeObject query parameter).
enum class IncludeObject { kNone, kMetadata, kObject };
// "None", "Object", anything else (and ""): Metadata, as kube-apiserver.
IncludeObject ParseIncludeObject(std::string_view value);

std::vector<TableColumn> TableColumns(const ResourceInfo& resource);

// The cells of one row, in TableColumns order; absent values are null.
nlohmann::json TableCells(const ResourceInfo& resource, const nlohmann::json& object, Time now);

// A Table of `objects` (rows in the given order). Column definitions are left
// out when `with_columns` is false (watch events after the first, as kube).
// The caller sets metadata (resourceVersion, continue).
nlohmann::json BuildTable(const ResourceInfo& resource, const std::vector<nlohmann::json>& objects,
                          Time now, IncludeObject include, bool with_columns);

// kubectl's duration.HumanDuration: "45s", "5m30s", "3h10m", "4d", "2y10d".
std::string HumanDuration(Duration d);

}  // namespace kuota::server
