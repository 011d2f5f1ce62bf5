// DecodeDocuments/DecodeObject: the size limit, the stream of documents,
// `kind: List` expansion, the registry of supported kinds, validation, and
// the `document N (Kind "name", line L): ` prefix on every error. Documents
// are numbered from 1 in messages (DecodedObject::document_index is 0-based).
#include "api/codec/decode.h"

#include <exception>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

#include "api/codec/decoders.h"
#include "api/codec/json_tree.h"
#include "api/codec/yaml_tree.h"
#include "api/validation/field_errors.h"
#include "api/validation/validate.h"

namespace kuota::codec {
namespace {

using DecodeFn = Status (*)(MapReader&, api::ObjectValue&);

template <typename T, Status (*kDecode)(MapReader&, T&)>
Status DecodeAs(MapReader& r, api::ObjectValue& out) {
  T value{};
  KUOTA_RETURN_IF_ERROR(kDecode(r, value));
  out = std::move(value);
  return Status::Ok();
}

struct KindEntry {
  std::string_view api_version;
  std::string_view kind;
  bool namespaced;
  DecodeFn decode;
};

// Every kind Kuota reads.
constexpr KindEntry kKinds[] = {
    {"kueue.x-k8s.io/v1beta1", "ResourceFlavor", false,
     &DecodeAs<api::ResourceFlavor, DecodeResourceFlavor>},
    {"kueue.x-k8s.io/v1beta1", "ClusterQueue", false,
     &DecodeAs<api::ClusterQueue, DecodeClusterQueue>},
    {"kueue.x-k8s.io/v1beta1", "Cohort", false, &DecodeAs<api::Cohort, DecodeCohortV1beta1>},
    {"kueue.x-k8s.io/v1alpha1", "Cohort", false, &DecodeAs<api::Cohort, DecodeCohortV1alpha1>},
    {"kueue.x-k8s.io/v1beta1", "LocalQueue", true, &DecodeAs<api::LocalQueue, DecodeLocalQueue>},
    {"kueue.x-k8s.io/v1beta1", "WorkloadPriorityClass", false,
     &DecodeAs<api::WorkloadPriorityClass, DecodeWorkloadPriorityClass>},
    {"kueue.x-k8s.io/v1beta1", "AdmissionCheck", false,
     &DecodeAs<api::AdmissionCheck, DecodeAdmissionCheck>},
    {"kueue.x-k8s.io/v1beta1", "Workload", true, &DecodeAs<api::Workload, DecodeWorkload>},
    // kueue.x-k8s.io/v1beta2: renamed fields read into the same structs.
    {"kueue.x-k8s.io/v1beta2", "ResourceFlavor", false,
     &DecodeAs<api::ResourceFlavor, DecodeResourceFlavor>},
    {"kueue.x-k8s.io/v1beta2", "ClusterQueue", false,
     &DecodeAs<api::ClusterQueue, DecodeClusterQueueV1beta2>},
    {"kueue.x-k8s.io/v1beta2", "Cohort", false, &DecodeAs<api::Cohort, DecodeCohortV1beta1>},
    {"kueue.x-k8s.io/v1beta2", "LocalQueue", true, &DecodeAs<api::LocalQueue, DecodeLocalQueue>},
    {"kueue.x-k8s.io/v1beta2", "WorkloadPriorityClass", false,
     &DecodeAs<api::WorkloadPriorityClass, DecodeWorkloadPriorityClass>},
    {"kueue.x-k8s.io/v1beta2", "AdmissionCheck", false,
     &DecodeAs<api::AdmissionCheck, DecodeAdmissionCheckV1beta2>},
    {"kueue.x-k8s.io/v1beta2", "Workload", true, &DecodeAs<api::Workload, DecodeWorkloadV1beta2>},
    {"kueue.x-k8s.io/v1beta1", "Topology", false, &DecodeAs<api::Topology, DecodeTopology>},
    {"kueue.x-k8s.io/v1beta2", "Topology", false, &DecodeAs<api::Topology, DecodeTopology>},
    {"scheduling.k8s.io/v1", "PriorityClass", false,
     &DecodeAs<api::PriorityClass, DecodePriorityClass>},
    {"v1", "Namespace", false, &DecodeAs<api::Namespace, DecodeNamespace>},
    {"v1", "Node", false, &DecodeAs<api::Node, DecodeNode>},
    {"v1", "Pod", true, &DecodeAs<api::Pod, DecodePod>},
    {"config.kueue.x-k8s.io/v1beta1", "Configuration", false,
     &DecodeAs<api::Configuration, DecodeConfiguration>},
    {"config.kueue.x-k8s.io/v1beta2", "Configuration", false,
     &DecodeAs<api::Configuration, DecodeConfigurationV1beta2>},
};

const KindEntry* FindKind(std::string_view api_version, std::string_view kind) {
  for (const KindEntry& e : kKinds) {
    if (e.api_version == api_version && e.kind == kind) return &e;
  }
  return nullptr;
}

api::ObjectMeta* MetadataOf(api::ObjectValue& value) {
  return std::visit(
      [](auto& v) -> api::ObjectMeta* {
        if constexpr (requires { v.metadata; }) {
          return &v.metadata;
        } else {
          return nullptr;
        }
      },
      value);
}

// metadata.name as written, for error prefixes; empty when there is none.
std::string PeekName(const YamlNode& root) {
  for (size_t i = 0; i < root.size(); ++i) {
    const YamlNode& meta = root.value(i);
    if (root.key(i).scalar != "metadata" || !meta.is_map()) continue;
    for (size_t j = 0; j < meta.size(); ++j) {
      if (meta.key(j).scalar == "name" && meta.value(j).is_scalar()) return meta.value(j).scalar;
    }
  }
  return {};
}

// The first field path of a validation message ("spec.x: Invalid value: ...").
std::string_view FirstPath(std::string_view message) {
  size_t colon = message.find(": ");
  return colon == std::string_view::npos ? std::string_view() : message.substr(0, colon);
}

struct Where {
  int document_index = 0;  // 0-based
  std::string item;        // "items[3]" inside a List, else empty
  std::string kind;
  std::string name;
  int line = 0;
};

Status WithPrefix(const Status& st, const Where& where, int line) {
  std::string p = "document " + std::to_string(where.document_index + 1);
  if (!where.item.empty()) p += " " + where.item;
  p += " (";
  if (!where.kind.empty()) {
    p += where.kind;
    if (!where.name.empty()) p += " " + validation::QuoteValue(where.name);
    p += ", ";
  }
  p += "line " + std::to_string(line > 0 ? line : where.line) + ")";
  return st.WithContext(p);
}

class StreamDecoder {
 public:
  // One budget bounds the whole stream, so the decoded output stays within a
  // small multiple of the input however documents use aliases.
  StreamDecoder(const DecodeOptions& options, size_t text_bytes, std::vector<DecodedObject>& out)
      : options_(options), out_(out), budget_{100'000, 4 * text_bytes + (1u << 20)} {}

  // Decodes one non-empty document.
  Status Document(const YamlDocument& doc, int index) {
    budget_.nodes_left += 4 * doc.node_count();
    Where where;
    where.document_index = index;
    where.line = doc.line;
    return Object(*doc.root, budget_, where, /*inherited=*/nullptr);
  }

 private:
  // Decodes one object (a document, or an item of a List). `inherited` is
  // the kind of a typed list (e.g. ClusterQueueList) whose items may omit
  // apiVersion and kind.
  Status Object(const YamlNode& node, DecodeBudget& budget, Where where,
                const KindEntry* inherited) {
    DecodeContext ctx(budget);
    where.name = node.is_map() ? PeekName(node) : std::string();
    auto fail = [&](const Status& st) { return WithPrefix(st, where, ctx.error_line()); };
    if (!node.is_map()) {
      return fail(ctx.Fail(node, "",
                           "expected an object with apiVersion and kind, got " + node.Describe()));
    }
    MapReader r(ctx, node, "");
    if (!r.status().ok()) return fail(r.status());
    std::string api_version, kind;
    if (inherited == nullptr || r.Has("apiVersion") || r.Has("kind")) {
      for (std::string_view key : {"apiVersion", "kind"}) {
        if (!r.Has(key)) return fail(ctx.Fail(node, key, "Required value"));
      }
      Status st = r.String("apiVersion", api_version);
      if (st.ok()) st = r.String("kind", kind);
      if (!st.ok()) return fail(st);
    } else {
      api_version = inherited->api_version;
      kind = inherited->kind;
    }
    where.kind = kind;
    if (options_.skip_kinds.count(api_version + "/" + kind) != 0) return Status::Ok();

    if (inherited == nullptr && where.item.empty()) {
      const KindEntry* item_kind = nullptr;
      bool is_list = kind == "List";
      if (!is_list && kind.size() > 4 && kind.compare(kind.size() - 4, 4, "List") == 0) {
        item_kind = FindKind(api_version, std::string_view(kind).substr(0, kind.size() - 4));
        is_list = item_kind != nullptr;
      }
      if (is_list) return List(r, budget, where, item_kind);
    }

    const KindEntry* entry = FindKind(api_version, kind);
    if (entry == nullptr) {
      const YamlNode* at = &node;
      for (size_t i = 0; i < node.size(); ++i) {
        if (node.key(i).scalar == "kind") at = &node.value(i);
      }
      return fail(ctx.Fail(
          *at, "",
          "unsupported apiVersion/kind " + validation::QuoteValue(api_version + "/" + kind)));
    }
    DecodedObject decoded;
    decoded.object.api_version = api_version;
    decoded.object.kind = kind;
    decoded.document_index = where.document_index;
    decoded.line = node.line;
    Status st = entry->decode(r, decoded.object.value);
    if (st.ok()) st = r.Finish();
    if (!st.ok()) return fail(st);
    if (!entry->namespaced) {
      // As the API server does on create: cluster-scoped objects have no
      // namespace.
      if (api::ObjectMeta* meta = MetadataOf(decoded.object.value)) meta->namespace_.clear();
    }
    if (options_.validate) {
      validation::ValidateOptions vopts;
      vopts.check_names = options_.validate_names;
      vopts.allow_several_min_count_pod_sets = options_.allow_several_min_count_pod_sets;
      vopts.old = options_.old_object;
      st = validation::Validate(decoded.object, vopts);
      if (!st.ok()) return WithPrefix(st, where, ctx.LineOf(FirstPath(st.message())));
    }
    out_.push_back(std::move(decoded));
    return Status::Ok();
  }

  Status List(MapReader& r, DecodeBudget& budget, const Where& where, const KindEntry* item_kind) {
    DecodeContext& ctx = r.ctx();
    auto fail = [&](const Status& st) { return WithPrefix(st, where, ctx.error_line()); };
    r.Ignore({"metadata"});
    const YamlNode* items = r.Get("items");
    Status st = r.status();
    if (st.ok()) st = r.Finish();
    if (!st.ok()) return fail(st);
    if (items == nullptr) return Status::Ok();
    if (!items->is_sequence()) {
      return fail(ctx.Fail(*items, "items", "expected a list, got " + items->Describe()));
    }
    for (size_t i = 0; i < items->size(); ++i) {
      const YamlNode& item = items->item(i);
      std::string path = IndexPath("items", i);
      st = ctx.Visit(item, path);
      if (!st.ok()) return fail(st);
      Where item_where;
      item_where.document_index = where.document_index;
      item_where.item = path;
      item_where.line = item.line;
      KUOTA_RETURN_IF_ERROR(Object(item, budget, item_where, item_kind));
    }
    return Status::Ok();
  }

  const DecodeOptions& options_;
  std::vector<DecodedObject>& out_;
  DecodeBudget budget_;
};

Result<std::vector<DecodedObject>> DecodeStream(std::string_view text,
                                                const DecodeOptions& options) {
  if (text.size() > options.max_bytes) {
    return Status::TooLarge("input is " + std::to_string(text.size()) +
                            " bytes, over the limit of " + std::to_string(options.max_bytes) +
                            " bytes");
  }
  std::vector<DecodedObject> out;
  StreamDecoder decoder(options, text.size(), out);
  YamlStream stream(text);
  for (int index = 0;; ++index) {
    Result<std::unique_ptr<YamlDocument>> doc = stream.Next();
    if (!doc.ok()) return doc.status().WithContext("document " + std::to_string(index + 1));
    if (*doc == nullptr) break;
    if ((*doc)->root->is_null()) continue;  // empty document
    KUOTA_RETURN_IF_ERROR(decoder.Document(**doc, index));
  }
  return out;
}

Result<std::vector<DecodedObject>> DecodeJson(const nlohmann::json& object,
                                              const DecodeOptions& options) {
  KUOTA_ASSIGN_OR_RETURN(std::unique_ptr<JsonTree> tree, JsonToTree(object));
  if (tree->approx_bytes > options.max_bytes) {
    return Status::TooLarge("input is about " + std::to_string(tree->approx_bytes) +
                            " bytes, over the limit of " + std::to_string(options.max_bytes) +
                            " bytes");
  }
  std::vector<DecodedObject> out;
  if (tree->doc.root->is_null()) return out;  // as an empty document
  StreamDecoder decoder(options, tree->approx_bytes, out);
  KUOTA_RETURN_IF_ERROR(decoder.Document(tree->doc, 0));
  return out;
}

// The boundary: nothing thrown below (allocation failure included) escapes.
template <typename F>
Result<std::vector<DecodedObject>> Guarded(F&& decode) {
  try {
    return decode();
  } catch (const std::bad_alloc&) {
    return Status::TooLarge("out of memory while decoding");
  } catch (const std::exception& e) {
    return Status::Internal(std::string("decoding failed: ") + e.what());
  } catch (...) {
    return Status::Internal("decoding failed with an unknown exception");
  }
}

Result<api::Object> ExactlyOne(Result<std::vector<DecodedObject>> objects) {
  if (!objects.ok()) return objects.status();
  if (objects->size() != 1) {
    return Status::Invalid("expected exactly one object, found " + std::to_string(objects->size()));
  }
  return std::move(objects->front().object);
}

}  // namespace

Result<std::vector<DecodedObject>> DecodeDocuments(std::string_view text,
                                                   const DecodeOptions& options) {
  return Guarded([&] { return DecodeStream(text, options); });
}

Result<api::Object> DecodeObject(std::string_view text, const DecodeOptions& options) {
  return ExactlyOne(DecodeDocuments(text, options));
}

Result<api::Object> DecodeJsonObject(const nlohmann::json& object, const DecodeOptions& options) {
  return ExactlyOne(Guarded([&] { return DecodeJson(object, options); }));
}

}  // namespace kuota::codec
