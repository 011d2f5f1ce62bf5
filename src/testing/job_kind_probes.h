// Job kind probes: what the jobs tests read back from a job kind: the
// observation a kind's status is computed from, an env var of a pod the kind
// customized, a printer column's cell. Header-only, test-only; pure.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "jobs/group_job_kind.h"
#include "jobs/kind_info.h"

namespace kuota::testing {

// What the local runtime saw of a group job's pods at `now`.
inline jobs::GroupObservation Seen(std::vector<jobs::PodSetObservation> sets,
                                   const std::string& now = "2024-05-01T10:05:00Z",
                                   bool suspended = false) {
  jobs::GroupObservation o;
  o.sets = std::move(sets);
  o.suspended = suspended;
  o.now = now;
  return o;
}

// The value of env var `name` in container `container` of `pod`, or "<unset>";
// fails the test when the container sets it more than once.
inline std::string EnvValue(const nlohmann::json& pod, const std::string& name,
                            size_t container = 0) {
  std::string out = "<unset>";
  int n = 0;
  for (const nlohmann::json& e :
       pod["spec"]["containers"][container].value("env", nlohmann::json::array())) {
    if (e.value("name", "") == name) {
      out = e.value("value", "");
      ++n;
    }
  }
  EXPECT_LE(n, 1) << name << " set " << n << " times";
  return out;
}

// The cell of printer column `name` for `job`; fails the test (and is null)
// when the kind has no such column.
inline nlohmann::json ColumnValue(const jobs::KindInfo& info, const std::string& name,
                                  const nlohmann::json& job) {
  for (const jobs::PrinterColumn& c : info.columns) {
    if (c.name == name) return c.value(job);
  }
  ADD_FAILURE() << "no column " << name;
  return nullptr;
}

}  // namespace kuota::testing
