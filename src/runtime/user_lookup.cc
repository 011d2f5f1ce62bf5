#include "runtime/user_lookup.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "runtime/os_files.h"

namespace kuota::runtime {

Result<RunAs> LookUpUser(uint32_t uid) {
  long hint = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(hint > 0 ? static_cast<size_t>(hint) : 4096);
  struct passwd pw;
  struct passwd* found = nullptr;
  int err;
  while ((err = getpwuid_r(static_cast<uid_t>(uid), &pw, buf.data(), buf.size(), &found)) ==
             ERANGE &&
         buf.size() < (size_t{1} << 20)) {
    buf.resize(buf.size() * 2);
  }
  if (err == EINTR)
    return Status::Unavailable("looking up uid " + std::to_string(uid) + ": " + ErrnoText(err));
  // getpwuid_r reports "no such user" as 0 with no result, but some NSS
  // modules say ENOENT, ESRCH, EBADF or EPERM instead (see its man page).
  if (found == nullptr &&
      (err == 0 || err == ENOENT || err == ESRCH || err == EBADF || err == EPERM)) {
    return Status::NotFound("no passwd entry for uid " + std::to_string(uid));
  }
  if (err != 0 || found == nullptr) {
    return Status::Unavailable("looking up uid " + std::to_string(uid) + ": " + ErrnoText(err));
  }
  RunAs out;
  out.uid = uid;
  out.gid = static_cast<uint32_t>(pw.pw_gid);
  out.user_name = pw.pw_name != nullptr ? pw.pw_name : "";
  out.home = pw.pw_dir != nullptr && pw.pw_dir[0] != '\0' ? pw.pw_dir : "/";

  std::vector<gid_t> groups(32);
  for (int attempt = 0; attempt < 8; ++attempt) {
    int n = static_cast<int>(groups.size());
    if (getgrouplist(out.user_name.c_str(), pw.pw_gid, groups.data(), &n) >= 0) {
      groups.resize(static_cast<size_t>(n));
      out.groups.assign(groups.begin(), groups.end());
      return out;
    }
    // Too small: n now holds the number needed (glibc), else grow.
    groups.resize(std::max(static_cast<size_t>(n), groups.size() * 2));
  }
  return Status::Unavailable("looking up the groups of " + out.user_name + " (uid " +
                             std::to_string(uid) + "): too many groups");
}

}  // namespace kuota::runtime
