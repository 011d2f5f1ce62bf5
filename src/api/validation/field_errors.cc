#include "api/validation/field_errors.h"

#include <cstdio>

namespace kuota::validation {
namespace {

constexpr size_t kMaxShownValue = 96;
// Longer than any valid key (a 253-character prefix, '/', 63 characters), so
// only hostile keys are shortened in paths.
constexpr size_t kMaxPathSegment = 320;

void AppendSegment(std::string& out, std::string_view segment) {
  if (segment.size() <= kMaxPathSegment) {
    out += segment;
  } else {
    out += segment.substr(0, kMaxPathSegment);
    out += "...";
  }
}

}  // namespace

std::string QuoteValue(std::string_view value) {
  std::string out = "\"";
  size_t shown = value.size() > kMaxShownValue ? kMaxShownValue : value.size();
  for (size_t i = 0; i < shown; ++i) {
    unsigned char c = static_cast<unsigned char>(value[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);  // UTF-8 passes through
        }
    }
  }
  if (shown < value.size()) out += "...";
  out += '"';
  return out;
}

std::string Child(std::string_view path, std::string_view name) {
  std::string out(path);
  if (!out.empty()) out += '.';
  AppendSegment(out, name);
  return out;
}

std::string Index(std::string_view path, size_t i) {
  std::string out(path);
  out += '[';
  out += std::to_string(i);
  out += ']';
  return out;
}

std::string Key(std::string_view path, std::string_view key) {
  std::string out(path);
  out += '[';
  AppendSegment(out, key);
  out += ']';
  return out;
}

void FieldErrors::Add(std::string_view path, std::string_view type, std::string_view value,
                      std::string_view detail) {
  std::string e(path);
  e += ": ";
  e += type;
  for (std::string_view part : {value, detail}) {
    if (part.empty()) continue;
    e += ": ";
    e += part;
  }
  errors_.push_back(std::move(e));
}

void FieldErrors::Invalid(std::string_view path, std::string_view value, std::string_view detail) {
  Add(path, "Invalid value", QuoteValue(value), detail);
}

void FieldErrors::InvalidNumber(std::string_view path, int64_t value, std::string_view detail) {
  Add(path, "Invalid value", std::to_string(value), detail);
}

void FieldErrors::InvalidObject(std::string_view path, std::string_view shown,
                                std::string_view detail) {
  if (shown.size() <= kMaxShownValue) {
    Add(path, "Invalid value", shown, detail);
  } else {
    Add(path, "Invalid value", std::string(shown.substr(0, kMaxShownValue)) + "...", detail);
  }
}

void FieldErrors::Required(std::string_view path, std::string_view detail) {
  Add(path, "Required value", {}, detail);
}

void FieldErrors::Duplicate(std::string_view path, std::string_view value,
                            std::string_view detail) {
  Add(path, "Duplicate value", QuoteValue(value), detail);
}

void FieldErrors::NotSupported(std::string_view path, std::string_view value,
                               std::initializer_list<std::string_view> supported) {
  std::string list = "supported values: ";
  bool first = true;
  for (std::string_view s : supported) {
    if (!first) list += ", ";
    first = false;
    list += QuoteValue(s);
  }
  Add(path, "Unsupported value", QuoteValue(value), list);
}

void FieldErrors::NotSupported(std::string_view path, std::string_view value,
                               const std::vector<std::string>& supported) {
  std::string list;
  for (const std::string& s : supported) {
    list += list.empty() ? "supported values: " : ", ";
    list += QuoteValue(s);
  }
  Add(path, "Unsupported value", QuoteValue(value), list);
}

void FieldErrors::NotFound(std::string_view path, std::string_view value) {
  Add(path, "Not found", QuoteValue(value), {});
}

void FieldErrors::Forbidden(std::string_view path, std::string_view detail) {
  std::string e(path);
  e += ": Forbidden: ";
  e += detail;
  errors_.push_back(std::move(e));
}

void FieldErrors::TooMany(std::string_view path, size_t actual, size_t max, std::string_view what) {
  Add(path, "Too many", std::to_string(actual),
      "must have at most " + std::to_string(max) + " " + std::string(what));
}

void FieldErrors::CheckCount(std::string_view path, size_t n, size_t max) {
  if (n == 0) {
    Required(path);
  } else if (n > max) {
    TooMany(path, n, max);
  }
}

void FieldErrors::TooLong(std::string_view path, size_t max) {
  Add(path, "Too long", {},
      "may not be more than " + std::to_string(max) + (max == 1 ? " byte" : " bytes"));
}

Status FieldErrors::ToStatus() const {
  if (errors_.empty()) return Status::Ok();
  std::string m;
  for (const auto& e : errors_) {
    if (!m.empty()) m += "; ";
    m += e;
  }
  return Status::Invalid(std::move(m));
}

}  // namespace kuota::validation
