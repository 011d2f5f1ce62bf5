// Clang thread-safety annotations (GUARDED_BY, REQUIRES, ...) for the store's
// locks, as leveldb writes them: checked by clang with -Wthread-safety, no-ops
// under other compilers. Macros only; no state.
#pragma once

#if defined(__clang__)
#define KUOTA_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define KUOTA_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) KUOTA_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY KUOTA_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) KUOTA_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) KUOTA_THREAD_ANNOTATION(pt_guarded_by(x))
#define REQUIRES(...) KUOTA_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define EXCLUDES(...) KUOTA_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ACQUIRE(...) KUOTA_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) KUOTA_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RETURN_CAPABILITY(x) KUOTA_THREAD_ANNOTATION(lock_returned(x))
#define ASSERT_CAPABILITY(x) KUOTA_THREAD_ANNOTATION(assert_capability(x))
#define NO_THREAD_SAFETY_ANALYSIS KUOTA_THREAD_ANNOTATION(no_thread_safety_analysis)
