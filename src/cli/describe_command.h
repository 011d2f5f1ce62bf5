// The `kuota describe` subcommand: one object in readable form — its spec
// essentials, status conditions (type, status, reason, age, message) and Events.
// Registers itself on a CLI11 app; runs on the calling thread.
#pragma once

#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "base/time.h"
#include "cli/multikueue_placement.h"
#include "cli/resource_kinds.h"

namespace kuota::cli {

// The text `kuota describe` prints for `object` of `kind` and its `events`
// (a list of v1 Events), with ages relative to `now`. `multikueue`: the
// server's MultiKueue checks, for where a dispatched Workload runs.
std::string DescribeObject(const KindInfo& kind, const nlohmann::json& object,
                           const nlohmann::json& events, Time now,
                           const MultiKueueChecks& multikueue = {});

// Adds `describe` to `app`. The callback sets `*exit_code`.
void AddDescribeCommand(CLI::App& app, int* exit_code);

}  // namespace kuota::cli
