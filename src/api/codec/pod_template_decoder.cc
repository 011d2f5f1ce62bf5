// Decoder of a pod template (core/v1 PodTemplateSpec) as a Workload's pod
// set carries it. The fields in api/pod_spec.h are decoded; every other field
// of the real Kubernetes PodSpec, Container, ResourceRequirements, EnvVar,
// Affinity and NodeAffinity types is accepted and ignored, so manifests that
// Kubernetes accepts decode here too, while typos remain unknown fields.
#include "api/codec/decoders.h"

namespace kuota::codec {
namespace {

Status DecodeEnvVar(MapReader& r, api::EnvVar& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("name"));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  KUOTA_RETURN_IF_ERROR(r.String("value", out.value));
  r.Ignore({"valueFrom"});
  return Status::Ok();
}

Status DecodeResourceRequirements(MapReader& r, api::ResourceRequirements& out) {
  KUOTA_RETURN_IF_ERROR(r.ResourceList("requests", out.requests));
  KUOTA_RETURN_IF_ERROR(r.ResourceList("limits", out.limits));
  r.Ignore({"claims"});
  return Status::Ok();
}

Status DecodeContainer(MapReader& r, api::Container& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("name"));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  KUOTA_RETURN_IF_ERROR(r.String("image", out.image));
  KUOTA_RETURN_IF_ERROR(r.StringList("command", out.command));
  KUOTA_RETURN_IF_ERROR(r.StringList("args", out.args));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("env", out.env, DecodeEnvVar));
  KUOTA_RETURN_IF_ERROR(r.String("workingDir", out.working_dir));
  KUOTA_RETURN_IF_ERROR(r.Object("resources", out.resources, DecodeResourceRequirements));
  KUOTA_RETURN_IF_ERROR(r.String("restartPolicy", out.restart_policy));
  // The rest of core/v1 Container.
  r.Ignore({"ports", "envFrom", "resizePolicy", "restartPolicyRules", "volumeMounts",
            "volumeDevices", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle",
            "terminationMessagePath", "terminationMessagePolicy", "imagePullPolicy",
            "securityContext", "stdin", "stdinOnce", "tty"});
  return Status::Ok();
}

Status DecodeNodeSelectorRequirement(MapReader& r, api::NodeSelectorRequirement& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"key", "operator"}));
  KUOTA_RETURN_IF_ERROR(r.String("key", out.key));
  KUOTA_RETURN_IF_ERROR(r.String("operator", out.op));
  return r.StringList("values", out.values);
}

Status DecodeNodeSelectorTerm(MapReader& r, api::NodeSelectorTerm& out) {
  KUOTA_RETURN_IF_ERROR(
      r.ObjectList("matchExpressions", out.match_expressions, DecodeNodeSelectorRequirement));
  return r.ObjectList("matchFields", out.match_fields, DecodeNodeSelectorRequirement);
}

// core/v1 NodeSelector: the required node affinity's term list.
Status DecodeNodeSelector(MapReader& r, std::vector<api::NodeSelectorTerm>& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("nodeSelectorTerms"));
  return r.ObjectList("nodeSelectorTerms", out, DecodeNodeSelectorTerm);
}

Status DecodeNodeAffinity(MapReader& r, api::NodeAffinity& out) {
  KUOTA_RETURN_IF_ERROR(r.OptObject("requiredDuringSchedulingIgnoredDuringExecution",
                                    out.required_terms, DecodeNodeSelector));
  r.Ignore({"preferredDuringSchedulingIgnoredDuringExecution"});
  return Status::Ok();
}

Status DecodeAffinity(MapReader& r, api::NodeAffinity& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("nodeAffinity", out, DecodeNodeAffinity));
  r.Ignore({"podAffinity", "podAntiAffinity"});
  return Status::Ok();
}

Status DecodeTemplateMetadata(MapReader& r, api::PodTemplateSpec& out) {
  // Every ObjectMeta field is accepted (serialized templates often carry
  // `creationTimestamp: null`); only labels and annotations matter.
  api::ObjectMeta meta;
  KUOTA_RETURN_IF_ERROR(DecodeObjectMeta(r, meta));
  out.labels = std::move(meta.labels);
  out.annotations = std::move(meta.annotations);
  return Status::Ok();
}

}  // namespace

Status DecodePodSpec(MapReader& r, api::PodSpec& out) {
  KUOTA_RETURN_IF_ERROR(r.ObjectList("initContainers", out.init_containers, DecodeContainer));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("containers", out.containers, DecodeContainer));
  KUOTA_RETURN_IF_ERROR(r.ResourceList("overhead", out.overhead));
  KUOTA_RETURN_IF_ERROR(r.OptObject("resources", out.resources, DecodeResourceRequirements));
  KUOTA_RETURN_IF_ERROR(r.StringMap("nodeSelector", out.node_selector));
  KUOTA_RETURN_IF_ERROR(r.Object("affinity", out.node_affinity, DecodeAffinity));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("tolerations", out.tolerations, DecodeToleration));
  KUOTA_RETURN_IF_ERROR(r.String("restartPolicy", out.restart_policy));
  KUOTA_RETURN_IF_ERROR(r.String("priorityClassName", out.priority_class_name));
  KUOTA_RETURN_IF_ERROR(r.OptInt32("priority", out.priority));
  KUOTA_RETURN_IF_ERROR(
      r.OptInt64("terminationGracePeriodSeconds", out.termination_grace_period_seconds));
  KUOTA_RETURN_IF_ERROR(r.OptInt64("activeDeadlineSeconds", out.active_deadline_seconds));
  // The rest of core/v1 PodSpec.
  r.Ignore({"volumes",
            "ephemeralContainers",
            "dnsPolicy",
            "serviceAccountName",
            "serviceAccount",
            "automountServiceAccountToken",
            "nodeName",
            "hostNetwork",
            "hostPID",
            "hostIPC",
            "shareProcessNamespace",
            "securityContext",
            "imagePullSecrets",
            "hostname",
            "subdomain",
            "schedulerName",
            "hostAliases",
            "dnsConfig",
            "readinessGates",
            "runtimeClassName",
            "enableServiceLinks",
            "preemptionPolicy",
            "topologySpreadConstraints",
            "setHostnameAsFQDN",
            "os",
            "hostUsers",
            "schedulingGates",
            "resourceClaims",
            "hostnameOverride"});
  return Status::Ok();
}

Status DecodePodTemplateSpec(MapReader& r, api::PodTemplateSpec& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", out, DecodeTemplateMetadata));
  return r.Object("spec", out.spec, DecodePodSpec);
}

}  // namespace kuota::codec
