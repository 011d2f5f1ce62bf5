#include "server/strategic_merge_patch.h"

#include <set>
#include <utility>

namespace kuota::server {
namespace {

using Json = nlohmann::json;
using Path = std::vector<std::string>;

constexpr const char* kDirective = "$patch";
constexpr const char* kRetainKeys = "$retainKeys";
constexpr const char* kSetElementOrder = "$setElementOrder/";
constexpr const char* kDeleteFromPrimitiveList = "$deleteFromPrimitiveList/";

bool HasPrefix(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string PathText(const Path& path) {
  std::string out;
  for (const std::string& p : path) out += (out.empty() ? "" : ".") + p;
  return out.empty() ? "<root>" : out;
}

Status NoMergeKey(const Json& element, const std::string& key) {
  return Status::Invalid("map: " + element.dump() + " does not contain declared merge key: " + key);
}

bool IsMapList(const Json& a, const Json& b) {
  for (const Json* list : {&a, &b}) {
    for (const Json& e : *list) {
      if (e.is_object()) return true;
    }
  }
  return false;
}

// Position of `item` in `list`, matching maps by `key` and scalars by value; -1 if absent.
int IndexOf(const Json& list, const Json& item, const std::string& key, bool maps) {
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& e = list[i];
    if (maps) {
      if (e.is_object() && item.is_object() && e.contains(key) && item.contains(key) &&
          e[key] == item[key]) {
        return static_cast<int>(i);
      }
    } else if (e == item) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// Items of `merged` present in `by` (first) and the others (second), in order.
std::pair<Json, Json> Partition(const Json& merged, const Json& by, const std::string& key,
                                bool maps) {
  Json in = Json::array(), out = Json::array();
  for (const Json& e : merged) (IndexOf(by, e, key, maps) >= 0 ? in : out).push_back(e);
  return {in, out};
}

// Go's normalizeSliceOrder: a stable insertion sort by position in `order`
// (with Go's comparator, which also moves items missing from `order`).
Json SortByOrder(Json items, const Json& order, const std::string& key, bool maps) {
  Json to_delete = Json::array();
  if (maps) {
    Json kept = Json::array();
    for (Json& e : items) {
      if (e.is_object() && e.contains(kDirective) && e[kDirective] == "delete") {
        to_delete.push_back(std::move(e));
      } else {
        kept.push_back(std::move(e));
      }
    }
    items = std::move(kept);
  }
  auto less = [&](const Json& a, const Json& b) {
    int ia = IndexOf(order, a, key, maps);
    if (ia >= 0) {
      int ib = IndexOf(order, b, key, maps);
      if (ib >= 0) return ia < ib;
    }
    return true;
  };
  for (size_t i = 1; i < items.size(); ++i) {
    for (size_t j = i; j > 0 && less(items[j], items[j - 1]); --j) std::swap(items[j], items[j - 1]);
  }
  for (Json& e : to_delete) items.push_back(std::move(e));
  return items;
}

// Go's normalizeElementOrder + mergeSortedSlice: patch items sorted by
// `patch_order`, server-only items by `server_order`, then interleaved by
// their positions in `server_order`.
Json NormalizeElementOrder(const Json& patch_items, const Json& server_only, const Json& patch_order,
                           const Json& server_order, const std::string& key, bool maps) {
  Json right = SortByOrder(patch_items, patch_order, key, maps);
  Json left = SortByOrder(server_only, server_order, key, maps);
  Json out = Json::array();
  size_t i = 0, j = 0;
  while (i < left.size() || j < right.size()) {
    if (i >= left.size()) {
      out.push_back(right[j++]);
    } else if (j >= right.size()) {
      out.push_back(left[i++]);
    } else {
      int li = IndexOf(server_order, left[i], key, maps);
      int ri = IndexOf(server_order, right[j], key, maps);
      if (li >= 0 && ri >= 0 && li < ri) {
        out.push_back(left[i++]);
      } else {
        out.push_back(right[j++]);
      }
    }
  }
  return out;
}

class Merger {
 public:
  Result<Json> MergeMap(Json original, Json patch, Path& path);

 private:
  Result<Json> MergeSlice(Json original, Json patch, const ListPatchStrategy& strategy,
                          Path& path, bool delete_list);
  Status MergeSetElementOrder(Json& original, Json& patch, Path& path);
  // A patch value for a field the original lacks: merged into an empty value
  // so directives inside it are applied rather than stored.
  Result<Json> Fresh(const Json& value, Path& path, const std::string& field);
};

Result<Json> Merger::Fresh(const Json& value, Path& path, const std::string& field) {
  if (value.is_object()) {
    path.push_back(field);
    Result<Json> r = MergeMap(Json::object(), value, path);
    path.pop_back();
    return r;
  }
  if (value.is_array()) {
    ListPatchStrategy s = LookupListPatchStrategy(path, field);
    if (!s.merges()) return value;
    path.push_back(field);
    Result<Json> r = MergeSlice(Json::array(), value, s, path, false);
    path.pop_back();
    return r;
  }
  return value;
}

Result<Json> Merger::MergeMap(Json original, Json patch, Path& path) {
  if (!patch.is_object()) return Status::Invalid("invalid patch at " + PathText(path) + ": not a map");
  if (auto it = patch.find(kDirective); it != patch.end()) {
    if (*it == "replace") {
      patch.erase(kDirective);
      return patch;
    }
    if (*it == "delete") return Json::object();
    if (*it != "merge") {
      return Status::Invalid("unknown patch type: " + it->dump() + " in map: " + patch.dump());
    }
    patch.erase(kDirective);
  }
  if (!original.is_object()) original = Json::object();

  if (auto it = patch.find(kRetainKeys); it != patch.end()) {
    if (!it->is_array()) {
      return Status::Invalid("doesn't satisfy the patch format for $retainKeys at " + PathText(path));
    }
    std::set<std::string> keep;
    for (const Json& k : *it) {
      if (k.is_string()) keep.insert(k.get<std::string>());
    }
    patch.erase(kRetainKeys);
    for (auto p = patch.begin(); p != patch.end(); ++p) {
      if (p->is_null() || HasPrefix(p.key(), kDeleteFromPrimitiveList) ||
          HasPrefix(p.key(), kSetElementOrder)) {
        continue;
      }
      if (keep.count(p.key()) == 0) {
        return Status::Invalid("doesn't satisfy the patch format for $retainKeys: field " +
                               p.key() + " is not in the $retainKeys list");
      }
    }
    for (auto o = original.begin(); o != original.end();) {
      if (keep.count(o.key()) == 0) {
        o = original.erase(o);
      } else {
        ++o;
      }
    }
  }

  KUOTA_RETURN_IF_ERROR(MergeSetElementOrder(original, patch, path));

  for (auto it = patch.begin(); it != patch.end(); ++it) {
    std::string key = it.key();
    const Json& value = *it;
    bool delete_list = false;
    if (HasPrefix(key, kDeleteFromPrimitiveList)) {
      key = key.substr(std::string(kDeleteFromPrimitiveList).size());
      delete_list = true;
    }
    if (value.is_null()) {
      original.erase(key);
      continue;
    }
    auto orig = original.find(key);
    if (orig == original.end()) {
      if (!delete_list) {
        KUOTA_ASSIGN_OR_RETURN(original[key], Fresh(value, path, key));
      }
      continue;
    }
    if (orig->type() != value.type() &&
        !(orig->is_number() && value.is_number())) {  // a type change replaces the value
      if (!delete_list) {
        KUOTA_ASSIGN_OR_RETURN(original[key], Fresh(value, path, key));
      }
      continue;
    }
    if (value.is_object()) {
      path.push_back(key);
      Result<Json> merged = MergeMap(std::move(*orig), value, path);
      path.pop_back();
      if (!merged.ok()) return merged.status();
      original[key] = std::move(merged).value();
    } else if (value.is_array()) {
      ListPatchStrategy s = LookupListPatchStrategy(path, key);
      if (!s.merges()) {
        if (!delete_list) original[key] = value;
        continue;
      }
      path.push_back(key);
      Result<Json> merged = MergeSlice(std::move(*orig), value, s, path, delete_list);
      path.pop_back();
      if (!merged.ok()) return merged.status();
      original[key] = std::move(merged).value();
    } else if (!delete_list) {
      original[key] = value;
    }
  }
  return original;
}

Status Merger::MergeSetElementOrder(Json& original, Json& patch, Path& path) {
  std::vector<std::string> order_keys;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    if (HasPrefix(it.key(), kSetElementOrder)) order_keys.push_back(it.key());
  }
  for (const std::string& order_key : order_keys) {
    Json order = patch[order_key];
    patch.erase(order_key);
    if (!order.is_array()) {
      return Status::Invalid("invalid patch: " + order_key + " must be a list");
    }
    std::string field = order_key.substr(std::string(kSetElementOrder).size());
    auto orig_it = original.find(field);
    auto patch_it = patch.find(field);
    bool found_original = orig_it != original.end() && !orig_it->is_null();
    bool found_patch = patch_it != patch.end() && !patch_it->is_null();
    if (found_original && !orig_it->is_array()) {
      return Status::Invalid("invalid patch: " + field + " is not a list in the object");
    }
    if (found_patch && !patch_it->is_array()) {
      return Status::Invalid("invalid patch: " + field + " must be a list");
    }
    if (!found_original && !found_patch) continue;
    ListPatchStrategy s = LookupListPatchStrategy(path, field);
    Json original_list = found_original ? *orig_it : Json::array();
    Json merged;
    if (found_original && !found_patch) {
      merged = original_list;
    } else if (!found_original) {
      KUOTA_ASSIGN_OR_RETURN(merged, Fresh(*patch_it, path, field));
    } else if (s.merges()) {
      path.push_back(field);
      Result<Json> m = MergeSlice(original_list, *patch_it, s, path, false);
      path.pop_back();
      if (!m.ok()) return m.status();
      merged = std::move(m).value();
    } else {
      merged = *patch_it;
    }
    if (found_patch) patch.erase(field);
    bool maps = IsMapList(merged, order);
    if (maps && s.merge_key.empty()) {
      original[field] = merged;  // no merge key: the order cannot be applied
      continue;
    }
    if (maps) {
      for (const Json& e : merged) {
        if (!e.is_object() || !e.contains(s.merge_key)) return NoMergeKey(e, s.merge_key);
      }
    }
    auto [in_order, server_only] = Partition(merged, order, s.merge_key, maps);
    original[field] =
        NormalizeElementOrder(in_order, server_only, order, original_list, s.merge_key, maps);
  }
  return Status::Ok();
}

Result<Json> Merger::MergeSlice(Json original, Json patch, const ListPatchStrategy& strategy,
                                Path& path, bool delete_list) {
  if (!original.is_array()) original = Json::array();
  if (original.empty() && patch.empty()) return original;
  bool maps = IsMapList(original, patch);
  const std::string& key = strategy.merge_key;
  Json merged = Json::array();
  if (!maps) {
    if (delete_list) {
      for (const Json& e : original) {
        if (IndexOf(patch, e, "", false) < 0) merged.push_back(e);
      }
      return merged;
    }
    for (const Json* list : {&original, &patch}) {
      for (const Json& e : *list) {
        if (IndexOf(merged, e, "", false) < 0) merged.push_back(e);
      }
    }
  } else {
    if (key.empty()) {
      return Status::Invalid("cannot merge lists without merge key for " + PathText(path));
    }
    // $patch elements: delete by key, or replace the whole list.
    Json plain = Json::array();
    bool replace = false;
    for (const Json& e : patch) {
      if (!e.is_object()) return Status::Invalid("invalid list element in patch: " + e.dump());
      auto d = e.find(kDirective);
      if (d == e.end()) {
        plain.push_back(e);
      } else if (*d == "delete") {
        if (!e.contains(key)) return NoMergeKey(e, key);
        Json kept = Json::array();
        for (Json& o : original) {
          if (!(o.is_object() && o.contains(key) && o[key] == e[key])) kept.push_back(std::move(o));
        }
        original = std::move(kept);
      } else if (*d == "replace") {
        replace = true;
      } else if (*d == "merge") {
        return Status::Invalid("merging lists cannot yet be specified in the patch");
      } else {
        return Status::Invalid("unknown patch type: " + d->dump() + " in map: " + e.dump());
      }
    }
    if (replace) {
      original = std::move(plain);
      patch = Json::array();
    } else {
      patch = std::move(plain);
    }
    merged = original;
    for (const Json& e : patch) {
      if (!e.contains(key)) return NoMergeKey(e, key);
      int at = IndexOf(merged, e, key, true);
      if (at >= 0) {
        KUOTA_ASSIGN_OR_RETURN(merged[static_cast<size_t>(at)],
                               MergeMap(merged[static_cast<size_t>(at)], e, path));
      } else {
        KUOTA_ASSIGN_OR_RETURN(Json fresh, MergeMap(Json::object(), e, path));
        merged.push_back(std::move(fresh));
      }
    }
    for (const Json& e : merged) {
      if (!e.is_object() || !e.contains(key)) return NoMergeKey(e, key);
    }
  }
  auto [patch_items, server_only] = Partition(merged, patch, key, maps);
  return NormalizeElementOrder(patch_items, server_only, patch, original, key, maps);
}

}  // namespace

ListPatchStrategy LookupListPatchStrategy(const std::vector<std::string>& parent_path,
                                          const std::string& field) {
  const std::string parent = parent_path.empty() ? "" : parent_path.back();
  auto keyed = [](const char* key) { return ListPatchStrategy{key, false}; };
  if (parent == "metadata") {
    if (field == "finalizers") return ListPatchStrategy{"", true};
    if (field == "ownerReferences") return keyed("uid");
    return {};
  }
  // PodSpec (pods, and jobs' spec.template.spec).
  if (field == "containers" || field == "initContainers" || field == "ephemeralContainers" ||
      field == "volumes" || field == "imagePullSecrets" || field == "schedulingGates") {
    return keyed("name");
  }
  if (field == "hostAliases") return keyed("ip");
  if (field == "topologySpreadConstraints") return keyed("topologyKey");
  if (field == "resourceClaims" && parent == "spec") return keyed("name");
  // Container.
  if (field == "env") return keyed("name");
  if (field == "ports" && parent != "spec") return keyed("containerPort");
  if (field == "volumeMounts") return keyed("mountPath");
  if (field == "volumeDevices") return keyed("devicePath");
  // Status of Pod, Job, Node, Namespace.
  if (field == "conditions") return keyed("type");
  if (field == "addresses" && parent == "status") return keyed("type");
  if (field == "podIPs" || field == "hostIPs") return keyed("ip");
  // NodeSpec.
  if (field == "podCIDRs") return ListPatchStrategy{"", true};
  return {};
}

Result<Json> StrategicMergePatch(const Json& original, const Json& patch) {
  if (!patch.is_object()) {
    return Status::Invalid("a strategic merge patch must be a JSON object, got " +
                           std::string(patch.type_name()));
  }
  Merger merger;
  Path path;
  return merger.MergeMap(original, patch, path);
}

}  // namespace kuota::server
