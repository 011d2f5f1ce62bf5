// The conversion webhook's certificates, managed the way Kueue's internal
// cert management does it: one Secret (created empty by the chart) holds a CA
// and a serving certificate for the webhook Service's DNS names; whichever
// replica finds it empty, unusable or near expiry generates new material and
// writes it (optimistic concurrency: a replica that loses the race reads the
// winner's), so every replica serves the same certificate. The CA is then
// patched into spec.conversion.webhook.clientConfig.caBundle of each Kueue
// CRD that asks for webhook conversion. Thread-compatible: call from one
// thread (KubeClient itself is thread-safe).
#pragma once

#include <string>
#include <vector>

#include "auth/tls_material.h"
#include "base/result.h"
#include "kube/kube_client.h"

namespace kuota::kube {

struct WebhookCertOptions {
  std::string ns = "kuota-system";  // the Secret's and the Service's namespace
  std::string secret_name = "kuota-webhook-server-cert";
  std::string service_name = "kuota-webhook-service";
};

// What the serving certificate covers: SERVICE.NS.svc (the name
// kube-apiserver checks) and SERVICE.NS.svc.cluster.local.
std::vector<std::string> WebhookDnsNames(const WebhookCertOptions& options);

// The Secret's material (keys ca.crt, ca.key, tls.crt, tls.key), generated
// and written when it lacks usable material. A missing Secret is created
// (which the chart's RBAC does not allow: the chart creates it); errors from
// the cluster are returned naming the Secret.
Result<auth::TlsPem> EnsureWebhookCert(KubeClient& client, const WebhookCertOptions& options);

// Sets clientConfig.caBundle to `ca_pem` in each of `crds` (CRD names such as
// clusterqueues.kueue.x-k8s.io) whose spec.conversion.strategy is Webhook and
// whose bundle differs, with a merge patch. Returns how many were patched; a
// CRD that is missing is skipped.
Result<int> InjectCaBundle(KubeClient& client, const std::vector<std::string>& crds,
                           const std::string& ca_pem);

}  // namespace kuota::kube
