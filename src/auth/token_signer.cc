#include "auth/token_signer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/private_file.h"

namespace kuota::auth {
namespace {

constexpr std::string_view kPrefix = "kuota1.";

std::string Hex(const unsigned char* data, size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(kDigits[data[i] >> 4]);
    out.push_back(kDigits[data[i] & 15]);
  }
  return out;
}

bool IsHex64(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

Result<TokenSigner> TokenSigner::Load(const std::string& path) {
  std::ifstream in(path);
  if (in) {
    std::stringstream text;
    text << in.rdbuf();
    std::string secret = text.str();
    while (!secret.empty() && (secret.back() == '\n' || secret.back() == ' ')) secret.pop_back();
    if (!IsHex64(secret)) {
      return Status::Invalid("token secret " + path +
                             " is malformed (want 64 hex digits); remove it to issue new "
                             "credentials (every user must then run `kuota login` again)");
    }
    return TokenSigner(secret);
  }
  if (errno != ENOENT) {
    return Status::Unavailable("cannot read token secret " + path + ": " + std::strerror(errno));
  }
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    return Status::Internal("no random bytes for the token secret");
  }
  std::string secret = Hex(bytes.data(), bytes.size());
  if (Status st = WritePrivateFile(path, secret + "\n"); !st.ok()) {
    return Status::Unavailable("cannot write token secret: " + st.message());
  }
  return TokenSigner(secret);
}

std::string TokenSigner::Mac(std::string_view message) const {
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac.data(), &len);
  return Hex(mac.data(), len);
}

std::string TokenSigner::Issue(uid_t uid) const {
  std::string body = std::string(kPrefix) + std::to_string(uid);
  return body + "." + Mac(body);
}

std::optional<uid_t> TokenSigner::Verify(std::string_view token) const {
  if (token.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  size_t dot = token.find('.', kPrefix.size());
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view digits = token.substr(kPrefix.size(), dot - kPrefix.size());
  uint64_t uid = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), uid);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
      uid > 0xffffffffu) {
    return std::nullopt;
  }
  std::string_view mac = token.substr(dot + 1);
  std::string want = Mac(token.substr(0, dot));
  if (mac.size() != want.size() || CRYPTO_memcmp(mac.data(), want.data(), want.size()) != 0) {
    return std::nullopt;
  }
  return static_cast<uid_t>(uid);
}

}  // namespace kuota::auth
