// User lookup: the RunAs (process_spec.h) for a uid, from the passwd entry
// (getpwuid_r) and the user's groups (getgrouplist), as the daemon resolves
// it before spawning, never in the child. Goes through NSS, so it may read
// files or ask a directory service. Thread-safe.
#pragma once

#include <cstdint>

#include "base/result.h"
#include "runtime/process_spec.h"

namespace kuota::runtime {

// The user `uid` names: its primary group, supplementary groups (the primary
// one included), home directory ("/" when the entry has none) and name.
// NotFound ("no passwd entry for uid 1234") when the system knows no such
// user; Unavailable when the lookup itself fails.
Result<RunAs> LookUpUser(uint32_t uid);

}  // namespace kuota::runtime
