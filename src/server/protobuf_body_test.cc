// Decoding kubectl's protobuf bodies, including truncated and hostile input.
#include <gtest/gtest.h>

#include <string>

#include "server/protobuf_body.h"
#include "server/resource_info.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}

std::string Bytes(uint32_t field, const std::string& value) {
  return Varint((field << 3) | 2) + Varint(value.size()) + value;
}

std::string Number(uint32_t field, uint64_t value) { return Varint(field << 3) + Varint(value); }

std::string Envelope(const std::string& api_version, const std::string& kind,
                     const std::string& raw) {
  return std::string("k8s\0", 4) + Bytes(1, Bytes(1, api_version) + Bytes(2, kind)) +
         Bytes(2, raw) + Bytes(3, "") + Bytes(4, "");
}

const ResourceInfo& Namespaces() { return *FindResource("", "namespaces"); }

TEST(ProtobufBodyTest, DecodesNamespace) {
  std::string meta = Bytes(1, "team-a") + Bytes(11, Bytes(1, "env") + Bytes(2, "prod")) +
                     Bytes(14, "f1") + Number(7, 3);
  std::string ns = Bytes(1, meta) + Bytes(2, Bytes(1, "kubernetes")) + Bytes(3, "");
  Result<Json> got = DecodeProtobufObject(Envelope("v1", "Namespace", ns), Namespaces());
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)["apiVersion"], "v1");
  EXPECT_EQ((*got)["kind"], "Namespace");
  EXPECT_EQ((*got)["metadata"]["name"], "team-a");
  EXPECT_EQ((*got)["metadata"]["labels"]["env"], "prod");
  EXPECT_EQ((*got)["metadata"]["finalizers"], Json::array({"f1"}));
  EXPECT_EQ((*got)["metadata"]["generation"], 3);
  EXPECT_EQ((*got)["spec"]["finalizers"], Json::array({"kubernetes"}));
}

TEST(ProtobufBodyTest, DecodesPriorityClass) {
  const ResourceInfo& pcs = *FindResource("scheduling.k8s.io", "priorityclasses");
  std::string pc = Bytes(1, Bytes(1, "high")) + Number(2, 1000) + Number(3, 1) + Bytes(4, "top") +
                   Bytes(5, "Never");
  Result<Json> got =
      DecodeProtobufObject(Envelope("scheduling.k8s.io/v1", "PriorityClass", pc), pcs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)["value"], 1000);
  EXPECT_EQ((*got)["globalDefault"], true);
  EXPECT_EQ((*got)["preemptionPolicy"], "Never");
  // Negative int32 values travel as 10-byte varints.
  std::string negative = Bytes(1, Bytes(1, "low")) + Number(2, static_cast<uint64_t>(-5LL));
  Result<Json> low =
      DecodeProtobufObject(Envelope("scheduling.k8s.io/v1", "PriorityClass", negative), pcs);
  ASSERT_TRUE(low.ok());
  EXPECT_EQ((*low)["value"], -5);
}

TEST(ProtobufBodyTest, DecodesRbacObjects) {
  // kubectl create role team-read --verb=get,list --resource=jobs.batch -n team-a
  std::string rule = Bytes(1, "get") + Bytes(1, "list") + Bytes(2, "batch") + Bytes(3, "jobs");
  std::string role = Bytes(1, Bytes(1, "team-read") + Bytes(3, "team-a")) + Bytes(2, rule);
  const ResourceInfo* roles = FindResource("rbac.authorization.k8s.io", "roles");
  ASSERT_NE(roles, nullptr);
  Result<Json> got =
      DecodeProtobufObject(Envelope("rbac.authorization.k8s.io/v1", "Role", role), *roles);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)["metadata"]["namespace"], "team-a");
  EXPECT_EQ((*got)["rules"][0]["verbs"], Json::array({"get", "list"}));
  EXPECT_EQ((*got)["rules"][0]["apiGroups"], Json::array({"batch"}));
  EXPECT_EQ((*got)["rules"][0]["resources"], Json::array({"jobs"}));

  std::string binding =
      Bytes(1, Bytes(1, "bob-read")) +
      Bytes(2, Bytes(1, "User") + Bytes(2, "rbac.authorization.k8s.io") + Bytes(3, "bob")) +
      Bytes(3, Bytes(1, "rbac.authorization.k8s.io") + Bytes(2, "Role") + Bytes(3, "team-read"));
  const ResourceInfo* bindings = FindResource("rbac.authorization.k8s.io", "rolebindings");
  ASSERT_NE(bindings, nullptr);
  got = DecodeProtobufObject(Envelope("rbac.authorization.k8s.io/v1", "RoleBinding", binding),
                             *bindings);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)["subjects"][0]["name"], "bob");
  EXPECT_EQ((*got)["subjects"][0]["kind"], "User");
  EXPECT_EQ((*got)["roleRef"]["kind"], "Role");
  EXPECT_EQ((*got)["roleRef"]["name"], "team-read");
}

TEST(ProtobufBodyTest, DecodesAccessReviews) {
  // kubectl auth can-i create jobs.batch -n team-a
  std::string attrs =
      Bytes(1, "team-a") + Bytes(2, "create") + Bytes(3, "batch") + Bytes(5, "jobs");
  std::string review = Bytes(1, "") + Bytes(2, Bytes(1, attrs)) + Bytes(3, "");
  Result<Json> got =
      DecodeProtobufKind(Envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", review),
                         "authorization.k8s.io/v1", "SelfSubjectAccessReview");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)["kind"], "SelfSubjectAccessReview");
  const Json& a = (*got)["spec"]["resourceAttributes"];
  EXPECT_EQ(a["namespace"], "team-a");
  EXPECT_EQ(a["verb"], "create");
  EXPECT_EQ(a["group"], "batch");
  EXPECT_EQ(a["resource"], "jobs");

  std::string non_resource = Bytes(2, Bytes(2, Bytes(1, "/metrics") + Bytes(2, "get")));
  got = DecodeProtobufKind(
      Envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", non_resource),
      "authorization.k8s.io/v1", "SelfSubjectAccessReview");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)["spec"]["nonResourceAttributes"]["path"], "/metrics");

  // The envelope must name the kind the path asked for.
  EXPECT_FALSE(DecodeProtobufKind(Envelope("authorization.k8s.io/v1", "SelfSubjectRulesReview", ""),
                                  "authorization.k8s.io/v1", "SelfSubjectAccessReview")
                   .ok());
  EXPECT_EQ(DecodeProtobufKind(Envelope("v1", "Pod", ""), "v1", "Pod").status().code(),
            StatusCode::kUnsupported);
}

TEST(ProtobufBodyTest, RejectsMalformedAndForeignBodies) {
  std::string good = Envelope("v1", "Namespace", Bytes(1, Bytes(1, "x")));
  EXPECT_TRUE(DecodeProtobufObject(good, Namespaces()).ok());
  for (size_t cut = 0; cut < good.size(); ++cut) {
    // Never crashes; a prefix without the whole magic fails.
    Result<Json> r = DecodeProtobufObject(good.substr(0, cut), Namespaces());
    if (cut < 4) {
      EXPECT_FALSE(r.ok()) << cut;
    }
  }
  EXPECT_FALSE(DecodeProtobufObject("{\"kind\":\"Namespace\"}", Namespaces()).ok());
  EXPECT_FALSE(DecodeProtobufObject(Envelope("v1", "Pod", ""), Namespaces()).ok());
  EXPECT_FALSE(DecodeProtobufObject(std::string("k8s\0", 4) + "\xff\xff\xff", Namespaces()).ok());
  std::string huge_length = std::string("k8s\0", 4) + Varint((2 << 3) | 2) + Varint(1ULL << 40);
  EXPECT_FALSE(DecodeProtobufObject(huge_length, Namespaces()).ok());
  std::string bad_utf8 = Envelope("v1", "Namespace", Bytes(1, Bytes(1, "\xff\xfe")));
  EXPECT_FALSE(DecodeProtobufObject(bad_utf8, Namespaces()).ok());
  EXPECT_EQ(DecodeProtobufObject(good, *FindResource("", "pods")).status().code(),
            StatusCode::kUnsupported);
}

}  // namespace
}  // namespace kuota::server
