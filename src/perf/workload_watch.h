// WorkloadWatch: a watch on every Workload of a Kubernetes-style API server
// (kuotad), read on its own thread and handed event by event to a callback.
// When the stream ends it resumes from the last resourceVersion seen; when
// that version has expired (410 Gone) it lists all Workloads again, hands
// each one to the callback, and watches from the list's version (a warning
// says transitions may have been missed). Start/Stop/Events/Error are
// thread-safe; the callback runs on the watch thread only.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "perf/api_client.h"

namespace kuota::perf {

inline constexpr const char* kWorkloadsPath = "/apis/kueue.x-k8s.io/v1beta2/workloads";

class WorkloadWatch {
 public:
  // `type` is ADDED, MODIFIED or DELETED; `object` the Workload.
  using OnEvent = std::function<void(const std::string& type, const nlohmann::json& object)>;
  using OnWarning = std::function<void(const std::string& message)>;

  WorkloadWatch(const ServerAddress& server, std::atomic<int64_t>* requests, OnEvent on_event,
                OnWarning on_warning);
  ~WorkloadWatch();
  WorkloadWatch(const WorkloadWatch&) = delete;
  WorkloadWatch& operator=(const WorkloadWatch&) = delete;

  // Starts watching events after `resource_version`.
  void Start(int64_t resource_version);
  // Ends the stream and joins the thread. Idempotent.
  void Stop();
  int64_t events() const { return events_.load(); }
  // Why the watch gave up (it retries transient failures for a while); empty
  // while it is healthy.
  std::string error() const;

 private:
  void Run();
  void RunLoop();
  void OnData(const char* data, size_t n);
  void HandleLine(std::string_view line);
  bool Relist();

  ServerAddress server_;
  OnEvent on_event_;
  OnWarning on_warning_;
  std::unique_ptr<ApiClient> client_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};  // Run() returned
  std::atomic<int64_t> events_{0};
  int64_t rv_ = 0;     // watch thread only
  bool gone_ = false;  // watch thread only: an ERROR event said 410
  std::string buf_;    // watch thread only
  mutable std::mutex mu_;
  std::string error_;  // guarded by mu_
};

}  // namespace kuota::perf
