#include "runtime/proc_stat.h"

#include <dirent.h>

#include <charconv>
#include <memory>

#include "runtime/os_files.h"

namespace kuota::runtime {
namespace {

template <typename T>
bool ParseNumber(std::string_view s, T* out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

}  // namespace

std::optional<ProcStat> ParseProcStat(std::string_view text) {
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  ProcStat st;
  std::string_view pid_text = text.substr(0, open);
  while (!pid_text.empty() && pid_text.back() == ' ') pid_text.remove_suffix(1);
  if (!ParseNumber(pid_text, &st.pid)) return std::nullopt;
  st.comm = std::string(text.substr(open + 1, close - open - 1));
  // Fields from 3 on, space separated.
  std::vector<std::string_view> fields;
  std::string_view rest = text.substr(close + 1);
  size_t i = 0;
  while (i < rest.size() && fields.size() < 20) {
    while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\n')) ++i;
    size_t j = i;
    while (j < rest.size() && rest[j] != ' ' && rest[j] != '\n') ++j;
    if (j > i) fields.push_back(rest.substr(i, j - i));
    i = j;
  }
  // fields[0] is field 3 (state); field N is fields[N - 3].
  if (fields.size() < 20 || fields[0].size() != 1) return std::nullopt;
  st.state = fields[0][0];
  if (!ParseNumber(fields[1], &st.ppid) || !ParseNumber(fields[2], &st.pgid) ||
      !ParseNumber(fields[3], &st.session) || !ParseNumber(fields[19], &st.start_time)) {
    return std::nullopt;
  }
  return st;
}

std::optional<ProcStat> ReadProcStat(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  auto text = ReadWholeFile("/proc/" + std::to_string(pid) + "/stat");
  if (!text.ok()) return std::nullopt;
  return ParseProcStat(*text);
}

std::vector<ProcStat> ListAllProcesses() {
  std::vector<ProcStat> out;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir("/proc"), closedir);
  if (!dir) return out;
  while (dirent* e = readdir(dir.get())) {
    pid_t pid = 0;
    std::string_view name(e->d_name);
    if (name.empty() || !ParseNumber(name, &pid)) continue;
    if (auto st = ReadProcStat(pid)) out.push_back(std::move(*st));
  }
  return out;
}

std::string ReadBootId() {
  auto text = ReadWholeFile("/proc/sys/kernel/random/boot_id");
  if (!text.ok()) return "";
  std::string id = std::move(text).value();
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

}  // namespace kuota::runtime
