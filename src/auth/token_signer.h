// TokenSigner: the bearer tokens kuotad hands out, stateless: a token names
// an OS uid and carries an HMAC-SHA256 of it under a secret kept in the data
// dir (mode 0600), so any token kuotad issued is checked without a token
// table, the same user always gets the same token, and removing the secret
// file revokes every token at once. Thread-safe after Load.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace kuota::auth {

class TokenSigner {
 public:
  // Reads the secret at `path`, creating it (32 random bytes, hex, mode
  // 0600) when absent. A file that is there but unreadable or malformed is
  // an error naming it; it is never overwritten.
  static Result<TokenSigner> Load(const std::string& path);
  // A signer over a given secret (tests).
  explicit TokenSigner(std::string secret) : secret_(std::move(secret)) {}

  // "kuota1.<uid>.<64 hex digits>".
  std::string Issue(uid_t uid) const;
  // The uid a token names when kuotad issued it; nullopt otherwise.
  std::optional<uid_t> Verify(std::string_view token) const;

 private:
  std::string Mac(std::string_view message) const;
  std::string secret_;
};

}  // namespace kuota::auth
