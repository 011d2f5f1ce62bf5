// Fuzz target: server::DecodeProtobufObject, the Kubernetes protobuf
// envelope ("k8s\0" + runtime.Unknown) kubectl's typed clients send, read
// through the generated schema (server/protobuf_schema). Input: one byte
// choosing the resource (Namespace, PriorityClass, Pod, Job, Secret,
// ConfigMap, or ClusterQueue, which is not decodable), then the body.
// Asserts beyond "no crash": a decoded body is a JSON object of the
// resource's apiVersion and kind that serializes (dump() must not throw, as
// on invalid UTF-8 strings, since kuotad stores and answers it as JSON); a
// refusal is Invalid, or Unsupported for ClusterQueue.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "fuzz_check.h"
#include "server/protobuf_body.h"
#include "server/resource_info.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kuota;
  if (size == 0) return 0;
  static const server::ResourceInfo* const kResources[] = {
      server::FindResource("", "namespaces"),
      server::FindResource("scheduling.k8s.io", "priorityclasses"),
      server::FindResource("", "pods"),
      server::FindResource("batch", "jobs"),
      server::FindResource("", "secrets"),
      server::FindResource("", "configmaps"),
      server::FindResource("kueue.x-k8s.io", "clusterqueues"),
  };
  constexpr size_t kCount = sizeof kResources / sizeof kResources[0];
  const server::ResourceInfo& resource = *kResources[data[0] % kCount];
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  auto decoded = server::DecodeProtobufObject(body, resource);
  if (!decoded.ok()) {
    const StatusCode code = decoded.status().code();
    FUZZ_CHECK(code == StatusCode::kInvalid ||
                   (code == StatusCode::kUnsupported && !server::DecodesProtobuf(resource)),
               decoded.status().ToString());
    return 0;
  }
  FUZZ_CHECK(server::DecodesProtobuf(resource), resource.kind);
  const nlohmann::json& obj = decoded.value();
  FUZZ_CHECK(obj.is_object(), obj.dump());
  FUZZ_CHECK(obj.value("kind", "") == resource.kind, resource.kind);
  FUZZ_CHECK(obj.value("apiVersion", "") == resource.ApiVersion(), resource.kind);
  std::string text;
  try {
    text = obj.dump();
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("the decoded object does not serialize: ") + e.what());
  }
  FUZZ_CHECK(nlohmann::json::parse(text) == obj, text);
  return 0;
}
