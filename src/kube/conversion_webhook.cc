#include "kube/conversion_webhook.h"

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <chrono>

#include <nlohmann/json.hpp>

#include <httplib.h>

#include "api/conversion/conversion_review.h"

namespace kuota::kube {
namespace {

// kube-apiserver sends whole lists for conversion: allow bodies well above
// its 3 MiB object limit.
constexpr size_t kMaxReviewBytes = size_t{64} << 20;

}  // namespace

ConversionWebhook::ConversionWebhook() = default;

ConversionWebhook::~ConversionWebhook() { Stop(); }

Status ConversionWebhook::Start(const std::string& address, int port, const auth::TlsPem& pem,
                                const std::function<void(httplib::Server&)>& add_routes) {
  std::unique_ptr<BIO, decltype(&BIO_free)> cert_bio(
      BIO_new_mem_buf(pem.server_cert.data(), static_cast<int>(pem.server_cert.size())), &BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> key_bio(
      BIO_new_mem_buf(pem.server_key.data(), static_cast<int>(pem.server_key.size())), &BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr), &X509_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
  if (!cert || !key) return Status::Invalid("the webhook's certificate or key is not PEM");
  // The server's SSL_CTX takes references of its own to both.
  server_ = std::make_unique<httplib::SSLServer>(cert.get(), key.get());
  if (!server_->is_valid()) {
    server_.reset();
    return Status::Invalid("the webhook's certificate and key do not make a TLS context");
  }
  server_->set_payload_max_length(kMaxReviewBytes);
  server_->Post("/convert", [](const httplib::Request& req, httplib::Response& res) {
    nlohmann::json review = nlohmann::json::parse(req.body, nullptr, /*allow_exceptions=*/false);
    // A body that is not JSON is answered like any other bad review.
    nlohmann::json answer =
        conversion::ReviewConversion(review.is_discarded() ? nlohmann::json("not JSON") : review);
    res.set_content(answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                    "application/json");
  });
  if (add_routes) add_routes(*server_);
  port_ = port == 0 ? server_->bind_to_any_port(address)
                    : (server_->bind_to_port(address, port) ? port : -1);
  if (port_ < 0) {
    server_.reset();
    return Status::Unavailable("cannot listen on " + address + ":" + std::to_string(port) +
                               " (--webhook-port)");
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // httplib's stop() does nothing before the loop runs: a Stop() right after
  // Start() would then wait forever on a server that starts afterwards.
  while (!server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return Status::Ok();
}

void ConversionWebhook::Stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

}  // namespace kuota::kube
