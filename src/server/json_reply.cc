#include "server/json_reply.h"

namespace kuota::server {

HttpReply JsonReply(const nlohmann::json& document, int status) {
  HttpReply reply;
  reply.status = status;
  reply.body = document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return reply;
}

}  // namespace kuota::server
