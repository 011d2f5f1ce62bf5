#include "store/continue_token.h"

#include <nlohmann/json.hpp>

namespace kuota::store {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Base64UrlEncode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8) |
                 uint8_t(in[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
  } else if (i + 2 == in.size()) {
    uint32_t v = (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
  }
  return out;
}

int DecodeChar(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-' || c == '+') return 62;
  if (c == '_' || c == '/') return 63;
  return -1;
}

bool Base64UrlDecode(std::string_view in, std::string* out) {
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  if (in.size() % 4 == 1) return false;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int d = DecodeChar(c);
    if (d < 0) return false;
    acc = (acc << 6) | uint32_t(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      *out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return true;
}

}  // namespace

std::string ContinueToken::Encode() const {
  nlohmann::json doc = {{"v", 1}, {"rv", resource_version}, {"ns", ns}, {"name", name}};
  return Base64UrlEncode(doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

Result<ContinueToken> ContinueToken::Decode(std::string_view text) {
  auto bad = [] {
    return Status::Invalid("continue: invalid continue token; start the list again without it");
  };
  std::string raw;
  if (text.size() > 4096 || !Base64UrlDecode(text, &raw)) return bad();
  nlohmann::json doc = nlohmann::json::parse(raw, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return bad();
  auto v = doc.find("v");
  auto rv = doc.find("rv");
  auto ns = doc.find("ns");
  auto name = doc.find("name");
  if (v == doc.end() || *v != 1 || rv == doc.end() || !rv->is_number_integer() ||
      ns == doc.end() || !ns->is_string() || name == doc.end() || !name->is_string()) {
    return bad();
  }
  ContinueToken token;
  token.resource_version = rv->get<int64_t>();
  token.ns = ns->get<std::string>();
  token.name = name->get<std::string>();
  return token;
}

}  // namespace kuota::store
