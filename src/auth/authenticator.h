// Authenticator: turns a request's credential into a UserInfo. Two kinds of
// credential, both resting on the operating system's word on who a user is:
// the peer uid of a Unix-socket connection (SO_PEERCRED), and a bearer
// token kuotad issued to that uid over such a connection (TokenSigner). The
// user's name and groups come from the password and group databases;
// `admin_uids` (root and the uid kuotad runs as) are also in system:masters.
// Thread-safe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/token_signer.h"
#include "auth/user_info.h"

namespace kuota::auth {

class Authenticator {
 public:
  Authenticator(TokenSigner signer, std::vector<uid_t> admin_uids);

  // From an Authorization header value ("Bearer <token>"); nullopt when it
  // holds no token kuotad issued, or its uid has no account any more.
  std::optional<UserInfo> FromAuthorization(std::string_view header) const;
  // The account `uid` (a Unix-socket peer); nullopt when there is none.
  std::optional<UserInfo> FromUid(uid_t uid) const;
  std::string IssueToken(uid_t uid) const { return signer_.Issue(uid); }

 private:
  const TokenSigner signer_;
  const std::vector<uid_t> admin_uids_;
  struct Cached {
    UserInfo user;
    std::chrono::steady_clock::time_point at;
  };
  mutable std::mutex mu_;
  mutable std::map<uid_t, Cached> cache_;  // accounts looked up in the last minute
};

}  // namespace kuota::auth
