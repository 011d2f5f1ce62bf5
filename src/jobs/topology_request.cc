#include "jobs/topology_request.h"

#include <cctype>
#include <limits>
#include <map>

#include "jobs/job_fields.h"

namespace kuota::jobs {

using Json = nlohmann::json;

namespace {

// The template's annotation `key` when it is a string.
std::optional<std::string> TopologyAnnotation(const Json& meta, const char* key) {
  if (!meta.is_object()) return std::nullopt;
  auto a = meta.find("annotations");
  if (a == meta.end() || !a->is_object()) return std::nullopt;
  auto v = a->find(key);
  if (v == a->end() || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

// Go's strconv.ParseBool.
std::optional<bool> ParseGoBool(const std::string& s) {
  for (const char* t : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (s == t) return true;
  }
  for (const char* f : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (s == f) return false;
  }
  return std::nullopt;
}

// Go's strconv.ParseInt(s, 10, 32): an optional sign, then decimal digits,
// within int32.
std::optional<int32_t> ParseGoInt32(const std::string& s) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i == s.size()) return std::nullopt;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
    v = v * 10 + (s[i] - '0');
    if (v > int64_t{std::numeric_limits<int32_t>::max()} + 1) return std::nullopt;
  }
  if (negative) v = -v;
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(v);
}

// Whether Go's strconv.ParseUint(s, 10, 64) takes `s`: decimal digits within
// uint64.
bool IsGoUint64(const std::string& s) {
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  return true;
}

// One layer of the multi-layer slice annotation.
struct SliceLayer {
  std::string topology;
  int64_t size = 0;
};

// The multi-layer annotation as Go's json.Unmarshal reads it into a slice
// of {topology string, size int32}: null is no layers; "" (why it does not
// parse) on success.
std::vector<SliceLayer> ParseSliceLayers(const std::string& text, std::string* error) {
  std::vector<SliceLayer> layers;
  const Json doc = Json::parse(text, nullptr, false);
  if (doc.is_discarded()) {
    *error = "invalid JSON";
    return layers;
  }
  if (doc.is_null()) return layers;
  if (!doc.is_array()) {
    *error = "json: cannot unmarshal " + std::string(doc.type_name()) +
             " into Go value of type []v1beta2.PodsetSliceRequiredTopologyConstraint";
    return layers;
  }
  for (const Json& e : doc) {
    SliceLayer layer;
    if (!e.is_null() && !e.is_object()) {
      *error = "json: cannot unmarshal " + std::string(e.type_name()) +
               " into Go value of type v1beta2.PodsetSliceRequiredTopologyConstraint";
      return {};
    }
    if (e.is_object()) {
      if (auto t = e.find("topology"); t != e.end() && !t->is_null()) {
        if (!t->is_string()) {
          *error = "json: cannot unmarshal " + std::string(t->type_name()) +
                   " into Go struct field PodsetSliceRequiredTopologyConstraint.topology of "
                   "type string";
          return {};
        }
        layer.topology = t->get<std::string>();
      }
      if (auto s = e.find("size"); s != e.end() && !s->is_null()) {
        const bool integer = s->is_number_integer();
        const int64_t v = integer ? (s->is_number_unsigned() && s->get<uint64_t>() > INT64_MAX
                                         ? std::numeric_limits<int64_t>::max()
                                         : s->get<int64_t>())
                                  : 0;
        if (!integer || v < std::numeric_limits<int32_t>::min() ||
            v > std::numeric_limits<int32_t>::max()) {
          *error = "json: cannot unmarshal " +
                   std::string(s->is_number() ? "number " + s->dump() : s->type_name()) +
                   " into Go struct field PodsetSliceRequiredTopologyConstraint.size of type "
                   "int32";
          return {};
        }
        layer.size = v;
      }
    }
    layers.push_back(std::move(layer));
  }
  return layers;
}

std::string AnnotationPath(const std::string& annotations_path, const char* key) {
  return annotations_path + "[" + key + "]";
}

Status ForbiddenAt(const std::string& path, const std::string& why) {
  return Status::Invalid(path + ": Forbidden: " + why);
}

std::string Quote(const char* s) { return "'" + std::string(s) + "'"; }

// A label key Kueue reads a topology level from (metavalidation's
// ValidateLabelName).
Status CheckLevelName(const std::string& value, const std::string& path) {
  if (std::string why = CheckQualifiedName(value); !why.empty()) {
    return InvalidValue(path, value, why);
  }
  return Status::Ok();
}

Status ValidateSliceLayers(const std::string& annotations_path, const Json& meta,
                           bool slice_required, bool slice_size, bool group_name) {
  const std::optional<std::string> text =
      TopologyAnnotation(meta, kPodSetSliceRequiredTopologyConstraintsAnnotation);
  if (!text) return Status::Ok();
  const std::string path =
      AnnotationPath(annotations_path, kPodSetSliceRequiredTopologyConstraintsAnnotation);
  if (slice_required) {
    return ForbiddenAt(path, "may not be set when " +
                                 Quote(kPodSetSliceRequiredTopologyAnnotation) + " is specified");
  }
  if (slice_size) {
    return ForbiddenAt(
        path, "may not be set when " + Quote(kPodSetSliceSizeAnnotation) + " is specified");
  }
  if (group_name) {
    return ForbiddenAt(AnnotationPath(annotations_path, kPodSetGroupNameAnnotation),
                       "may not be set when " +
                           Quote(kPodSetSliceRequiredTopologyConstraintsAnnotation) +
                           " is specified");
  }
  std::string error;
  const std::vector<SliceLayer> layers = ParseSliceLayers(*text, &error);
  if (!error.empty()) return InvalidValue(path, *text, "must be a valid JSON array: " + error);
  if (layers.empty() || layers.size() > 3) {
    return InvalidValue(path, *text, "topology constraints must contain between 1 and 3 entries");
  }
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    KUOTA_RETURN_IF_ERROR(CheckLevelName(layers[i].topology, at + ".topology"));
    if (layers[i].size < 1) {
      return InvalidValue(at + ".size", layers[i].size, "must be greater than or equal to 1");
    }
  }
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < layers.size(); ++i) {
    auto [it, inserted] = seen.emplace(layers[i].topology, i);
    if (!inserted) {
      return Status::Invalid(
          path + "[" + std::to_string(i) + "].topology: Duplicate value: " +
          Quoted(layers[i].topology + " (also at index " + std::to_string(it->second) + ")"));
    }
  }
  for (size_t i = 0; i + 1 < layers.size(); ++i) {
    if (layers[i].size % layers[i + 1].size != 0) {
      return InvalidValue(
          path + "[" + std::to_string(i + 1) + "].size", layers[i + 1].size,
          "must evenly divide the parent layer size " + std::to_string(layers[i].size));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Json> BuildTopologyRequest(const Json& meta, const PodSetIndexLabels& labels) {
  const auto required = TopologyAnnotation(meta, kPodSetRequiredTopologyAnnotation);
  const auto preferred = TopologyAnnotation(meta, kPodSetPreferredTopologyAnnotation);
  const auto unconstrained = TopologyAnnotation(meta, kPodSetUnconstrainedTopologyAnnotation);
  const auto slice_required = TopologyAnnotation(meta, kPodSetSliceRequiredTopologyAnnotation);
  const auto slice_size = TopologyAnnotation(meta, kPodSetSliceSizeAnnotation);
  const auto layers = TopologyAnnotation(meta, kPodSetSliceRequiredTopologyConstraintsAnnotation);
  const auto group_name = TopologyAnnotation(meta, kPodSetGroupNameAnnotation);
  const bool numbered = !labels.pod_index_label.empty() || !labels.sub_group_index_label.empty() ||
                        labels.sub_group_count.has_value();

  Json request = Json::object();
  if (required) {
    request["required"] = *required;
  } else if (preferred) {
    request["preferred"] = *preferred;
  } else if (unconstrained) {
    const std::optional<bool> b = ParseGoBool(*unconstrained);
    if (!b) {
      return InvalidValue(std::string("annotation ") + kPodSetUnconstrainedTopologyAnnotation,
                          *unconstrained, "must be a boolean value");
    }
    request["unconstrained"] = *b;
  } else if (!((slice_required && slice_size) || layers) && !numbered) {
    return Json();
  }
  if (layers) {
    // No field for the layers in a v1beta1 Workload; they must still parse.
    std::string error;
    ParseSliceLayers(*layers, &error);
    if (!error.empty()) {
      return InvalidValue(
          std::string("annotation ") + kPodSetSliceRequiredTopologyConstraintsAnnotation, *layers,
          "must be a valid JSON array: " + error);
    }
  } else if (slice_required && slice_size) {
    const std::optional<int32_t> size = ParseGoInt32(*slice_size);
    if (!size) {
      return InvalidValue(std::string("annotation ") + kPodSetSliceSizeAnnotation, *slice_size,
                          "must be a numeric value");
    }
    request["podSetSliceRequiredTopology"] = *slice_required;
    request["podSetSliceSize"] = *size;
  }
  if (!labels.pod_index_label.empty()) request["podIndexLabel"] = labels.pod_index_label;
  if (!labels.sub_group_index_label.empty()) {
    request["subGroupIndexLabel"] = labels.sub_group_index_label;
  }
  if (labels.sub_group_count) request["subGroupCount"] = *labels.sub_group_count;
  if (group_name && (required || preferred)) request["podSetGroupName"] = *group_name;
  return request;
}

Status ValidateTopologyAnnotations(const Json& meta, const std::string& meta_path) {
  const std::string annotations = meta_path + ".annotations";
  const auto required = TopologyAnnotation(meta, kPodSetRequiredTopologyAnnotation);
  const auto preferred = TopologyAnnotation(meta, kPodSetPreferredTopologyAnnotation);
  const auto unconstrained = TopologyAnnotation(meta, kPodSetUnconstrainedTopologyAnnotation);
  const auto slice_required = TopologyAnnotation(meta, kPodSetSliceRequiredTopologyAnnotation);
  const auto slice_size = TopologyAnnotation(meta, kPodSetSliceSizeAnnotation);
  const auto group_name = TopologyAnnotation(meta, kPodSetGroupNameAnnotation);

  if (int(required.has_value()) + int(preferred.has_value()) + int(unconstrained.has_value()) > 1) {
    return Status::Invalid(
        annotations + ": Invalid value: must not contain more than one topology annotation: [" +
        Quoted(kPodSetRequiredTopologyAnnotation) + ", " +
        Quoted(kPodSetPreferredTopologyAnnotation) + ", " +
        Quoted(kPodSetUnconstrainedTopologyAnnotation) + "]");
  }
  if (required) {
    KUOTA_RETURN_IF_ERROR(
        CheckLevelName(*required, AnnotationPath(annotations, kPodSetRequiredTopologyAnnotation)));
  }
  if (preferred) {
    KUOTA_RETURN_IF_ERROR(CheckLevelName(
        *preferred, AnnotationPath(annotations, kPodSetPreferredTopologyAnnotation)));
  }
  if (slice_required) {
    KUOTA_RETURN_IF_ERROR(CheckLevelName(
        *slice_required, AnnotationPath(annotations, kPodSetSliceRequiredTopologyAnnotation)));
  }
  if (group_name) {
    const std::string path = AnnotationPath(annotations, kPodSetGroupNameAnnotation);
    if (IsGoUint64(*group_name)) return InvalidValue(path, *group_name, "must not be a number");
    if (slice_size) {
      return ForbiddenAt(
          path, "may not be set when " + Quote(kPodSetSliceSizeAnnotation) + " is specified");
    }
    if (slice_required) {
      return ForbiddenAt(path, "may not be set when " +
                                   Quote(kPodSetSliceRequiredTopologyAnnotation) + " is specified");
    }
    if (!preferred && !required) {
      return ForbiddenAt(path, "may not be set when neither " +
                                   Quote(kPodSetPreferredTopologyAnnotation) + " nor " +
                                   Quote(kPodSetRequiredTopologyAnnotation) + " is specified");
    }
  }
  if (unconstrained && !ParseGoBool(*unconstrained)) {
    return InvalidValue(AnnotationPath(annotations, kPodSetUnconstrainedTopologyAnnotation),
                        *unconstrained, "must be a boolean value");
  }
  if (slice_size) {
    const std::string path = AnnotationPath(annotations, kPodSetSliceSizeAnnotation);
    const std::optional<int32_t> size = ParseGoInt32(*slice_size);
    if (!size) return InvalidValue(path, *slice_size, "must be a numeric value");
    if (*size < 1) return InvalidValue(path, *slice_size, "must be greater than or equal to 1");
  }
  if (slice_required && !slice_size) {
    return Status::Invalid(AnnotationPath(annotations, kPodSetSliceSizeAnnotation) +
                           ": Required value: must be set when " +
                           Quote(kPodSetSliceRequiredTopologyAnnotation) + " is specified");
  }
  if (!slice_required && slice_size) {
    return ForbiddenAt(AnnotationPath(annotations, kPodSetSliceSizeAnnotation),
                       "may not be set when " + Quote(kPodSetSliceRequiredTopologyAnnotation) +
                           " is not specified");
  }
  return ValidateSliceLayers(annotations, meta, slice_required.has_value(), slice_size.has_value(),
                             group_name.has_value());
}

Status ValidateSliceSizeUpperBound(const Json& meta, const std::string& meta_path, int64_t count) {
  const std::string annotations = meta_path + ".annotations";
  if (const auto slice_size = TopologyAnnotation(meta, kPodSetSliceSizeAnnotation)) {
    const std::string path = AnnotationPath(annotations, kPodSetSliceSizeAnnotation);
    const std::optional<int32_t> size = ParseGoInt32(*slice_size);
    if (!size) return InvalidValue(path, *slice_size, "must be a numeric value");
    if (*size > count) {
      return InvalidValue(path, *slice_size,
                          "must not be greater than pod set count " + std::to_string(count));
    }
  }
  if (const auto text =
          TopologyAnnotation(meta, kPodSetSliceRequiredTopologyConstraintsAnnotation)) {
    std::string error;
    const std::vector<SliceLayer> layers = ParseSliceLayers(*text, &error);
    if (error.empty() && !layers.empty() && layers.front().size > count) {
      return InvalidValue(
          AnnotationPath(annotations, kPodSetSliceRequiredTopologyConstraintsAnnotation),
          layers.front().size, "must not be greater than pod set count " + std::to_string(count));
    }
  }
  return Status::Ok();
}

Status ValidatePodSetGroups(const std::vector<TopologyPodSet>& sets) {
  // Groups in the order their first pod sets come.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const TopologyPodSet*>> groups;
  for (const TopologyPodSet& s : sets) {
    if (!s.topology_request.is_object()) continue;
    auto g = s.topology_request.find("podSetGroupName");
    if (g == s.topology_request.end() || !g->is_string()) continue;
    const std::string name = g->get<std::string>();
    if (!groups.count(name)) order.push_back(name);
    groups[name].push_back(&s);
  }
  for (const std::string& name : order) {
    const std::vector<const TopologyPodSet*>& members = groups[name];
    if (members.size() != 2) {
      return InvalidValue(
          AnnotationPath(members.front()->annotations_path, kPodSetGroupNameAnnotation), name,
          "can only define groups of exactly 2 pod sets, got: " + std::to_string(members.size()) +
              " pod set(s)");
    }
    const TopologyPodSet& a = *members[0];
    const TopologyPodSet& b = *members[1];
    if (a.count != 1 && b.count != 1) {
      return InvalidValue(
          AnnotationPath(a.annotations_path, kPodSetGroupNameAnnotation), name,
          "can only define groups where at least one pod set has only 1 replica, got: " +
              std::to_string(a.count) + " replica(s) and " + std::to_string(b.count) +
              " replica(s) in the group");
    }
    // Both name the same required, or the same preferred, level.
    auto level = [](const TopologyPodSet& s, const char* key) {
      auto it = s.topology_request.find(key);
      return it != s.topology_request.end() && it->is_string()
                 ? std::optional(it->get<std::string>())
                 : std::nullopt;
    };
    const bool a_has = level(a, "required") || level(a, "preferred");
    const bool b_has = level(b, "required") || level(b, "preferred");
    if (!a_has || !b_has || level(a, "required") != level(b, "required") ||
        level(a, "preferred") != level(b, "preferred")) {
      return Status::Invalid(a.annotations_path + ": Invalid value: must specify " +
                             Quote(kPodSetRequiredTopologyAnnotation) + " or " +
                             Quote(kPodSetPreferredTopologyAnnotation) +
                             " topology consistent with '" + b.annotations_path + "' in group '" +
                             name + "'");
    }
  }
  return Status::Ok();
}

}  // namespace kuota::jobs
