#include "server/http_listener.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <openssl/err.h>

#include "server/connection_threads.h"

namespace kuota::server {
namespace {

using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Waits up to `timeout` for `events` on `fd`; true when one (or an error or
// hang-up, which the next read or write reports) arrived.
bool PollFor(int fd, short events, milliseconds timeout) {
  const auto deadline = SteadyClock::now() + timeout;
  while (true) {
    auto left = std::chrono::duration_cast<milliseconds>(deadline - SteadyClock::now());
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0)));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

void AddressOf(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  if ((peer ? ::getpeername(fd, sa, &len) : ::getsockname(fd, sa, &len)) != 0) return;
  std::array<char, NI_MAXHOST> host{};
  std::array<char, NI_MAXSERV> service{};
  if (::getnameinfo(sa, len, host.data(), host.size(), service.data(), service.size(),
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return;
  }
  ip = host.data();
  port = std::atoi(service.data());
}

// httplib's view of one accepted connection: buffered reads that give up
// after the read timeout or at the current request's deadline, writes that
// give up after the write timeout. Lives as long as the connection, so
// bytes a client sent ahead (a pipelined request) are kept for the next.
class ConnectionStream final : public httplib::Stream {
 public:
  // `busy` is set once a request is past its headers (httplib then asks
  // for the peer's address) or a reply is being written, until the next
  // BeginRequest.
  ConnectionStream(socket_t sock, SSL* ssl, milliseconds read_timeout, milliseconds write_timeout,
                   std::atomic<bool>& busy)
      : sock_(sock),
        ssl_(ssl),
        read_timeout_(read_timeout),
        write_timeout_(write_timeout),
        busy_(busy) {}

  // True when a request starts arriving within `timeout`.
  bool WaitForRequest(milliseconds timeout) {
    return off_ < len_ || Pending() || PollFor(sock_, POLLIN, timeout);
  }
  // Every read of the request now starting must be done by `deadline`.
  void BeginRequest(SteadyClock::time_point deadline) {
    deadline_ = deadline;
    busy_ = false;
  }

  bool is_readable() const override {
    milliseconds wait = ReadWait();
    return off_ < len_ || Pending() || (wait.count() > 0 && PollFor(sock_, POLLIN, wait));
  }

  bool is_writable() const override {
    if (!PollFor(sock_, POLLOUT, write_timeout_)) return false;
    // Writable is not enough: a client that hung up reads as end-of-file.
    pollfd p{sock_, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return true;
    char byte;
    return ::recv(sock_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
  }

  ssize_t read(char* ptr, size_t size) override {
    if (off_ < len_) {
      size_t n = std::min(size, len_ - off_);
      std::memcpy(ptr, buffer_.data() + off_, n);
      off_ += n;
      return static_cast<ssize_t>(n);
    }
    milliseconds wait = ReadWait();
    if (!Pending() && (wait.count() <= 0 || !PollFor(sock_, POLLIN, wait))) return -1;
    if (size >= buffer_.size()) return Recv(ptr, size);
    ssize_t n = Recv(buffer_.data(), buffer_.size());
    if (n <= 0) return n;
    off_ = 0;
    len_ = static_cast<size_t>(n);
    size_t copied = std::min(size, len_);
    std::memcpy(ptr, buffer_.data(), copied);
    off_ = copied;
    return static_cast<ssize_t>(copied);
  }

  ssize_t write(const char* ptr, size_t size) override {
    busy_ = true;
    if (!PollFor(sock_, POLLOUT, write_timeout_)) return -1;
    if (ssl_ != nullptr) {
      int n = SSL_write(ssl_, ptr, static_cast<int>(std::min<size_t>(size, 1 << 30)));
      return n > 0 ? n : -1;
    }
    ssize_t n;
    do {
      n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    busy_ = true;  // httplib asks right after reading the headers
    AddressOf(sock_, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    AddressOf(sock_, false, ip, port);
  }
  socket_t socket() const override { return sock_; }

 private:
  // How long the next read may wait: the read timeout, cut short by the
  // request's deadline.
  milliseconds ReadWait() const {
    auto to_deadline = std::chrono::duration_cast<milliseconds>(deadline_ - SteadyClock::now());
    return std::min(read_timeout_, to_deadline);
  }

  // Bytes TLS has decrypted already, which poll() cannot see.
  bool Pending() const { return ssl_ != nullptr && SSL_pending(ssl_) > 0; }

  ssize_t Recv(char* ptr, size_t size) {
    if (ssl_ != nullptr) {
      int n = SSL_read(ssl_, ptr, static_cast<int>(std::min<size_t>(size, 1 << 30)));
      if (n > 0) return n;
      return SSL_get_error(ssl_, n) == SSL_ERROR_ZERO_RETURN ? 0 : -1;
    }
    ssize_t n;
    do {
      n = ::recv(sock_, ptr, size, 0);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  const socket_t sock_;
  SSL* const ssl_;  // null for plain HTTP
  const milliseconds read_timeout_;
  const milliseconds write_timeout_;
  std::atomic<bool>& busy_;
  SteadyClock::time_point deadline_ = SteadyClock::time_point::max();
  std::array<char, 4096> buffer_{};
  size_t off_ = 0;  // next unread byte in buffer_
  size_t len_ = 0;  // bytes in buffer_
};

// The uid of the process at the other end of a Unix-domain socket; -1 for
// any other socket.
int64_t PeerUid(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
      addr.ss_family != AF_UNIX) {
    return -1;
  }
  ucred cred{};
  socklen_t cred_len = sizeof(cred);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0) return -1;
  return static_cast<int64_t>(cred.uid);
}

struct SslFree {
  void operator()(SSL* ssl) const { SSL_free(ssl); }
};

time_t Seconds(milliseconds ms) { return static_cast<time_t>((ms.count() + 999) / 1000); }

}  // namespace

HttpListener::HttpListener(const ListenerOptions& options) : options_(options) {
  const ListenerOptions o = options_;
  // httplib takes ownership of the queue it is handed (one per listen).
  new_task_queue = [o] {
    return std::make_unique<ConnectionThreads>(o.threads, o.max_threads, o.idle_thread_exit)
        .release();
  };
  // httplib still uses these: the Keep-Alive header it writes, and
  // SO_RCVTIMEO / SO_SNDTIMEO on accepted sockets (a bound on a blocked send).
  set_keep_alive_timeout(Seconds(o.keep_alive_timeout));
  set_keep_alive_max_count(std::max<size_t>(o.keep_alive_max_count, 1));
  set_read_timeout(Seconds(o.read_timeout));
  set_write_timeout(Seconds(o.write_timeout));
}

Status HttpListener::EnableTls(const std::string& cert_file, const std::string& key_file) {
  std::unique_ptr<SSL_CTX, SslCtxFree> ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) return Status::Internal("cannot create a TLS context");
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_AUTO_RETRY);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), cert_file.c_str()) != 1) {
    return Status::Invalid("cannot load the TLS certificate " + cert_file);
  }
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1) {
    return Status::Invalid("cannot load the TLS key " + key_file + " (or it is not " + cert_file +
                           "'s key)");
  }
  tls_ = std::move(ctx);
  return Status::Ok();
}

void HttpListener::CloseConnections(milliseconds grace) {
  const auto deadline = SteadyClock::now() + grace;
  store::MutexLock lock(&mu_);
  closing_ = true;
  for (const auto& [sock, busy] : open_) {
    if (!busy->load()) ::shutdown(sock, SHUT_RDWR);
  }
  while (!open_.empty() && SteadyClock::now() < deadline) closed_.WaitUntil(deadline);
  for (const auto& [sock, busy] : open_) ::shutdown(sock, SHUT_RDWR);
}

size_t HttpListener::open_connections() const {
  store::MutexLock lock(&mu_);
  return open_.size();
}

bool HttpListener::Register(socket_t sock, const std::atomic<bool>* busy) {
  store::MutexLock lock(&mu_);
  if (closing_) return false;
  open_[sock] = busy;
  return true;
}

void HttpListener::Unregister(socket_t sock) {
  store::MutexLock lock(&mu_);
  open_.erase(sock);
  closed_.SignalAll();
}

bool HttpListener::process_and_close_socket(socket_t sock) {
  bool ret = false;
  std::atomic<bool> busy{false};
  if (Register(sock, &busy)) {
    // Headers and body go out in separate writes: without TCP_NODELAY the
    // body waits for the client's delayed ACK (~40 ms per request).
    int yes = 1;
    ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    std::unique_ptr<SSL, SslFree> ssl;
    if (tls_) {
      // The handshake is bounded by the socket's receive timeout (httplib
      // sets SO_RCVTIMEO to the read timeout).
      ssl.reset(SSL_new(tls_.get()));
      if (!ssl || SSL_set_fd(ssl.get(), sock) != 1 || SSL_accept(ssl.get()) != 1) {
        ERR_clear_error();
        Unregister(sock);
        ::shutdown(sock, SHUT_RDWR);
        ::close(sock);
        return false;
      }
    }
    const int64_t peer_uid = PeerUid(sock);
    const std::string peer = peer_uid >= 0 ? std::to_string(peer_uid) : "";
    auto setup = [&peer](httplib::Request& req) {
      req.headers.erase(kPeerUidHeader);
      if (!peer.empty()) req.headers.emplace(kPeerUidHeader, peer);
    };
    ConnectionStream stream(sock, ssl.get(), options_.read_timeout, options_.write_timeout, busy);
    size_t left = std::max<size_t>(options_.keep_alive_max_count, 1);
    for (; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
      if (!stream.WaitForRequest(options_.keep_alive_timeout)) break;
      stream.BeginRequest(SteadyClock::now() + options_.request_read_timeout);
      bool connection_closed = false;
      ret = process_request(stream, /*close_connection=*/left == 1, connection_closed, setup);
      if (!ret || connection_closed) break;
    }
    if (ssl) SSL_shutdown(ssl.get());
    Unregister(sock);
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ret;
}

}  // namespace kuota::server
