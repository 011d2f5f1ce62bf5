#include "runtime/exit_file.h"

#include <charconv>

#include "runtime/os_files.h"

namespace kuota::runtime {

Result<ExitRecord> ParseExitRecord(std::string_view text) {
  std::string_view t = text;
  if (!t.empty() && t.back() == '\n') t.remove_suffix(1);
  ExitRecord rec;
  std::string_view aborted = kAbortedBeforeExec;
  aborted.remove_suffix(1);
  if (t == aborted) {
    rec.never_started = true;
    return rec;
  }
  std::string_view number;
  if (t.substr(0, 5) == "exit ") {
    number = t.substr(5);
  } else if (t.substr(0, 7) == "signal ") {
    rec.signaled = true;
    number = t.substr(7);
  } else {
    return Status::Invalid("exit record \"" + std::string(text) +
                           "\": want \"exit N\", \"signal N\" or \"aborted before exec\"");
  }
  auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), rec.value);
  if (number.empty() || ec != std::errc() || ptr != number.data() + number.size() ||
      rec.value < 0) {
    return Status::Invalid("exit record \"" + std::string(text) + "\": bad number");
  }
  return rec;
}

Result<ExitRecord> ReadExitFile(const std::string& path) {
  KUOTA_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  auto rec = ParseExitRecord(text);
  if (!rec.ok()) return rec.status().WithContext(path);
  return rec;
}

std::string FormatExitRecord(const ExitRecord& record) {
  if (record.never_started) return std::string(kAbortedBeforeExec);
  return (record.signaled ? "signal " : "exit ") + std::to_string(record.value) + "\n";
}

}  // namespace kuota::runtime
