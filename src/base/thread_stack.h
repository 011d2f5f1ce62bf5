// ThreadStack: the stack size of the threads a process starts from now on
// (std::thread cannot be given one). kuotad's request threads serialize,
// copy and compare client JSON recursively, up to server::kMaxJsonDepth
// levels; unoptimized sanitizer builds need far more than glibc's 8 MiB for
// that. A stack is address space: pages are committed only as they are used.
#pragma once

#include <cstddef>

#include "base/status.h"

namespace kuota {

// Threads started after this call get `bytes` of stack (rounded up to a
// page). Invalid or Internal naming the system's reason on failure.
Status SetDefaultThreadStackSize(size_t bytes);

// The stack size a thread started now gets.
size_t DefaultThreadStackSize();

}  // namespace kuota
