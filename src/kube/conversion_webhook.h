// ConversionWebhook: the HTTPS endpoint kube-apiserver calls to convert
// Kueue's objects between kueue.x-k8s.io/v1beta1 and v1beta2 (POST /convert
// with an apiextensions.k8s.io/v1 ConversionReview, answered by
// conversion::ReviewConversion), like Kueue's webhook server on port 9443.
// Every replica serves it, leader or not: kube-apiserver calls any endpoint of
// the webhook Service. Thread-safe: httplib's threads answer requests;
// Start and Stop are called from one thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "auth/tls_material.h"
#include "base/status.h"

namespace httplib {
class Server;
class SSLServer;
}  // namespace httplib

namespace kuota::kube {

class ConversionWebhook {
 public:
  ConversionWebhook();
  ~ConversionWebhook();  // Stop()
  ConversionWebhook(const ConversionWebhook&) = delete;
  ConversionWebhook& operator=(const ConversionWebhook&) = delete;

  // Serves on `address`:`port` (0: any free port) with `pem`'s server
  // certificate and key. Unavailable when the port cannot be bound; Invalid
  // when the certificate or key does not parse. `add_routes`, when set, adds
  // more handlers on the same server before it listens (the admission
  // webhooks: kube::AdmissionWebhook::Register).
  Status Start(const std::string& address, int port, const auth::TlsPem& pem,
               const std::function<void(httplib::Server&)>& add_routes = nullptr);
  // The bound port (after Start).
  int port() const { return port_; }
  // Stops serving and joins the thread. Idempotent.
  void Stop();

 private:
  std::unique_ptr<httplib::SSLServer> server_;
  std::thread thread_;
  int port_ = -1;
};

}  // namespace kuota::kube
