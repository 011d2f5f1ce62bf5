#include "auth/os_user.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kuota::auth {
namespace {

size_t BufferSize(int name) {
  long n = ::sysconf(name);
  return n > 0 ? static_cast<size_t>(n) : 16384;
}

std::string GroupName(gid_t gid) {
  std::vector<char> buf(BufferSize(_SC_GETGR_R_SIZE_MAX));
  group gr{};
  group* found = nullptr;
  while (true) {
    int rc = ::getgrgid_r(gid, &gr, buf.data(), buf.size(), &found);
    if (rc == ERANGE && buf.size() < (1u << 20)) {
      buf.resize(buf.size() * 2);
      continue;
    }
    break;
  }
  if (found == nullptr) return "gid:" + std::to_string(gid);
  return gr.gr_name;
}

}  // namespace

Result<OsUser> LookupOsUser(uid_t uid) {
  std::vector<char> buf(BufferSize(_SC_GETPW_R_SIZE_MAX));
  passwd pw{};
  passwd* found = nullptr;
  int rc = 0;
  while (true) {
    rc = ::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found);
    if (rc == ERANGE && buf.size() < (1u << 20)) {
      buf.resize(buf.size() * 2);
      continue;
    }
    break;
  }
  if (found == nullptr) {
    std::string why = rc != 0 ? std::string(": ") + std::strerror(rc) : "";
    return Status::NotFound("no user account has uid " + std::to_string(uid) + why);
  }
  OsUser user;
  user.uid = pw.pw_uid;
  user.gid = pw.pw_gid;
  user.name = pw.pw_name;
  user.home = pw.pw_dir != nullptr ? pw.pw_dir : "/";
  int count = 32;
  std::vector<gid_t> groups(static_cast<size_t>(count));
  while (::getgrouplist(pw.pw_name, pw.pw_gid, groups.data(), &count) < 0) {
    if (count <= static_cast<int>(groups.size())) count = static_cast<int>(groups.size()) * 2;
    if (count > 65536) break;
    groups.resize(static_cast<size_t>(count));
  }
  groups.resize(static_cast<size_t>(std::max(count, 0)));
  user.groups = groups;
  for (gid_t g : user.groups) user.group_names.push_back(GroupName(g));
  return user;
}

}  // namespace kuota::auth
