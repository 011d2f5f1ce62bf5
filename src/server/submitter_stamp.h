// Submitter stamps: every object created through the API records who
// created it, from the authenticated identity and never from the request
// body — the annotations kuota.dev/submitter-uid and kuota.dev/submitted-by
// (jobctl/submitter.h), by which kuotad later runs a Job's processes as its
// submitter. A body's own values are dropped on create and the stored ones
// kept on update and patch. Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "auth/user_info.h"

namespace kuota::server {

// On create: replaces any stamp in `object` with `user`'s (none when the
// user is not an OS account, as under --insecure-http).
void StampSubmitter(const auth::UserInfo& user, nlohmann::json& object);

// On update: `object` gets `current`'s stamp, whatever it says itself.
void KeepSubmitter(const nlohmann::json& current, nlohmann::json& object);

}  // namespace kuota::server
