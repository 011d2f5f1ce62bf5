#include "auth/authenticator.h"

#include <algorithm>

#include "auth/os_user.h"

namespace kuota::auth {

Authenticator::Authenticator(TokenSigner signer, std::vector<uid_t> admin_uids)
    : signer_(std::move(signer)), admin_uids_(std::move(admin_uids)) {}

std::optional<UserInfo> Authenticator::FromAuthorization(std::string_view header) const {
  constexpr std::string_view kBearer = "Bearer ";
  if (header.size() <= kBearer.size()) return std::nullopt;
  for (size_t i = 0; i < kBearer.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(header[i])) !=
        std::tolower(static_cast<unsigned char>(kBearer[i]))) {
      return std::nullopt;
    }
  }
  std::string_view token = header.substr(kBearer.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && (token.back() == ' ' || token.back() == '\r')) token.remove_suffix(1);
  std::optional<uid_t> uid = signer_.Verify(token);
  if (!uid) return std::nullopt;
  return FromUid(*uid);
}

std::optional<UserInfo> Authenticator::FromUid(uid_t uid) const {
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(uid);
    if (it != cache_.end() && now - it->second.at < std::chrono::minutes(1)) return it->second.user;
  }
  Result<OsUser> os = LookupOsUser(uid);
  if (!os.ok()) return std::nullopt;
  UserInfo user;
  user.name = os->name;
  user.uid = uid;
  user.authenticated = true;
  user.groups.push_back(kGroupAuthenticated);
  if (std::find(admin_uids_.begin(), admin_uids_.end(), uid) != admin_uids_.end()) {
    user.groups.push_back(kGroupMasters);
  }
  for (const std::string& g : os->group_names) user.groups.push_back(g);
  std::lock_guard lock(mu_);
  cache_[uid] = Cached{user, now};
  return user;
}

}  // namespace kuota::auth
