#include "api/codec/decode_context.h"

#include "api/validation/field_errors.h"

namespace kuota::codec {

Status DecodeContext::Fail(const YamlNode& node, std::string_view path, std::string_view message) {
  error_line_ = node.line;
  std::string m(path);
  if (!m.empty()) m += ": ";
  m += message;
  return Status::Invalid(std::move(m));
}

Status DecodeContext::FailWithValue(const YamlNode& node, std::string_view path,
                                    std::string_view message) {
  if (!node.is_scalar()) return Fail(node, path, message);
  std::string m(message);
  m += " (value ";
  m += validation::QuoteValue(node.scalar);
  m += ")";
  return Fail(node, path, m);
}

Status DecodeContext::Visit(const YamlNode& node, std::string_view path) {
  size_t bytes = node.scalar.size();
  if (budget_.nodes_left == 0 || bytes > budget_.bytes_left) {
    error_line_ = node.line;
    std::string m(path);
    if (!m.empty()) m += ": ";
    m += "document expands to too much data (aliases repeating large nodes?)";
    return Status::TooLarge(std::move(m));
  }
  --budget_.nodes_left;
  budget_.bytes_left -= bytes;
  lines_.try_emplace(std::string(path), node.line);
  return Status::Ok();
}

Status DecodeContext::Enter(const YamlNode& node, std::string_view path) {
  if (depth_ >= kMaxDepth) {
    return Fail(node, path, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
  }
  ++depth_;
  return Status::Ok();
}

int DecodeContext::LineOf(std::string_view path) const {
  std::string p(path);
  while (!p.empty()) {
    auto it = lines_.find(p);
    if (it != lines_.end()) return it->second;
    size_t cut = p.find_last_of(".[");
    if (cut == std::string::npos) break;
    p.resize(cut);
  }
  return 0;
}

}  // namespace kuota::codec
