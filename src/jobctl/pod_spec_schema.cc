#include "jobctl/pod_spec_schema.h"

#include <span>
#include <string_view>

#include "api/quantity.h"
#include "jobctl/invalid_value.h"

namespace kuota::jobctl {
namespace {

using Json = nlohmann::json;

// A field's check: `v` is never null (null means absent, which is allowed).
using Check = Status (*)(const Json& v, const std::string& path);

struct Field {
  std::string_view name;
  Check check;
};

Status CheckFields(const Json& v, const std::string& path, std::span<const Field> fields) {
  if (!v.is_object()) return InvalidValue(path, v, "must be an object");
  for (const Field& f : fields) {
    auto it = v.find(f.name);
    if (it == v.end() || it->is_null()) continue;
    KUOTA_RETURN_IF_ERROR(f.check(*it, path + "." + std::string(f.name)));
  }
  return Status::Ok();
}

Status Required(const Json& obj, std::string_view key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null() ||
      (it->is_string() && it->get_ref<const std::string&>().empty())) {
    return Status::Invalid(path + "." + std::string(key) + ": Required value");
  }
  return Status::Ok();
}

Status String(const Json& v, const std::string& path) {
  return v.is_string() ? Status::Ok() : InvalidValue(path, v, "must be a string");
}

Status Int(const Json& v, const std::string& path) {
  return v.is_number_integer() ? Status::Ok() : InvalidValue(path, v, "must be an integer");
}

Status Bool(const Json& v, const std::string& path) {
  return v.is_boolean() ? Status::Ok() : InvalidValue(path, v, "must be a boolean");
}

Status AnyObject(const Json& v, const std::string& path) {
  return v.is_object() ? Status::Ok() : InvalidValue(path, v, "must be an object");
}

Status QuantityValue(const Json& v, const std::string& path) {
  if (v.is_number()) {
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (!(d > -9.2e15 && d < 9.2e15)) return InvalidValue(path, v, "quantity out of range");
    }
    return Status::Ok();
  }
  if (!v.is_string())
    return InvalidValue(path, v, "must be a quantity (a string such as \"500m\" or \"1Gi\")");
  Result<api::Quantity> q = api::Quantity::Parse(v.get_ref<const std::string&>());
  if (!q.ok()) return InvalidValue(path, v, q.status().message());
  return Status::Ok();
}

template <Check item>
Status ListOf(const Json& v, const std::string& path) {
  if (!v.is_array()) return InvalidValue(path, v, "must be a list");
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].is_null())
      return InvalidValue(path + "[" + std::to_string(i) + "]", v[i], "must not be null");
    KUOTA_RETURN_IF_ERROR(item(v[i], path + "[" + std::to_string(i) + "]"));
  }
  return Status::Ok();
}

template <Check value>
Status MapOf(const Json& v, const std::string& path) {
  if (!v.is_object()) return InvalidValue(path, v, "must be a map");
  for (const auto& [k, val] : v.items()) {
    KUOTA_RETURN_IF_ERROR(value(val, path + "[" + k + "]"));
  }
  return Status::Ok();
}

// --- the schema, bottom up -------------------------------------------------

constexpr Field kObjectFieldSelector[] = {{"apiVersion", String}, {"fieldPath", String}};
Status ObjectFieldSelector(const Json& v, const std::string& path) {
  KUOTA_RETURN_IF_ERROR(CheckFields(v, path, kObjectFieldSelector));
  return Required(v, "fieldPath", path);
}

constexpr Field kResourceFieldSelector[] = {
    {"containerName", String}, {"resource", String}, {"divisor", QuantityValue}};
Status ResourceFieldSelector(const Json& v, const std::string& path) {
  KUOTA_RETURN_IF_ERROR(CheckFields(v, path, kResourceFieldSelector));
  return Required(v, "resource", path);
}

constexpr Field kKeySelector[] = {{"name", String}, {"key", String}, {"optional", Bool}};
Status KeySelector(const Json& v, const std::string& path) {
  return CheckFields(v, path, kKeySelector);
}

constexpr Field kEnvVarSource[] = {{"fieldRef", ObjectFieldSelector},
                                   {"resourceFieldRef", ResourceFieldSelector},
                                   {"configMapKeyRef", KeySelector},
                                   {"secretKeyRef", KeySelector}};
Status EnvVarSource(const Json& v, const std::string& path) {
  return CheckFields(v, path, kEnvVarSource);
}

constexpr Field kEnvVar[] = {{"name", String}, {"value", String}, {"valueFrom", EnvVarSource}};
Status EnvVar(const Json& v, const std::string& path) {
  KUOTA_RETURN_IF_ERROR(CheckFields(v, path, kEnvVar));
  return Required(v, "name", path);
}

constexpr Field kEnvFromSource[] = {
    {"prefix", String}, {"configMapRef", AnyObject}, {"secretRef", AnyObject}};
Status EnvFromSource(const Json& v, const std::string& path) {
  return CheckFields(v, path, kEnvFromSource);
}

constexpr Field kResourceRequirements[] = {{"limits", MapOf<QuantityValue>},
                                           {"requests", MapOf<QuantityValue>},
                                           {"claims", ListOf<AnyObject>}};
Status ResourceRequirements(const Json& v, const std::string& path) {
  return CheckFields(v, path, kResourceRequirements);
}

constexpr Field kContainerPort[] = {{"name", String},
                                    {"containerPort", Int},
                                    {"hostPort", Int},
                                    {"protocol", String},
                                    {"hostIP", String}};
Status ContainerPort(const Json& v, const std::string& path) {
  return CheckFields(v, path, kContainerPort);
}

constexpr Field kVolumeMount[] = {{"name", String},        {"mountPath", String},
                                  {"subPath", String},     {"readOnly", Bool},
                                  {"subPathExpr", String}, {"mountPropagation", String}};
Status VolumeMount(const Json& v, const std::string& path) {
  return CheckFields(v, path, kVolumeMount);
}

constexpr Field kSecurityContext[] = {{"runAsUser", Int},
                                      {"runAsGroup", Int},
                                      {"runAsNonRoot", Bool},
                                      {"privileged", Bool},
                                      {"readOnlyRootFilesystem", Bool},
                                      {"allowPrivilegeEscalation", Bool},
                                      {"fsGroup", Int},
                                      {"supplementalGroups", ListOf<Int>},
                                      {"capabilities", AnyObject},
                                      {"seccompProfile", AnyObject}};
Status SecurityContext(const Json& v, const std::string& path) {
  return CheckFields(v, path, kSecurityContext);
}

constexpr Field kContainer[] = {
    {"name", String},
    {"image", String},
    {"command", ListOf<String>},
    {"args", ListOf<String>},
    {"workingDir", String},
    {"env", ListOf<EnvVar>},
    {"envFrom", ListOf<EnvFromSource>},
    {"resources", ResourceRequirements},
    {"ports", ListOf<ContainerPort>},
    {"volumeMounts", ListOf<VolumeMount>},
    {"imagePullPolicy", String},
    {"restartPolicy", String},
    {"stdin", Bool},
    {"stdinOnce", Bool},
    {"tty", Bool},
    {"terminationMessagePath", String},
    {"terminationMessagePolicy", String},
    {"livenessProbe", AnyObject},
    {"readinessProbe", AnyObject},
    {"startupProbe", AnyObject},
    {"lifecycle", AnyObject},
    {"securityContext", SecurityContext},
};
Status Container(const Json& v, const std::string& path) {
  KUOTA_RETURN_IF_ERROR(CheckFields(v, path, kContainer));
  return Required(v, "name", path);
}

constexpr Field kToleration[] = {{"key", String},
                                 {"operator", String},
                                 {"value", String},
                                 {"effect", String},
                                 {"tolerationSeconds", Int}};
Status Toleration(const Json& v, const std::string& path) {
  return CheckFields(v, path, kToleration);
}

constexpr Field kSelectorRequirement[] = {
    {"key", String}, {"operator", String}, {"values", ListOf<String>}};
Status SelectorRequirement(const Json& v, const std::string& path) {
  return CheckFields(v, path, kSelectorRequirement);
}

constexpr Field kNodeSelectorTerm[] = {{"matchExpressions", ListOf<SelectorRequirement>},
                                       {"matchFields", ListOf<SelectorRequirement>}};
Status NodeSelectorTerm(const Json& v, const std::string& path) {
  return CheckFields(v, path, kNodeSelectorTerm);
}

constexpr Field kNodeSelector[] = {{"nodeSelectorTerms", ListOf<NodeSelectorTerm>}};
Status NodeSelector(const Json& v, const std::string& path) {
  return CheckFields(v, path, kNodeSelector);
}

constexpr Field kPreferredTerm[] = {{"weight", Int}, {"preference", NodeSelectorTerm}};
Status PreferredTerm(const Json& v, const std::string& path) {
  return CheckFields(v, path, kPreferredTerm);
}

constexpr Field kNodeAffinity[] = {
    {"requiredDuringSchedulingIgnoredDuringExecution", NodeSelector},
    {"preferredDuringSchedulingIgnoredDuringExecution", ListOf<PreferredTerm>}};
Status NodeAffinity(const Json& v, const std::string& path) {
  return CheckFields(v, path, kNodeAffinity);
}

constexpr Field kAffinity[] = {
    {"nodeAffinity", NodeAffinity}, {"podAffinity", AnyObject}, {"podAntiAffinity", AnyObject}};
Status Affinity(const Json& v, const std::string& path) { return CheckFields(v, path, kAffinity); }

constexpr Field kNamed[] = {{"name", String}};
Status Named(const Json& v, const std::string& path) {
  KUOTA_RETURN_IF_ERROR(CheckFields(v, path, kNamed));
  return Required(v, "name", path);
}

constexpr Field kPodSpec[] = {
    {"containers", ListOf<Container>},
    {"initContainers", ListOf<Container>},
    {"restartPolicy", String},
    {"terminationGracePeriodSeconds", Int},
    {"activeDeadlineSeconds", Int},
    {"nodeSelector", MapOf<String>},
    {"nodeName", String},
    {"serviceAccountName", String},
    {"serviceAccount", String},
    {"automountServiceAccountToken", Bool},
    {"schedulerName", String},
    {"priorityClassName", String},
    {"priority", Int},
    {"preemptionPolicy", String},
    {"runtimeClassName", String},
    {"tolerations", ListOf<Toleration>},
    {"affinity", Affinity},
    {"volumes", ListOf<Named>},
    {"imagePullSecrets", ListOf<AnyObject>},
    {"schedulingGates", ListOf<Named>},
    {"hostNetwork", Bool},
    {"hostPID", Bool},
    {"hostIPC", Bool},
    {"shareProcessNamespace", Bool},
    {"hostname", String},
    {"subdomain", String},
    {"dnsPolicy", String},
    {"enableServiceLinks", Bool},
    {"securityContext", SecurityContext},
    {"overhead", MapOf<QuantityValue>},
    {"topologySpreadConstraints", ListOf<AnyObject>},
};

constexpr Field kOwnerReference[] = {{"apiVersion", String}, {"kind", String},
                                     {"name", String},       {"uid", String},
                                     {"controller", Bool},   {"blockOwnerDeletion", Bool}};
Status OwnerReference(const Json& v, const std::string& path) {
  return CheckFields(v, path, kOwnerReference);
}

constexpr Field kObjectMeta[] = {
    {"name", String},
    {"generateName", String},
    {"namespace", String},
    {"uid", String},
    {"resourceVersion", String},
    {"labels", MapOf<String>},
    {"annotations", MapOf<String>},
    {"finalizers", ListOf<String>},
    {"ownerReferences", ListOf<OwnerReference>},
    {"deletionGracePeriodSeconds", Int},
};

constexpr Field kCondition[] = {{"type", String},
                                {"status", String},
                                {"reason", String},
                                {"message", String},
                                {"lastTransitionTime", String},
                                {"lastProbeTime", String},
                                {"lastHeartbeatTime", String},
                                {"observedGeneration", Int}};
Status Condition(const Json& v, const std::string& path) {
  return CheckFields(v, path, kCondition);
}

constexpr Field kStateRunning[] = {{"startedAt", String}};
Status StateRunning(const Json& v, const std::string& path) {
  return CheckFields(v, path, kStateRunning);
}
constexpr Field kStateTerminated[] = {
    {"exitCode", Int},     {"signal", Int},        {"reason", String},     {"message", String},
    {"startedAt", String}, {"finishedAt", String}, {"containerID", String}};
Status StateTerminated(const Json& v, const std::string& path) {
  return CheckFields(v, path, kStateTerminated);
}
constexpr Field kStateWaiting[] = {{"reason", String}, {"message", String}};
Status StateWaiting(const Json& v, const std::string& path) {
  return CheckFields(v, path, kStateWaiting);
}
constexpr Field kContainerState[] = {
    {"running", StateRunning}, {"terminated", StateTerminated}, {"waiting", StateWaiting}};
Status ContainerState(const Json& v, const std::string& path) {
  return CheckFields(v, path, kContainerState);
}
constexpr Field kContainerStatus[] = {
    {"name", String},        {"ready", Bool},           {"started", Bool},
    {"restartCount", Int},   {"image", String},         {"imageID", String},
    {"containerID", String}, {"state", ContainerState}, {"lastState", ContainerState}};
Status ContainerStatus(const Json& v, const std::string& path) {
  return CheckFields(v, path, kContainerStatus);
}

constexpr Field kPodStatus[] = {{"phase", String},
                                {"reason", String},
                                {"message", String},
                                {"startTime", String},
                                {"hostIP", String},
                                {"podIP", String},
                                {"nominatedNodeName", String},
                                {"qosClass", String},
                                {"conditions", ListOf<Condition>},
                                {"containerStatuses", ListOf<ContainerStatus>},
                                {"initContainerStatuses", ListOf<ContainerStatus>}};

constexpr Field kUncounted[] = {{"succeeded", ListOf<String>}, {"failed", ListOf<String>}};
Status Uncounted(const Json& v, const std::string& path) {
  return CheckFields(v, path, kUncounted);
}

constexpr Field kJobStatus[] = {{"active", Int},
                                {"succeeded", Int},
                                {"failed", Int},
                                {"ready", Int},
                                {"terminating", Int},
                                {"startTime", String},
                                {"completionTime", String},
                                {"completedIndexes", String},
                                {"failedIndexes", String},
                                {"conditions", ListOf<Condition>},
                                {"uncountedTerminatedPods", Uncounted}};

}  // namespace

Status ValidatePodStatusSchema(const Json& status, const std::string& path) {
  return CheckFields(status, path, kPodStatus);
}

Status ValidateJobStatusSchema(const Json& status, const std::string& path) {
  return CheckFields(status, path, kJobStatus);
}

Status ValidatePodSpecSchema(const Json& pod_spec, const std::string& path) {
  return CheckFields(pod_spec, path, kPodSpec);
}

Status ValidateObjectMetaSchema(const Json& meta, const std::string& path) {
  return CheckFields(meta, path, kObjectMeta);
}

}  // namespace kuota::jobctl
