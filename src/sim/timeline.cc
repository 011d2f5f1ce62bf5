#include "sim/timeline.h"

#include <memory>
#include <utility>

#include "api/codec/decode_context.h"
#include "api/codec/decoders.h"
#include "api/codec/map_reader.h"
#include "api/codec/yaml_tree.h"

namespace kuota::sim {
namespace {

using codec::DecodeContext;
using codec::MapReader;
using codec::YamlNode;

// The scalar value of a top-level key, or "".
std::string Peek(const YamlNode& root, std::string_view key) {
  for (size_t i = 0; i < root.size(); ++i) {
    if (root.key(i).scalar == key && root.value(i).is_scalar()) return root.value(i).scalar;
  }
  return {};
}

std::string PeekName(const YamlNode& root) {
  for (size_t i = 0; i < root.size(); ++i) {
    const YamlNode& meta = root.value(i);
    if (root.key(i).scalar != "metadata" || !meta.is_map()) continue;
    return Peek(meta, "name");
  }
  return {};
}

// `key` must be "namespace/name"; `what` names the kind for the message.
Status CheckNamespacedKey(DecodeContext& ctx, const YamlNode& node, const std::string& path,
                          const std::string& key, const std::string& what = "a workload") {
  const size_t slash = key.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == key.size() ||
      key.find('/', slash + 1) != std::string::npos) {
    return ctx.Fail(node, path, what + " is written as namespace/name, not \"" + key + "\"");
  }
  return Status::Ok();
}

Status ReadWorkloadList(DecodeContext& ctx, MapReader& r, std::string_view key,
                        std::vector<std::string>& out) {
  const YamlNode* v = r.Get(key);
  KUOTA_RETURN_IF_ERROR(r.status());
  if (v == nullptr) return Status::Ok();
  return codec::ForEachItem(ctx, *v, r.PathOf(key),
                            [&](const YamlNode& item, const std::string& path, size_t) {
                              std::string s;
                              KUOTA_RETURN_IF_ERROR(codec::ReadString(ctx, item, path, s));
                              KUOTA_RETURN_IF_ERROR(CheckNamespacedKey(ctx, item, path, s));
                              out.push_back(std::move(s));
                              return Status::Ok();
                            });
}

// Calls visit(key, value, path) for each entry of the map at `path`.
template <typename F>
Status ForEachEntry(DecodeContext& ctx, const YamlNode& node, const std::string& path, F&& visit) {
  if (!node.is_map()) return ctx.Fail(node, path, "expected a map, got " + node.Describe());
  MapReader m(ctx, node, path);
  KUOTA_RETURN_IF_ERROR(m.status());
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string key = node.key(i).scalar;
    const YamlNode* v = m.Get(key);
    KUOTA_RETURN_IF_ERROR(m.status());
    const std::string item_path = codec::KeyPath(path, key);
    if (v == nullptr) return ctx.Fail(node.value(i), item_path, "null is not allowed here");
    KUOTA_RETURN_IF_ERROR(visit(key, *v, item_path));
  }
  return Status::Ok();
}

Status ReadStopPolicies(DecodeContext& ctx, const YamlNode& node, const std::string& path,
                        bool local_queues, std::map<std::string, api::StopPolicy>& out) {
  return ForEachEntry(
      ctx, node, path, [&](const std::string& key, const YamlNode& v, const std::string& p) {
        if (local_queues) KUOTA_RETURN_IF_ERROR(CheckNamespacedKey(ctx, v, p, key, "a LocalQueue"));
        std::string s;
        KUOTA_RETURN_IF_ERROR(codec::ReadString(ctx, v, p, s));
        if (s == "None") {
          out[key] = api::StopPolicy::kNone;
        } else if (s == "Hold") {
          out[key] = api::StopPolicy::kHold;
        } else if (s == "HoldAndDrain") {
          out[key] = api::StopPolicy::kHoldAndDrain;
        } else {
          return ctx.FailWithValue(
              v, p, "Unsupported value: supported values: \"None\", \"Hold\", \"HoldAndDrain\"");
        }
        return Status::Ok();
      });
}

Status DecodeStep(DecodeContext& ctx, MapReader& r, Step& out) {
  r.Ignore({"apiVersion", "kind", "metadata", "description", "expect"});
  KUOTA_RETURN_IF_ERROR(r.Require("at"));
  std::optional<Time> at;
  KUOTA_RETURN_IF_ERROR(r.Time("at", at));
  if (at) out.at = *at;
  std::optional<int32_t> cycles;
  KUOTA_RETURN_IF_ERROR(r.OptInt32("cycles", cycles));
  if (cycles) {
    if (*cycles < 0) {
      return ctx.FailWithValue(*r.Get("cycles"), "cycles", "Invalid value: must be 0 or more");
    }
    out.cycles = *cycles;
  }
  KUOTA_RETURN_IF_ERROR(ReadWorkloadList(ctx, r, "podsReady", out.pods_ready));
  KUOTA_RETURN_IF_ERROR(ReadWorkloadList(ctx, r, "finished", out.finished));
  if (const YamlNode* ac = r.Get("admissionChecks")) {
    KUOTA_RETURN_IF_ERROR(ForEachEntry(
        ctx, *ac, "admissionChecks",
        [&](const std::string& wl, const YamlNode& checks, const std::string& path) {
          KUOTA_RETURN_IF_ERROR(CheckNamespacedKey(ctx, checks, path, wl));
          std::vector<std::pair<std::string, std::string>> states;
          KUOTA_RETURN_IF_ERROR(ForEachEntry(
              ctx, checks, path,
              [&](const std::string& check, const YamlNode& v, const std::string& p) {
                std::string s;
                KUOTA_RETURN_IF_ERROR(codec::ReadString(ctx, v, p, s));
                if (s != "Pending" && s != "Ready" && s != "Retry" && s != "Rejected") {
                  return ctx.FailWithValue(v, p,
                                           "Unsupported value: supported values: \"Pending\", "
                                           "\"Ready\", \"Retry\", \"Rejected\"");
                }
                states.emplace_back(check, s);
                return Status::Ok();
              }));
          out.admission_checks.emplace_back(wl, std::move(states));
          return Status::Ok();
        }));
  }
  KUOTA_RETURN_IF_ERROR(r.status());
  if (const YamlNode* sp = r.Get("stopPolicy")) {
    if (!sp->is_map()) {
      return ctx.Fail(*sp, "stopPolicy", "expected a map, got " + sp->Describe());
    }
    MapReader s(ctx, *sp, "stopPolicy");
    KUOTA_RETURN_IF_ERROR(s.status());
    if (const YamlNode* cqs = s.Get("clusterQueues")) {
      KUOTA_RETURN_IF_ERROR(ReadStopPolicies(ctx, *cqs, "stopPolicy.clusterQueues", false,
                                             out.cluster_queue_stop_policy));
    }
    if (const YamlNode* lqs = s.Get("localQueues")) {
      KUOTA_RETURN_IF_ERROR(
          ReadStopPolicies(ctx, *lqs, "stopPolicy.localQueues", true, out.local_queue_stop_policy));
    }
    KUOTA_RETURN_IF_ERROR(s.Finish());
  }
  KUOTA_RETURN_IF_ERROR(r.status());
  return r.Finish();
}

Status DecodeNode(DecodeContext& ctx, MapReader& r, SimNode& out) {
  r.Ignore({"apiVersion", "kind"});
  api::ObjectMeta meta;
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", meta, codec::DecodeObjectMeta));
  if (meta.name.empty()) {
    return ctx.Fail(r.node(), "metadata.name", "Required value");
  }
  out.name = meta.name;
  out.labels = meta.labels;
  // Only the fields placement uses are read; the rest of a real Node
  // (podCIDR, conditions, nodeInfo, ...) is accepted as it is.
  if (const YamlNode* spec = r.Get("spec")) {
    MapReader s(ctx, *spec, "spec");
    KUOTA_RETURN_IF_ERROR(s.status());
    KUOTA_RETURN_IF_ERROR(s.ObjectList("taints", out.taints, codec::DecodeTaint));
  }
  if (const YamlNode* status = r.Get("status")) {
    MapReader s(ctx, *status, "status");
    KUOTA_RETURN_IF_ERROR(s.status());
    KUOTA_RETURN_IF_ERROR(s.ResourceList("allocatable", out.allocatable));
  }
  KUOTA_RETURN_IF_ERROR(r.status());
  return r.Finish();
}

}  // namespace

Result<Timeline> DecodeTimeline(std::string_view text) {
  Timeline out;
  codec::YamlStream stream(text);
  codec::DecodeBudget budget{100'000, 4 * text.size() + (1u << 20)};
  for (int index = 0;; ++index) {
    Result<std::unique_ptr<codec::YamlDocument>> doc = stream.Next();
    if (!doc.ok()) return doc.status().WithContext("document " + std::to_string(index + 1));
    if (*doc == nullptr) break;
    const YamlNode& root = *(*doc)->root;
    if (!root.is_map()) continue;  // the codec reports it
    const std::string kind_key = Peek(root, "apiVersion") + "/" + Peek(root, "kind");
    const bool is_node = kind_key == kNodeKind;
    if (!is_node && kind_key != kStepKind) continue;
    budget.nodes_left += 4 * (*doc)->node_count();
    DecodeContext ctx(budget);
    std::string where = "document " + std::to_string(index + 1) + " (" +
                        (is_node ? std::string("Node") : std::string("Step"));
    const std::string name = PeekName(root);
    if (!name.empty()) where += " \"" + name + "\"";
    MapReader r(ctx, root, "");
    Status st = r.status();
    SimNode node;
    Step step;
    if (st.ok()) st = is_node ? DecodeNode(ctx, r, node) : DecodeStep(ctx, r, step);
    if (!st.ok()) {
      const int line = ctx.error_line() > 0 ? ctx.error_line() : root.line;
      return st.WithContext(where + ", line " + std::to_string(line) + ")");
    }
    where += ", line " + std::to_string(root.line) + ")";
    if (is_node) {
      for (const SimNode& n : out.nodes) {
        if (n.name == node.name) {
          return Status::AlreadyExists(where + ": metadata.name: Duplicate value: \"" + node.name +
                                       "\"");
        }
      }
      out.nodes.push_back(std::move(node));
    } else {
      if (!out.steps.empty() && step.at < out.steps.back().at) {
        return Status::Invalid(where + ": at: Invalid value: \"" + FormatRfc3339(step.at) +
                               "\": steps must be written in time order (the previous step is at " +
                               FormatRfc3339(out.steps.back().at) + ")");
      }
      step.where = std::move(where);
      out.steps.push_back(std::move(step));
    }
  }
  return out;
}

}  // namespace kuota::sim
