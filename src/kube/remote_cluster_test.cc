// OpenRemoteCluster: the kubeconfigs MultiKueue refuses (Kueue's rules: no
// insecure TLS, no file paths, a server), and a worker that does not answer.
// (Real workers are reached in tests/e2e/multikueue_test.sh.)
#include "kube/remote_cluster.h"

#include <gtest/gtest.h>

namespace kuota::kube {
namespace {

std::string Kubeconfig(const std::string& cluster, const std::string& user) {
  return "apiVersion: v1\nkind: Config\nclusters:\n- name: w1\n  cluster:\n" + cluster +
         "contexts:\n- name: w1\n  context: {cluster: w1, user: u}\ncurrent-context: w1\n"
         "users:\n- name: u\n  user:\n" +
         user;
}

std::string Refusal(const std::string& kubeconfig) {
  Result<std::unique_ptr<control::RemoteCluster>> r = OpenRemoteCluster(kubeconfig);
  return r.ok() ? "" : r.status().message();
}

TEST(RemoteCluster, RefusesWhatKueueRefuses) {
  EXPECT_EQ(Refusal(Kubeconfig("    server: https://w1:6443\n    insecure-skip-tls-verify: true\n",
                               "    token: t\n")),
            "insecure TLS verification is not allowed for cluster w1");
  EXPECT_EQ(
      Refusal(Kubeconfig("    server: https://w1:6443\n    certificate-authority: /etc/ca.crt\n",
                         "    token: t\n")),
      "certificate-authority file paths are not allowed, use certificate-authority-data for "
      "cluster w1");
  EXPECT_EQ(Refusal(Kubeconfig("    certificate-authority-data: eA==\n", "    token: t\n")),
            "server URL is required for cluster w1");
  EXPECT_EQ(Refusal(Kubeconfig("    server: https://w1:6443\n", "    tokenFile: /root/token\n")),
            "file paths in user u are not allowed, put the credential in the kubeconfig");
  EXPECT_NE(Refusal("clusters: [").find("failed to parse kubeconfig"), std::string::npos);
}

TEST(RemoteCluster, UnreachableWorkerFailsTheProbe) {
  // Port 1 on loopback: nothing listens.
  Result<std::unique_ptr<control::RemoteCluster>> r =
      OpenRemoteCluster(Kubeconfig("    server: http://127.0.0.1:1\n", "    token: t\n"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  Status probed = (*r)->Probe();
  EXPECT_EQ(probed.code(), StatusCode::kUnavailable) << probed.message();
}

}  // namespace
}  // namespace kuota::kube
