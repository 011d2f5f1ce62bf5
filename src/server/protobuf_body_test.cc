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

// Bytes from hex digits (kubectl -v=9 prints its protobuf bodies as a hex dump).
std::string FromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

Json MustDecode(const std::string& body, const std::string& group, const std::string& plural) {
  const ResourceInfo* r = FindResource(group, plural);
  EXPECT_NE(r, nullptr) << plural;
  if (r == nullptr) return Json();
  Result<Json> got = DecodeProtobufObject(body, *r);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  return got.ok() ? *got : Json();
}

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
  EXPECT_EQ(DecodeProtobufKind(Envelope("kueue.x-k8s.io/v1beta1", "ClusterQueue", ""),
                               "kueue.x-k8s.io/v1beta1", "ClusterQueue")
                .status()
                .code(),
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
  EXPECT_EQ(
      DecodeProtobufObject(good, *FindResource("kueue.x-k8s.io", "clusterqueues")).status().code(),
      StatusCode::kUnsupported);
}

// What kubectl v1.32 sent for `kubectl create secret generic s1 --from-literal=a=b
// --from-literal=c=d --type=foo`.
TEST(ProtobufBodyTest, DecodesKubectlCreateSecret) {
  Json got = MustDecode(
      FromHex("6b3873000a0c0a027631120653656372657412290a120a02733112001a0022002a00320038004200120"
              "60a016112016212060a01631201641a03666f6f1a002200"),
      "", "secrets");
  EXPECT_EQ(got["apiVersion"], "v1");
  EXPECT_EQ(got["kind"], "Secret");
  EXPECT_EQ(got["metadata"]["name"], "s1");
  // Zero values JSON leaves out are left out (namespace, uid, creationTimestamp, ...).
  EXPECT_EQ(got["metadata"], Json({{"name", "s1"}}));
  // map<string, bytes>: base64, as in JSON.
  EXPECT_EQ(got["data"], Json({{"a", "Yg=="}, {"c", "ZA=="}}));
  EXPECT_EQ(got["type"], "foo");
  EXPECT_FALSE(got.contains("immutable"));
}

TEST(ProtobufBodyTest, DecodesSecretStringDataAndImmutable) {
  std::string secret = Bytes(1, Bytes(1, "s")) + Bytes(4, Bytes(1, "k") + Bytes(2, "v")) +
                       Number(5, 0) +
                       Bytes(2, Bytes(1, "bin") + Bytes(2, std::string("\0\xff", 2)));
  Json got = MustDecode(Envelope("v1", "Secret", secret), "", "secrets");
  EXPECT_EQ(got["stringData"], Json({{"k", "v"}}));
  EXPECT_EQ(got["data"]["bin"], "AP8=");
  // A pointer field (*bool) keeps its zero value: immutable: false was sent.
  EXPECT_EQ(got["immutable"], false);
}

// kubectl create configmap c1 --from-literal=a=b
TEST(ProtobufBodyTest, DecodesKubectlCreateConfigMap) {
  Json got = MustDecode(
      FromHex("6b3873000a0f0a0276311209436f6e6669674d6170121c0a120a02633112001a0022002a003200380"
              "04200"
              "12060a01611201621a002200"),
      "", "configmaps");
  EXPECT_EQ(got["kind"], "ConfigMap");
  EXPECT_EQ(got["metadata"]["name"], "c1");
  EXPECT_EQ(got["data"], Json({{"a", "b"}}));
  std::string with_binary =
      Bytes(1, Bytes(1, "c2")) + Bytes(3, Bytes(1, "f") + Bytes(2, "\x01")) + Number(4, 1);
  got = MustDecode(Envelope("v1", "ConfigMap", with_binary), "", "configmaps");
  EXPECT_EQ(got["binaryData"], Json({{"f", "AQ=="}}));
  EXPECT_EQ(got["immutable"], true);
}

// kubectl create job j1 --image=busybox -- sh -c 'echo hi'
TEST(ProtobufBodyTest, DecodesKubectlCreateJob) {
  Json got = MustDecode(
      FromHex("6b3873000a0f0a0862617463682f763112034a6f62128b010a120a026a3112001a0022002a003200380"
              "04200126b32690a100a0012001a0022002a00320038004200125512320a026a31120762757379626f781"
              "a0273681a022d631a076563686f2068692a0042006a007200800100880100900100a201001a054e65766"
              "572320042004a005200580060006800820100"
              "8a01009a0100c201001a082000280030003a001a002200"),
      "batch", "jobs");
  EXPECT_EQ(got["apiVersion"], "batch/v1");
  EXPECT_EQ(got["metadata"]["name"], "j1");
  const Json& pod = got["spec"]["template"]["spec"];
  EXPECT_EQ(pod["restartPolicy"], "Never");
  ASSERT_EQ(pod["containers"].size(), 1u);
  EXPECT_EQ(pod["containers"][0]["name"], "j1");
  EXPECT_EQ(pod["containers"][0]["image"], "busybox");
  EXPECT_EQ(pod["containers"][0]["command"], Json::array({"sh", "-c", "echo hi"}));
  // Empty strings and false flags of value fields with omitempty are left out,
  // as kubectl's JSON would: no "dnsPolicy": "", "stdin": false, "hostNetwork": false.
  EXPECT_FALSE(pod.contains("dnsPolicy"));
  EXPECT_FALSE(pod.contains("hostNetwork"));
  EXPECT_FALSE(pod["containers"][0].contains("stdin"));
  EXPECT_FALSE(pod["containers"][0].contains("imagePullPolicy"));
  // A struct value is kept, empty, as JSON writes it.
  EXPECT_EQ(pod["containers"][0]["resources"], Json::object());
}

// kubectl debug node/vm --image=busybox -- true (a Pod with a hostPath volume).
TEST(ProtobufBodyTest, DecodesKubectlDebugPod) {
  Json got = MustDecode(
      FromHex("6b3873000a090a0276311203506f6412d2010a260a166e6f64652d64656275676765722d766d2d71687"
              "8676812001a0022002a003200380042001295010a120a09686f73742d726f6f7412050a030a012f124b"
              "0a086465627567676572120762757379626f781a04747275652a0042004a180a09686f73742d726f6f"
              "7410001a052f686f7374220032006a007200800100880100900100a2010446696c651a054e65766572"
              "320042004a005202766d5801600168018201008a01009a0100b2010e0a001206457869737473"
              "1a002200c201001a100a001a0022002a0032004a005a0072001a002200"),
      "", "pods");
  const Json& spec = got["spec"];
  // Volume's VolumeSource is inlined (json:",inline"), as in JSON.
  EXPECT_EQ(spec["volumes"], Json::parse(R"([{"name":"host-root","hostPath":{"path":"/"}}])"));
  const Json& c = spec["containers"][0];
  EXPECT_EQ(c["volumeMounts"], Json::parse(R"([{"name":"host-root","mountPath":"/host"}])"));
  EXPECT_EQ(c["terminationMessagePolicy"], "File");
  EXPECT_EQ(spec["nodeName"], "vm");
  EXPECT_EQ(spec["hostNetwork"], true);
  EXPECT_EQ(spec["hostPID"], true);
  EXPECT_EQ(spec["tolerations"], Json::parse(R"([{"operator":"Exists"}])"));
}

TEST(ProtobufBodyTest, DecodesSpecialTypes) {
  // A container with a cpu limit (Quantity), an env var from a Secret's key,
  // a probe on a named port (IntOrString), and a pod start time (Time).
  std::string quantity = Bytes(1, "500m");
  std::string resources = Bytes(1, Bytes(1, "cpu") + Bytes(2, quantity));
  std::string secret_ref = Bytes(1, Bytes(1, "creds")) + Bytes(2, "token") + Number(3, 1);
  std::string env = Bytes(1, "TOKEN") + Bytes(3, Bytes(4, secret_ref));
  std::string port = Number(1, 1) + Bytes(3, "http");
  std::string probe = Bytes(1, Bytes(3, Bytes(1, port))) + Number(2, 0);
  std::string container = Bytes(1, "main") + Bytes(8, resources) + Bytes(7, env) + Bytes(10, probe);
  std::string time = Number(1, 1767225600);  // 2026-01-01T00:00:00Z
  std::string pod = Bytes(1, Bytes(1, "p") + Bytes(8, time)) + Bytes(2, Bytes(2, container)) +
                    Bytes(3, Bytes(7, time));
  Json got = MustDecode(Envelope("v1", "Pod", pod), "", "pods");
  const Json& c = got["spec"]["containers"][0];
  EXPECT_EQ(c["resources"]["limits"]["cpu"], "500m");
  EXPECT_EQ(c["env"][0], Json::parse(R"({"name":"TOKEN","valueFrom":{"secretKeyRef":
                             {"name":"creds","key":"token","optional":true}}})"));
  EXPECT_EQ(c["livenessProbe"]["tcpSocket"]["port"], "http");
  EXPECT_FALSE(c["livenessProbe"].contains("initialDelaySeconds"));
  EXPECT_EQ(got["metadata"]["creationTimestamp"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(got["status"]["startTime"], "2026-01-01T00:00:00Z");
}

TEST(ProtobufBodyTest, KeepsPointerZerosAndReadsPackedLists) {
  // Job: suspend false and backoffLimit 0 are pointers, so they are kept;
  // podFailurePolicy's exit codes may arrive packed.
  std::string codes = Bytes(3, Varint(1) + Varint(42));
  std::string on_exit = Bytes(1, "") + Bytes(2, "In") + codes;
  std::string rule = Bytes(1, "FailJob") + Bytes(2, on_exit);
  std::string spec = Number(7, 0) + Number(10, 0) + Bytes(11, Bytes(1, rule));
  Json got = MustDecode(Envelope("batch/v1", "Job", Bytes(1, Bytes(1, "j")) + Bytes(2, spec)),
                        "batch", "jobs");
  EXPECT_EQ(got["spec"]["backoffLimit"], 0);
  EXPECT_EQ(got["spec"]["suspend"], false);
  EXPECT_EQ(got["spec"]["podFailurePolicy"]["rules"][0]["onExitCodes"]["values"],
            Json::array({1, 42}));
}

TEST(ProtobufBodyTest, NamesTheFieldOfAMalformedValue) {
  // containers[0].name sent as a number: the error names where.
  std::string pod = Bytes(2, Bytes(2, Bytes(2, "busybox") + Number(1, 7)));
  Result<Json> got = DecodeProtobufObject(Envelope("v1", "Pod", pod), *FindResource("", "pods"));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kInvalid);
  EXPECT_NE(got.status().message().find("spec.containers[0].name"), std::string::npos)
      << got.status().message();
  // A truncated nested message.
  std::string cut = Bytes(2, Bytes(2, Bytes(1, "main").substr(0, 4)));
  got = DecodeProtobufObject(Envelope("v1", "Pod", cut), *FindResource("", "pods"));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("spec.containers[0]"), std::string::npos)
      << got.status().message();
}

TEST(ProtobufBodyTest, DecodesDeleteOptionsOfAnyGroupVersion) {
  std::string options = Number(1, 5) + Bytes(2, Bytes(1, "uid-1")) + Bytes(4, "Foreground");
  Result<Json> got = DecodeProtobufDeleteOptions(Envelope("batch/v1", "DeleteOptions", options));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)["gracePeriodSeconds"], 5);
  EXPECT_EQ((*got)["preconditions"]["uid"], "uid-1");
  EXPECT_EQ((*got)["propagationPolicy"], "Foreground");
  EXPECT_FALSE(DecodeProtobufDeleteOptions(Envelope("v1", "Pod", options)).ok());
}

}  // namespace
}  // namespace kuota::server
