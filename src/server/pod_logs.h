// PodLogs: the `log` subresource of pods (GET
// /api/v1/namespaces/{ns}/pods/{name}/log), which `kubectl logs [-f]` reads.
// Logs are files the local runtime writes at <log_dir>/<pod uid>/<container>.log;
// this serves them as plain text with kube-apiserver's query parameters
// (container, follow, tailLines, limitBytes, sinceSeconds/sinceTime,
// timestamps — ignored; previous — refused) and its error messages. A follow
// streams appended bytes until the container or pod has finished and the file
// is drained, the pod is deleted, the client goes away, or Stop() is called;
// it survives the file being truncated in place or replaced (a log-size cap
// that keeps the tail). Thread-safe: one instance serves every request thread.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "server/http_types.h"
#include "store/mutex.h"
#include "store/object_store.h"

namespace kuota::server {

struct PodLogOptions {
  // <log_dir>/<pod uid>/<container>.log. Empty: logs are not available.
  std::string log_dir;
  // How often a follow looks for new bytes, and re-reads the pod's status.
  std::chrono::milliseconds file_poll{100};
  std::chrono::milliseconds pod_poll{200};
};

class PodLogs {
 public:
  // `store` must outlive this, and this every stream it returned.
  PodLogs(store::ObjectStore& store, PodLogOptions options);
  PodLogs(const PodLogs&) = delete;
  PodLogs& operator=(const PodLogs&) = delete;

  // True when `path` is /api/v1/namespaces/{ns}/pods/{name}/log; sets ns, name.
  static bool ParsePath(std::string_view path, std::string* ns, std::string* name);

  // Serves GET .../pods/{name}/log. Errors are kube Status replies: 404 for a
  // missing pod, 400 for a missing/unknown container, a container that has not
  // started, bad parameters, `previous`, or a server without a log directory.
  HttpReply Serve(const HttpRequest& request, const std::string& ns, const std::string& name);

  // Ends open follows (after what they are writing) and makes new ones end at
  // once. For server shutdown; idempotent.
  void Stop();

 private:
  // True once the container `container` of pod ns/name (with `uid`) has
  // finished, the pod is gone or was replaced.
  bool ContainerFinished(const std::string& ns, const std::string& name, const std::string& uid,
                         const std::string& container);
  // Waits up to `d` or until Stop(); returns false once stopping.
  bool Sleep(std::chrono::milliseconds d);
  bool Stopping();

  store::ObjectStore& store_;
  const PodLogOptions options_;
  store::Mutex mu_;
  store::CondVar cv_{&mu_};
  bool stopping_ GUARDED_BY(mu_) = false;
};

}  // namespace kuota::server
