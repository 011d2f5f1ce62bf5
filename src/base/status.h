// Status: the error value that crosses module boundaries in Kuota.
// A Status is either OK or carries a code (mapped to Kubernetes reasons such as
// Invalid, NotFound, AlreadyExists, Conflict) and a message that names the field
// path and the offending value. Plain value type; safe to copy between threads.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace kuota {

enum class StatusCode {
  kOk = 0,
  kInvalid,        // bad input: a manifest, flag or request (HTTP 422/400)
  kNotFound,       // a referenced object does not exist (HTTP 404)
  kAlreadyExists,  // HTTP 409
  kConflict,       // stale resourceVersion (HTTP 409)
  kForbidden,      // allowed to no one who asks this way (HTTP 403)
  kTooLarge,       // input over a size limit (HTTP 413)
  kGone,           // a watch resourceVersion older than the kept log (HTTP 410)
  kUnsupported,    // media type or method not supported (HTTP 415/405)
  kUnavailable,    // an OS or I/O failure that may pass
  kNoSpace,        // the disk (or the database's quota of it) is full (HTTP 507)
  kInternal,       // a bug: an invariant did not hold
};

// Returns the Kubernetes-style reason name of a code ("Invalid", "NotFound", ...).
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status Invalid(std::string m) { return {StatusCode::kInvalid, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status Conflict(std::string m) { return {StatusCode::kConflict, std::move(m)}; }
  static Status Forbidden(std::string m) { return {StatusCode::kForbidden, std::move(m)}; }
  static Status TooLarge(std::string m) { return {StatusCode::kTooLarge, std::move(m)}; }
  static Status Gone(std::string m) { return {StatusCode::kGone, std::move(m)}; }
  static Status Unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status NoSpace(std::string m) { return {StatusCode::kNoSpace, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "Invalid: spec.x: ..." for logs and CLI output.
  std::string ToString() const;

  // Returns a copy whose message is prefixed with `context: `.
  Status WithContext(std::string_view context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace kuota

#define KUOTA_RETURN_IF_ERROR(expr) \
  do {                              \
    ::kuota::Status _st = (expr);   \
    if (!_st.ok()) return _st;      \
  } while (0)
