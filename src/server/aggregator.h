// Aggregator: kube-apiserver's API aggregation layer for kuotad --serve-only
// (the stand-in cluster). apiregistration.k8s.io/v1 APIService objects are
// stored and served like any other kind (api_service_rules.h validates
// them); a request under /apis/GROUP/VERSION that an APIService
// VERSION.GROUP registers is proxied to that APIService's Service, resolved
// as kube-apiserver's endpoint routing does (--enable-aggregator-routing:
// the Service's port that spec.service.port names, then an address and the
// port of the same name from the Service's Endpoints), over HTTPS verified
// with spec.caBundle (for the name SERVICE.NAMESPACE.svc) unless
// spec.insecureSkipTLSVerify. The aggregator presents its proxy client
// certificate and passes the authenticated user in X-Remote-User and
// X-Remote-Group, as kube-apiserver does with --proxy-client-cert-file and
// --requestheader-* flags; the CA that signed that certificate and the header
// names are published in kube-system/extension-apiserver-authentication, where
// extension API servers read them. /apis/GROUP is answered here, and the
// registered groups are added to /apis (legacy and aggregated discovery).
// As kube-apiserver's AvailableConditionController, a thread checks every
// APIService's Service (resolution, then its discovery document) and keeps
// status.conditions[Available] current (Passed, ServiceNotFound,
// MissingEndpoints, FailedDiscoveryCheck; Local for service-less ones).
// Thread-safe: every call reads the store; nothing is cached.
#pragma once

#include <string>
#include <string_view>
#include <thread>

#include <nlohmann/json.hpp>

#include "auth/tls_material.h"
#include "base/status.h"
#include "server/http_types.h"
#include "store/mutex.h"
#include "store/object_store.h"
#include "store/thread_annotations.h"

namespace kuota::server {

struct AggregatorOptions {
  // The subject (CN) of the proxy client certificate, listed in the
  // published requestheader-allowed-names.
  std::string proxy_client_name = "front-proxy-client";
  // A proxied request (connect, send, the whole answer) may take this long.
  int timeout_seconds = 30;
  // How often the APIServices' availability is checked (0: never).
  int availability_interval_ms = 2000;
};

class Aggregator {
 public:
  // `store` must outlive the aggregator.
  Aggregator(store::ObjectStore& store, AggregatorOptions options);
  ~Aggregator();  // ends the availability thread
  Aggregator(const Aggregator&) = delete;
  Aggregator& operator=(const Aggregator&) = delete;

  // Makes the proxy's client CA and certificate (in memory: a restarted
  // stand-in makes new ones and publishes them again) and creates or updates
  // the ConfigMap kube-system/extension-apiserver-authentication with the
  // requestheader-* keys kube-apiserver writes there, and starts checking
  // availability. Call once, before serving (the namespace kube-system must
  // exist).
  Status Start();

  // Checks every APIService once and writes the Available conditions that
  // changed (what the availability thread does each interval).
  void CheckAvailability();

  // True for /apis/GROUP and the paths below /apis/GROUP/VERSION when an
  // APIService registers GROUP (or VERSION.GROUP) and GROUP is not one the
  // server serves itself.
  bool Handles(std::string_view path) const;
  // Answers a request for which Handles() is true: the APIGroup document, or
  // the request proxied to the APIService's Service (503 "service
  // unavailable" when it cannot be resolved or reached, as kube-apiserver).
  HttpReply Serve(const HttpRequest& request) const;
  // Adds the registered groups to a /apis discovery reply (legacy
  // APIGroupList or aggregated APIGroupDiscoveryList), replacing any entry
  // of the same name. Other replies are left alone.
  void AmendDiscovery(const HttpRequest& request, HttpReply& reply) const;

  // The proxy's client CA and certificate (after Start).
  const auth::ClientPem& proxy_client() const { return client_; }

 private:
  store::ObjectStore& store_;
  const AggregatorOptions options_;
  // Available True (Passed or Local) or False with kube-apiserver's reason.
  nlohmann::json AvailableCondition(const nlohmann::json& api_service) const;
  void StartAvailability();

  auth::ClientPem client_;  // set by Start, read-only afterwards
  store::Mutex mu_;
  store::CondVar wake_{&mu_};
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread availability_;
};

}  // namespace kuota::server
