// The exit file: one line the keeper writes when a command ends ("exit 3\n"
// or "signal 9\n"), or when it stopped before exec'ing the command ("aborted
// before exec\n": the command never ran, so it may be started again), so that
// a restarted daemon learns the outcome. This file reads it; the keeper writes
// it with async-signal-safe code in spawn.cc. Thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace kuota::runtime {

// What the keeper writes when the command was never exec'd.
inline constexpr std::string_view kAbortedBeforeExec = "aborted before exec\n";

struct ExitRecord {
  bool never_started = false;  // stopped before exec: the command never ran
  bool signaled = false;       // killed by a signal rather than exiting
  int value = 0;               // the exit code, or the signal number
};

// Parses "exit N\n", "signal N\n" or "aborted before exec\n" (trailing
// newline optional).
Result<ExitRecord> ParseExitRecord(std::string_view text);

// Reads and parses the exit file. NotFound when there is none yet.
Result<ExitRecord> ReadExitFile(const std::string& path);

// "exit 3\n" / "signal 9\n" / "aborted before exec\n": the format the keeper
// writes.
std::string FormatExitRecord(const ExitRecord& record);

}  // namespace kuota::runtime
