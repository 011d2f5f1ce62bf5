#include "server/reply_status.h"

#include <nlohmann/json.hpp>

namespace kuota::server {

Status StatusFromReply(int http_status, const std::string& body) {
  nlohmann::json status = nlohmann::json::parse(body, nullptr, false);
  std::string message, reason;
  if (status.is_object()) {
    if (status.contains("message") && status["message"].is_string()) message = status["message"];
    if (status.contains("reason") && status["reason"].is_string()) reason = status["reason"];
  }
  if (message.empty()) {
    message =
        "HTTP " + std::to_string(http_status) + (body.empty() ? "" : ": " + body.substr(0, 200));
  }
  if (http_status == 404 || reason == "NotFound") return Status::NotFound(message);
  if (reason == "AlreadyExists") return Status::AlreadyExists(message);
  if (http_status == 409) return Status::Conflict(message);
  if (http_status == 410 || reason == "Expired" || reason == "Gone") return Status::Gone(message);
  if (http_status == 400 || http_status == 422) return Status::Invalid(message);
  if (http_status == 401 || http_status == 403) {
    return Status::Invalid((http_status == 401 ? "unauthorized: " : "forbidden: ") + message);
  }
  if (http_status == 413) return Status::TooLarge(message);
  if (http_status == 415 || http_status == 405) return Status::Unsupported(message);
  if (http_status == 507) return Status::NoSpace(message);
  if (http_status == 429 || http_status >= 500) return Status::Unavailable(message);
  return Status::Internal(message);
}

}  // namespace kuota::server
