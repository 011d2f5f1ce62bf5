// Driver: kuotad's Kubernetes mode. Runs the same engine controller as the
// standalone server (control/controller.h) over a kube-apiserver instead
// of the embedded store (KubeObjectStore): Kueue's objects, Namespaces,
// PriorityClasses and the enabled job kinds are listed and watched there,
// Workloads created there (owned by their job), jobs unsuspended with the
// flavors' node labels and tolerations and suspended on eviction; pods are
// left to kube-scheduler and the kubelets, except that the pods of a job
// admitted by topology-aware scheduling wait behind Kueue's topology gate
// until they are ungated onto their domains (Nodes, pods and Kueue's
// Topologies are watched for it). With leader election (a
// coordination.k8s.io/v1 Lease) only one replica runs the engine. Serves
// /healthz, /readyz and /metrics on its own port, and (every replica) the
// CRDs' conversion webhook over HTTPS (conversion_webhook.h), its
// certificate kept in a Secret and its CA patched into the CRDs
// (webhook_certs.h).
#pragma once

#include <string>

#include "base/status.h"

namespace kuota::kube {

struct DriverOptions {
  std::string kubeconfig;   // the cluster's kubeconfig; empty with in_cluster
  bool in_cluster = false;  // the pod's service account instead
  std::string config_file;  // Kueue Configuration (integrations, clientConnection, leaderElection)
  bool leader_elect = true;
  std::string leader_election_namespace;  // empty: the pod's namespace, else kuota-system
  std::string leader_election_id;         // empty: kuota-controller-leader
  int lease_duration_seconds = 0;         // 0: the config's, else 15 (renew 10, retry 2)
  std::string address = "127.0.0.1";      // of the health and metrics port
  int health_port = 8081;                 // /healthz, /readyz, /metrics; -1: none
  // The conversion webhook (POST /convert, HTTPS) and Kueue's admission
  // webhooks on `address`; 0: any free port; -1: none (v1beta2 reads then fail
  // on a cluster whose CRDs ask for it, and the plain-pod integration is off).
  int webhook_port = 9443;
  // The webhook Service and the Secret that keeps its certificate, in the
  // pod's namespace (else kuota-system) unless webhook_namespace is set.
  std::string webhook_namespace;
  std::string webhook_service = "kuota-webhook-service";
  std::string webhook_secret = "kuota-webhook-server-cert";
};

// Runs until SIGINT/SIGTERM (Ok) or until leadership is lost (an error, so
// that the pod restarts and campaigns again). Errors when the cluster cannot
// be reached or does not serve Kueue's CRDs.
Status RunDriver(const DriverOptions& options);

}  // namespace kuota::kube
