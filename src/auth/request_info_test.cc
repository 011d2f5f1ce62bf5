// ParseRequestInfo: the verb, group, resource, namespace and name RBAC
// decides on, read from method and path as kube-apiserver reads them.
#include "auth/request_info.h"

#include <gtest/gtest.h>

namespace kuota::auth {
namespace {

TEST(RequestInfoTest, NamespacedResource) {
  RequestInfo r = ParseRequestInfo("GET", "/apis/batch/v1/namespaces/team-a/jobs/train", false);
  EXPECT_TRUE(r.resource_request);
  EXPECT_EQ(r.verb, "get");
  EXPECT_EQ(r.api_group, "batch");
  EXPECT_EQ(r.api_version, "v1");
  EXPECT_EQ(r.resource, "jobs");
  EXPECT_EQ(r.ns, "team-a");
  EXPECT_EQ(r.name, "train");
  EXPECT_EQ(QualifiedResource(r), "jobs.batch");
}

TEST(RequestInfoTest, VerbsFollowMethodAndCollection) {
  EXPECT_EQ(ParseRequestInfo("GET", "/api/v1/namespaces/a/pods", false).verb, "list");
  EXPECT_EQ(ParseRequestInfo("GET", "/api/v1/namespaces/a/pods", true).verb, "watch");
  EXPECT_EQ(ParseRequestInfo("GET", "/api/v1/watch/namespaces/a/pods", false).verb, "watch");
  EXPECT_EQ(ParseRequestInfo("POST", "/api/v1/namespaces/a/pods", false).verb, "create");
  EXPECT_EQ(ParseRequestInfo("PUT", "/api/v1/namespaces/a/pods/p", false).verb, "update");
  EXPECT_EQ(ParseRequestInfo("PATCH", "/api/v1/namespaces/a/pods/p", false).verb, "patch");
  EXPECT_EQ(ParseRequestInfo("DELETE", "/api/v1/namespaces/a/pods/p", false).verb, "delete");
  EXPECT_EQ(ParseRequestInfo("DELETE", "/api/v1/namespaces/a/pods", false).verb,
            "deletecollection");
}

TEST(RequestInfoTest, ClusterScopeSubresourceAndNonResource) {
  RequestInfo cq =
      ParseRequestInfo("PUT", "/apis/kueue.x-k8s.io/v1beta1/clusterqueues/cq/status", false);
  EXPECT_EQ(cq.ns, "");
  EXPECT_EQ(cq.resource, "clusterqueues");
  EXPECT_EQ(cq.subresource, "status");
  EXPECT_EQ(QualifiedResource(cq), "clusterqueues.kueue.x-k8s.io/status");
  RequestInfo log = ParseRequestInfo("GET", "/api/v1/namespaces/a/pods/p/log", false);
  EXPECT_EQ(log.api_group, "");
  EXPECT_EQ(QualifiedResource(log), "pods/log");
  RequestInfo ns = ParseRequestInfo("GET", "/api/v1/namespaces/a", false);
  EXPECT_EQ(ns.resource, "namespaces");
  EXPECT_EQ(ns.name, "a");
  RequestInfo health = ParseRequestInfo("GET", "/healthz", false);
  EXPECT_FALSE(health.resource_request);
  EXPECT_EQ(health.verb, "get");
  EXPECT_EQ(health.path, "/healthz");
  EXPECT_FALSE(ParseRequestInfo("GET", "/apis", false).resource_request);
}

}  // namespace
}  // namespace kuota::auth
