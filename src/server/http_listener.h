// HttpListener: the httplib::Server that kuotad's listeners are. Each
// connection is served on a thread of its own from a ConnectionThreads pool
// (so watches and slow clients never hold up other requests until that pool
// reaches its cap), every request is read under deadlines (a client silent
// for read_timeout mid-request, or whose request line, headers and body take
// longer than request_read_timeout in all, is dropped), keep-alive waits
// sleep in poll() instead of httplib's 10 ms polling, and every open
// connection can be shut at once when the server stops.
// With EnableTls, every connection speaks TLS (1.2 or later) first. On a
// Unix-domain socket, each request carries the connecting process's uid
// (SO_PEERCRED) in the header kPeerUidHeader, which the listener sets and
// strips from what clients send, so the handler can trust it.
// Thread-safe as httplib::Server: configure, then listen on one thread;
// stop() and CloseConnections() from any.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include <openssl/ssl.h>

#include <httplib.h>

#include "base/status.h"
#include "store/mutex.h"
#include "store/thread_annotations.h"

namespace kuota::server {

struct ListenerOptions {
  size_t threads = 16;       // connection threads kept ready
  size_t max_threads = 512;  // connections served at once; more wait for a thread
  std::chrono::milliseconds idle_thread_exit{10'000};  // extra threads end after this idle
  // A client that sends nothing for this long in the middle of a request is
  // dropped; a reply the client does not read for this long is abandoned.
  std::chrono::milliseconds read_timeout{5'000};
  std::chrono::milliseconds write_timeout{5'000};
  // A request's line, headers and body must arrive within this long of its
  // first byte (kube-apiserver allows 32 s for the headers).
  std::chrono::milliseconds request_read_timeout{30'000};
  // An idle keep-alive connection is closed after this long.
  std::chrono::milliseconds keep_alive_timeout{5'000};
  size_t keep_alive_max_count = 1000;  // requests per connection
};

// Set on each request served over a Unix-domain socket: the peer's uid.
inline constexpr const char* kPeerUidHeader = "X-Kuota-Peer-Uid";

class HttpListener : public httplib::Server {
 public:
  explicit HttpListener(const ListenerOptions& options);

  // Serves TLS with this PEM certificate (chain) and key; before listening.
  Status EnableTls(const std::string& cert_file, const std::string& key_file);

  // For server shutdown, after stop(): shuts (SHUT_RDWR) each connection
  // that is idle or still sending its request headers, and each one
  // accepted from now on, so the threads serving them return promptly; gives
  // the others (requests being answered; end open streams first) up to
  // `grace` to finish, then shuts them too.
  void CloseConnections(std::chrono::milliseconds grace) EXCLUDES(mu_);

  // Connections being served now.
  size_t open_connections() const EXCLUDES(mu_);

 private:
  // Replaces httplib's: serves the requests of one accepted connection.
  bool process_and_close_socket(socket_t sock) override;
  // `busy` (owned by the caller until Unregister) is true while a request
  // is past its headers.
  bool Register(socket_t sock, const std::atomic<bool>* busy) EXCLUDES(mu_);
  void Unregister(socket_t sock) EXCLUDES(mu_);

  struct SslCtxFree {
    void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
  };
  const ListenerOptions options_;
  std::unique_ptr<SSL_CTX, SslCtxFree> tls_;
  mutable store::Mutex mu_;
  store::CondVar closed_{&mu_};  // a connection was unregistered
  std::map<socket_t, const std::atomic<bool>*> open_ GUARDED_BY(mu_);
  bool closing_ GUARDED_BY(mu_) = false;
};

}  // namespace kuota::server
