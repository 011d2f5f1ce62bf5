// OsUser: an operating-system account as the password and group databases
// describe it (getpwuid_r, getgrouplist), the source of truth for who a
// local user is. Thread-safe: the lookups use the reentrant calls.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/result.h"

namespace kuota::auth {

struct OsUser {
  uid_t uid = 0;
  gid_t gid = 0;                         // primary group
  std::string name;                      // login name
  std::string home;                      // home directory
  std::vector<gid_t> groups;             // every group the user is in, the primary one included
  std::vector<std::string> group_names;  // their names (gids without one as "gid:N")
};

// Looks `uid` up; NotFound when no account has it.
Result<OsUser> LookupOsUser(uid_t uid);

}  // namespace kuota::auth
