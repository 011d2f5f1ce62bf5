#include "server/status_errors.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

// "Kind.group" as kube-apiserver names a kind in Invalid messages ("Pod" for core).
std::string QualifiedKind(const ResourceInfo& r) {
  return r.group.empty() ? r.kind : r.kind + "." + r.group;
}

ApiError Make(int code, std::string reason, std::string message) {
  ApiError e;
  e.code = code;
  e.reason = std::move(reason);
  e.message = std::move(message);
  return e;
}

ApiError ForResource(int code, std::string reason, std::string message, const ResourceInfo& r,
                     const std::string& name) {
  ApiError e = Make(code, std::move(reason), std::move(message));
  e.name = name;
  e.group = r.group;
  e.kind = r.plural;
  return e;
}

// A StatusCause from "field.path: Invalid value: ...": the field is the text
// before the first ": " when it reads like a path (no spaces).
Json FieldCause(const std::string& field_error) {
  std::string field, message = field_error;
  size_t colon = field_error.find(": ");
  if (colon != std::string::npos && colon > 0 &&
      field_error.substr(0, colon).find(' ') == std::string::npos) {
    field = field_error.substr(0, colon);
    message = field_error.substr(colon + 2);
  }
  static const std::pair<const char*, const char*> kReasons[] = {
      {"Required value", "FieldValueRequired"},   {"Unsupported value", "FieldValueNotSupported"},
      {"Duplicate value", "FieldValueDuplicate"}, {"Forbidden", "FieldValueForbidden"},
      {"Too long", "FieldValueTooLong"},          {"Too many", "FieldValueTooMany"},
      {"Not found", "FieldValueNotFound"}};
  std::string reason = "FieldValueInvalid";
  for (const auto& [prefix, r] : kReasons) {
    if (message.rfind(prefix, 0) == 0) reason = r;
  }
  Json cause = {{"reason", reason}, {"message", message}};
  if (!field.empty()) cause["field"] = field;
  return cause;
}

}  // namespace

Json ApiError::ToStatus() const {
  Json status = {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", Json::object()},
                 {"status", "Failure"}, {"message", message}, {"reason", reason},
                 {"code", code}};
  Json details = Json::object();
  if (!name.empty()) details["name"] = name;
  if (!group.empty()) details["group"] = group;
  if (!kind.empty()) details["kind"] = kind;
  if (!causes.empty()) details["causes"] = causes;
  if (!details.empty()) status["details"] = details;
  return status;
}

HttpReply ApiError::ToReply() const {
  HttpReply reply;
  reply.status = code;
  // Names and selectors from the URL may hold bytes that are not UTF-8.
  reply.body = ToStatus().dump(-1, ' ', false, Json::error_handler_t::replace);
  return reply;
}

ApiError NotFoundError(const ResourceInfo& r, const std::string& name) {
  return ForResource(404, "NotFound", r.StoreKey() + " \"" + name + "\" not found", r, name);
}

ApiError NamespaceNotFoundError(const std::string& ns) {
  ApiError e = Make(404, "NotFound", "namespaces \"" + ns + "\" not found");
  e.name = ns;
  e.kind = "namespaces";
  return e;
}

ApiError UnknownPathError() {
  return Make(404, "NotFound", "the server could not find the requested resource");
}

ApiError AlreadyExistsError(const ResourceInfo& r, const std::string& name) {
  return ForResource(409, "AlreadyExists", r.StoreKey() + " \"" + name + "\" already exists", r,
                     name);
}

ApiError ConflictError(const ResourceInfo& r, const std::string& name, const std::string& detail) {
  return ForResource(
      409, "Conflict",
      "Operation cannot be fulfilled on " + r.StoreKey() + " \"" + name + "\": " + detail, r, name);
}

ApiError InvalidError(const ResourceInfo& r, const std::string& name,
                      const std::string& field_errors) {
  ApiError e =
      Make(422, "Invalid", QualifiedKind(r) + " \"" + name + "\" is invalid: " + field_errors);
  e.name = name;
  e.group = r.group;
  e.kind = r.kind;
  e.causes.push_back(FieldCause(field_errors));
  return e;
}

ApiError BadRequestError(const std::string& message) { return Make(400, "BadRequest", message); }

ApiError ForbiddenError(const ResourceInfo& r, const std::string& name,
                        const std::string& message) {
  return ForResource(403, "Forbidden", r.StoreKey() + " \"" + name + "\" is forbidden: " + message,
                     r, name);
}

ApiError MethodNotAllowedError() {
  return Make(405, "MethodNotAllowed",
              "the server does not allow this method on the requested resource");
}

ApiError UnsupportedMediaTypeError(const std::string& message) {
  return Make(415, "UnsupportedMediaType", message);
}

ApiError ExpiredError(const std::string& message) { return Make(410, "Expired", message); }

ApiError TooLargeError(size_t limit_bytes) {
  return Make(413, "RequestEntityTooLarge",
              "Request entity too large: limit is " + std::to_string(limit_bytes));
}

ApiError InternalError(const std::string& message) {
  return Make(500, "InternalError", "Internal error occurred: " + message);
}

ApiError FromStatus(const Status& status, const ResourceInfo& r, const std::string& name) {
  switch (status.code()) {
    case StatusCode::kInvalid:
      return InvalidError(r, name, status.message());
    case StatusCode::kNotFound:
      return NotFoundError(r, name);
    case StatusCode::kAlreadyExists:
      return AlreadyExistsError(r, name);
    case StatusCode::kConflict:
      if (status.message().find("recondition") != std::string::npos) {
        return ConflictError(r, name, status.message());
      }
      return ConflictError(r, name,
                           "the object has been modified; please apply your changes to the "
                           "latest version and try again");
    case StatusCode::kForbidden:
      return ForbiddenError(r, name, status.message());
    case StatusCode::kTooLarge:
      return Make(413, "RequestEntityTooLarge", status.message());
    case StatusCode::kGone:
      return ExpiredError(status.message());
    case StatusCode::kUnsupported:
      return UnsupportedMediaTypeError(status.message());
    case StatusCode::kNoSpace:
      return Make(507, "InsufficientStorage", status.message());
    case StatusCode::kOk:
    case StatusCode::kUnavailable:
    case StatusCode::kInternal:
      break;
  }
  return InternalError(status.message());
}

}  // namespace kuota::server
