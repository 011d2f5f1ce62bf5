// UserInfo: who is asking, as the API server's authenticator established it
// (kube-apiserver's user.Info): a user name, the groups RBAC subjects may
// name, and the operating-system uid the identity came from. Plain value
// type.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kuota::auth {

// Kubernetes' well-known groups.
inline constexpr const char* kGroupAuthenticated = "system:authenticated";
inline constexpr const char* kGroupUnauthenticated = "system:unauthenticated";
inline constexpr const char* kGroupMasters = "system:masters";  // allowed everything
inline constexpr const char* kAnonymousUser = "system:anonymous";

struct UserInfo {
  std::string name;                 // "alice"; kAnonymousUser when not authenticated
  std::vector<std::string> groups;  // kGroupAuthenticated, the OS groups' names, ...
  int64_t uid = -1;                 // the OS uid; -1 when not an OS user
  bool authenticated = false;

  bool InGroup(const std::string& group) const {
    for (const std::string& g : groups) {
      if (g == group) return true;
    }
    return false;
  }
  bool IsAdmin() const { return InGroup(kGroupMasters); }
};

// The identity of a request that carried no credential.
inline UserInfo Anonymous() {
  UserInfo u;
  u.name = kAnonymousUser;
  u.groups = {kGroupUnauthenticated};
  return u;
}

}  // namespace kuota::auth
