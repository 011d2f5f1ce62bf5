// Submitter annotations: who submitted an object, as kuotad's API server
// stamps it from the authenticated identity (never from the request body), and
// as kuotad's controllers copy it from a job to the pods they make for it, so
// that the pod runner runs each pod's processes as the job's submitter.
//   kuota.dev/submitter-uid: "1001"   (decimal uid; "0" when root submitted)
//   kuota.dev/submitted-by:  "alice"  (informational)
// Pure functions over JSON objects; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace kuota::jobctl {

inline constexpr char kSubmitterUidAnnotation[] = "kuota.dev/submitter-uid";
inline constexpr char kSubmittedByAnnotation[] = "kuota.dev/submitted-by";

// The largest uid accepted: (uid_t)-1 means "no change" to set*id(2), so it
// never names a user.
inline constexpr uint32_t kMaxSubmitterUid = 4294967294u;

// Parses a submitter uid: decimal digits only, no sign, no leading zero (but
// "0"), at most kMaxSubmitterUid. Invalid otherwise, with a message naming
// the annotation as a field path (`metadata.annotations[kuota.dev/submitter-
// uid]: Invalid value: "x": must be a decimal user id (0 to 4294967294)`).
Result<uint32_t> ParseSubmitterUid(std::string_view text);

// The submitter's uid recorded on `object` (metadata.annotations). nullopt
// when the annotation is absent; Invalid when present but not a string
// holding a valid uid (see ParseSubmitterUid).
Result<std::optional<uint32_t>> SubmitterUid(const nlohmann::json& object);

// The user name recorded on `object`, "" when absent or not a string.
std::string SubmittedBy(const nlohmann::json& object);

// Both annotations as `object` carries them (those that are strings), as a
// map from annotation name to value; empty when it carries neither.
nlohmann::json SubmitterAnnotations(const nlohmann::json& object);

// Stamps `object` with both annotations (creating metadata.annotations when
// needed), replacing whatever it carried.
void SetSubmitterAnnotations(nlohmann::json& object, uint32_t uid, std::string_view user_name);

// Makes `to`'s submitter annotations exactly `from`'s: each one `from` has
// (as a string) is copied, each one it lacks is removed from `to`, so an
// object built from a user-written template (a Job's pod template) cannot
// claim a submitter of its own. `to` must be an object; its metadata and
// annotations are created when needed.
void CopySubmitterAnnotations(const nlohmann::json& from, nlohmann::json& to);

}  // namespace kuota::jobctl
