// ReplyStatus: turns an API server's error reply (HTTP code + kube meta/v1
// Status body) back into a Status value, for the clients of kuotad and of a
// kube-apiserver: the body's message when there is one, the code chosen by
// reason (AlreadyExists vs Conflict on 409, Expired/Gone on 410). Pure;
// thread-safe.
#pragma once

#include <string>

#include "base/status.h"

namespace kuota::server {

// 404 NotFound, 409 AlreadyExists/Conflict, 400/422 Invalid, 410 Gone,
// 413 TooLarge, 405/415 Unsupported, 429 and 5xx (but 507) Unavailable,
// 507 NoSpace, 401/403 Invalid ("forbidden: ..."), anything else Internal.
Status StatusFromReply(int http_status, const std::string& body);

}  // namespace kuota::server
