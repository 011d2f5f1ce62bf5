// JsonReply: the HTTP reply whose body is one JSON document, the form of every
// non-streamed answer the API serves (discovery, visibility, self reviews).
// Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "server/http_types.h"

namespace kuota::server {

// `document` as the body (application/json) with `status`; invalid UTF-8 in
// a string is replaced, so an odd byte in a stored object never fails a reply.
HttpReply JsonReply(const nlohmann::json& document, int status = 200);

}  // namespace kuota::server
