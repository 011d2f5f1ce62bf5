#include "base/status.h"

namespace kuota {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalid:
      return "Invalid";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kAlreadyExists:
      return "AlreadyExists";
    case StatusCode::kConflict:
      return "Conflict";
    case StatusCode::kForbidden:
      return "Forbidden";
    case StatusCode::kTooLarge:
      return "RequestEntityTooLarge";
    case StatusCode::kGone:
      return "Expired";
    case StatusCode::kUnsupported:
      return "UnsupportedMediaType";
    case StatusCode::kUnavailable:
      return "ServiceUnavailable";
    case StatusCode::kNoSpace:
      return "InsufficientStorage";
    case StatusCode::kInternal:
      return "InternalError";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(code_));
  out += ": ";
  out += message_;
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string m(context);
  m += ": ";
  m += message_;
  return Status(code_, std::move(m));
}

}  // namespace kuota
