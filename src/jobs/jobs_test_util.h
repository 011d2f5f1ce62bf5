// Jobs test helpers (tests only): a table of edits to a valid job, each with
// the error a kind's Validate must then give; the Workload a kind builds and
// its pod sets; and, for the jobs tests to use unqualified, these and the job
// kind probes. Header-only.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "jobs/job_kind.h"
#include "testing/job_kind_probes.h"

namespace kuota::testing {

// One edit of a valid job and the error it must cause.
struct EditCase {
  EditCase(std::string name, std::function<void(nlohmann::json&)> edit, std::string want)
      : name(std::move(name)), edit(std::move(edit)), want(std::move(want)) {}
  EditCase(std::function<void(nlohmann::json&)> edit, std::string want)
      : EditCase("", std::move(edit), std::move(want)) {}

  std::string name;
  std::function<void(nlohmann::json&)> edit;
  std::string want;  // the message ("OK" for none), or its start with kPrefix
};

enum class Match { kWhole, kPrefix };

// Applies each case's edit to a copy of `valid` and checks what `kind`'s
// Validate says of it: the whole message ("OK" when valid), or with kPrefix
// an error whose message starts with `want`.
inline void ExpectEditErrors(const jobs::JobKind& kind, const nlohmann::json& valid,
                             const std::vector<EditCase>& cases, Match match) {
  for (size_t i = 0; i < cases.size(); ++i) {
    const EditCase& c = cases[i];
    nlohmann::json job = valid;
    c.edit(job);
    const Status st = kind.Validate(job);
    const std::string got = st.ok() ? "OK" : st.message();
    if (match == Match::kWhole) {
      EXPECT_EQ(got, c.want) << "case " << i << " " << c.name;
    } else {
      EXPECT_FALSE(st.ok()) << "case " << i << " " << c.name;
      EXPECT_EQ(got.rfind(c.want, 0), 0u)
          << "case " << i << " " << c.name << ": got \"" << got << "\"";
    }
  }
}

// The Workload `kind` builds for `job`; fails the test (and is null) when it
// builds none.
inline nlohmann::json WorkloadOf(const jobs::JobKind& kind, const nlohmann::json& job) {
  Result<nlohmann::json> wl = kind.BuildWorkload(job);
  EXPECT_TRUE(wl.ok()) << wl.status().message();
  return wl.ok() ? wl.value() : nlohmann::json();
}

// "<name>:<count>" of each pod set of the Workload `wl`, in order.
inline std::vector<std::string> PodSetCounts(const nlohmann::json& wl) {
  std::vector<std::string> out;
  const nlohmann::json spec = wl.is_object() ? wl.value("spec", nlohmann::json::object()) : nullptr;
  for (const nlohmann::json& ps : spec.is_object() ? spec.value("podSets", nlohmann::json::array())
                                                   : nlohmann::json::array()) {
    out.push_back(ps.value("name", "") + ":" + std::to_string(ps.value("count", int64_t{-1})));
  }
  return out;
}

}  // namespace kuota::testing

namespace kuota::jobs {

using kuota::testing::ColumnValue;
using kuota::testing::EditCase;
using kuota::testing::EnvValue;
using kuota::testing::ExpectEditErrors;
using kuota::testing::Match;
using kuota::testing::PodSetCounts;
using kuota::testing::Seen;
using kuota::testing::WorkloadOf;

}  // namespace kuota::jobs
