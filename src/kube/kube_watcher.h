// KubeWatcher: one store::Watcher over several kube-apiserver watch streams
// (one per resource, each on its own thread and connection), merged into one
// queue of events for the engine's controller. Each stream asks for
// resourceVersion bookmarks, resumes after a dropped connection or a server
// timeout from the last version it saw (with exponential back-off while the
// server cannot be reached), and on 410 Gone ("Expired": the version is too
// old) ends the whole watcher (Alive() false) so the controller lists again.
// Thread-safe as store::Watcher requires.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/kube_client.h"
#include "store/object_store.h"

namespace kuota::kube {

struct WatchStreamSpec {
  std::string resource;  // store key, e.g. "jobs.batch"
  std::string ns;        // empty: every namespace
  int64_t from = 0;      // resourceVersion to resume after
};

struct KubeWatchOptions {
  int server_timeout_seconds = 300;  // the watch request's timeoutSeconds
  std::chrono::milliseconds backoff_initial{250};
  std::chrono::milliseconds backoff_max{30000};
  // Called with every resourceVersion seen (events and bookmarks).
  std::function<void(int64_t)> on_resource_version;
};

class KubeWatcher final : public store::Watcher {
 public:
  // Starts one thread per stream. `client` must outlive the watcher.
  KubeWatcher(KubeClient& client, std::vector<WatchStreamSpec> streams, KubeWatchOptions options);
  ~KubeWatcher() override;

  using store::Watcher::Next;
  bool Next(store::EventPtr* event, std::chrono::milliseconds timeout) override;
  void Stop() override;
  bool Alive() const override;

  // Reconnections made so far (each after a failure or a server timeout).
  int64_t reconnects() const;

 private:
  struct Stream;
  void RunStream(Stream& stream);
  // False when the stream must stop reading (an ERROR event).
  bool HandleLine(Stream& stream, std::string_view line, bool* gone);
  void Push(store::WatchEvent event);
  void Die();

  KubeClient& client_;
  const KubeWatchOptions options_;
  std::vector<std::unique_ptr<Stream>> streams_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<store::WatchEvent> queue_;
  bool stopped_ = false;
  bool dead_ = false;
  int64_t reconnects_ = 0;
};

}  // namespace kuota::kube
