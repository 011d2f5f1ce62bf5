#include "server/apps_rules.h"

#include <cctype>
#include <string>
#include <vector>

#include "api/label_selector.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

Json& Obj(Json& parent, const char* key) {
  Json& v = parent[key];
  if (!v.is_object()) v = Json::object();
  return v;
}

void Default(Json& o, const char* key, const Json& value) {
  if (!o.contains(key) || o[key].is_null()) o[key] = value;
}

// Go's %#v of a map[string]string, as kube prints labels in its messages.
std::string GoMap(const Json& labels) {
  std::string out = "map[string]string{";
  bool first = true;
  if (labels.is_object()) {
    for (const auto& [k, v] : labels.items()) {
      out += std::string(first ? "" : ", ") + "\"" + k + "\":" + v.dump();
      first = false;
    }
  }
  return out + "}";
}

// Reads a LabelSelector object; Invalid naming `path` when malformed.
Result<api::LabelSelector> ReadSelector(const Json& sel, const std::string& path) {
  api::LabelSelector out;
  if (!sel.is_object()) return Status::Invalid(path + ": Invalid value: must be an object");
  if (auto ml = sel.find("matchLabels"); ml != sel.end() && !ml->is_null()) {
    if (!ml->is_object())
      return Status::Invalid(path + ".matchLabels: Invalid value: must be a map");
    for (const auto& [k, v] : ml->items()) {
      if (!v.is_string()) {
        return Status::Invalid(path + ".matchLabels[" + k + "]: Invalid value: must be a string");
      }
      out.match_labels[k] = v.get<std::string>();
    }
  }
  if (auto me = sel.find("matchExpressions"); me != sel.end() && !me->is_null()) {
    if (!me->is_array()) {
      return Status::Invalid(path + ".matchExpressions: Invalid value: must be a list");
    }
    for (size_t i = 0; i < me->size(); ++i) {
      const Json& e = (*me)[i];
      const std::string ep = path + ".matchExpressions[" + std::to_string(i) + "]";
      if (!e.is_object()) return Status::Invalid(ep + ": Invalid value: must be an object");
      api::LabelSelectorRequirement r;
      r.key = e.value("key", "");
      r.op = e.value("operator", "");
      for (const Json& v : e.value("values", Json::array())) {
        if (v.is_string()) r.values.push_back(v.get<std::string>());
      }
      if (r.op != "In" && r.op != "NotIn" && r.op != "Exists" && r.op != "DoesNotExist") {
        return Status::Invalid(ep + ".operator: Invalid value: \"" + r.op +
                               "\": not a valid selector operator");
      }
      if ((r.op == "In" || r.op == "NotIn") && r.values.empty()) {
        return Status::Invalid(ep +
                               ".values: Required value: must be specified when `operator` "
                               "is 'In' or 'NotIn'");
      }
      if ((r.op == "Exists" || r.op == "DoesNotExist") && !r.values.empty()) {
        return Status::Invalid(ep +
                               ".values: Forbidden: may not be specified when `operator` is "
                               "'Exists' or 'DoesNotExist'");
      }
      out.match_expressions.push_back(std::move(r));
    }
  }
  return out;
}

void ApplyDefaults(const std::string& kind, Json& object) {
  Json& spec = Obj(object, "spec");
  Default(spec, "replicas", 1);
  Default(spec, "revisionHistoryLimit", 10);
  if (kind == "Deployment") {
    Default(spec, "progressDeadlineSeconds", 600);
    Json& strategy = Obj(spec, "strategy");
    Default(strategy, "type", "RollingUpdate");
    if (strategy["type"] == "RollingUpdate") {
      Json& ru = Obj(strategy, "rollingUpdate");
      Default(ru, "maxUnavailable", "25%");
      Default(ru, "maxSurge", "25%");
    }
  } else if (kind == "StatefulSet") {
    Default(spec, "podManagementPolicy", "OrderedReady");
    Json& strategy = Obj(spec, "updateStrategy");
    Default(strategy, "type", "RollingUpdate");
    if (strategy["type"] == "RollingUpdate")
      Default(Obj(strategy, "rollingUpdate"), "partition", 0);
    Json& retention = Obj(spec, "persistentVolumeClaimRetentionPolicy");
    Default(retention, "whenDeleted", "Retain");
    Default(retention, "whenScaled", "Retain");
  }
  if (spec.contains("template") && spec["template"].is_object()) {
    Json& pod = Obj(spec["template"], "spec");
    Default(pod, "restartPolicy", "Always");
    Default(pod, "terminationGracePeriodSeconds", 30);
    Default(pod, "dnsPolicy", "ClusterFirst");
    Default(pod, "schedulerName", "default-scheduler");
  }
}

Status ValidateSpec(const std::string& kind, const Json& spec) {
  if (const Json& r = spec["replicas"]; !r.is_number_integer()) {
    return Status::Invalid("spec.replicas: Invalid value: " + r.dump() + ": must be an integer");
  } else if (r.get<int64_t>() < 0) {
    return Status::Invalid("spec.replicas: Invalid value: " + r.dump() +
                           ": must be greater than or equal to 0");
  }
  if (!spec.contains("selector") || spec["selector"].is_null()) {
    return Status::Invalid("spec.selector: Required value");
  }
  auto selector = ReadSelector(spec["selector"], "spec.selector");
  if (!selector.ok()) return selector.status();
  if (selector->empty()) {
    std::string lower = kind;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return Status::Invalid("spec.selector: Invalid value: \"\": empty selector is invalid for " +
                           lower);
  }
  const Json& tmpl = spec.contains("template") ? spec["template"] : Json();
  if (!tmpl.is_object()) return Status::Invalid("spec.template: Required value");
  const Json meta = tmpl.value("metadata", Json::object());
  const Json labels = meta.is_object() ? meta.value("labels", Json::object()) : Json::object();
  api::Labels have;
  if (labels.is_object()) {
    for (const auto& [k, v] : labels.items()) {
      if (v.is_string()) have[k] = v.get<std::string>();
    }
  }
  if (!selector->Matches(have)) {
    return Status::Invalid("spec.template.metadata.labels: Invalid value: " + GoMap(labels) +
                           ": `selector` does not match template `labels`");
  }
  const Json pod = tmpl.value("spec", Json::object());
  const Json containers = pod.is_object() ? pod.value("containers", Json()) : Json();
  if (!containers.is_array() || containers.empty()) {
    return Status::Invalid("spec.template.spec.containers: Required value");
  }
  const std::string restart = pod.value("restartPolicy", "Always");
  if (restart != "Always") {
    return Status::Invalid("spec.template.spec.restartPolicy: Unsupported value: \"" + restart +
                           "\": supported values: \"Always\"");
  }
  if (kind == "Deployment") {
    const std::string type = spec["strategy"].value("type", "");
    if (type != "RollingUpdate" && type != "Recreate") {
      return Status::Invalid("spec.strategy.type: Unsupported value: \"" + type +
                             "\": supported values: \"Recreate\", \"RollingUpdate\"");
    }
  }
  if (kind == "StatefulSet") {
    const std::string policy = spec.value("podManagementPolicy", "");
    if (policy != "OrderedReady" && policy != "Parallel") {
      return Status::Invalid("spec.podManagementPolicy: Unsupported value: \"" + policy +
                             "\": supported values: \"OrderedReady\", \"Parallel\"");
    }
    const std::string type = spec["updateStrategy"].value("type", "");
    if (type != "RollingUpdate" && type != "OnDelete") {
      return Status::Invalid("spec.updateStrategy.type: Unsupported value: \"" + type +
                             "\": supported values: \"OnDelete\", \"RollingUpdate\"");
    }
  }
  return Status::Ok();
}

Status ValidateUpdate(const std::string& kind, const Json& old_spec, const Json& spec) {
  if (old_spec.value("selector", Json()) != spec.value("selector", Json())) {
    return Status::Invalid("spec.selector: Invalid value: " +
                           spec.value("selector", Json()).dump() + ": field is immutable");
  }
  if (kind == "StatefulSet") {
    // kube's ValidateStatefulSetUpdate: only these fields may change.
    Json a = old_spec, b = spec;
    for (const char* f :
         {"replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
          "persistentVolumeClaimRetentionPolicy", "minReadySeconds"}) {
      a.erase(f);
      b.erase(f);
    }
    if (a != b) {
      return Status::Invalid(
          "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', "
          "'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
          "'minReadySeconds' are forbidden");
    }
  }
  return Status::Ok();
}

}  // namespace

bool IsAppsWorkloadKind(const ResourceInfo& resource) {
  return resource.group == "apps" &&
         (resource.kind == "Deployment" || resource.kind == "StatefulSet" ||
          resource.kind == "ReplicaSet");
}

Status PrepareAppsObject(const ResourceInfo& resource, const Json* old_object, Json& object) {
  if (!IsAppsWorkloadKind(resource)) return Status::Ok();
  if (!object.is_object()) return Status::Invalid("the object must be a JSON object");
  if (object.contains("spec") && !object["spec"].is_object() && !object["spec"].is_null()) {
    return Status::Invalid("spec: Invalid value: must be an object");
  }
  ApplyDefaults(resource.kind, object);
  KUOTA_RETURN_IF_ERROR(ValidateSpec(resource.kind, object["spec"]));
  if (old_object != nullptr && old_object->is_object()) {
    KUOTA_RETURN_IF_ERROR(
        ValidateUpdate(resource.kind, old_object->value("spec", Json::object()), object["spec"]));
  }
  return Status::Ok();
}

}  // namespace kuota::server
