// Decoder of Kueue's manager Configuration (config.kueue.x-k8s.io/v1beta1
// and v1beta2): fairSharing, waitForPodsReady, integrations.frameworks and
// manageJobsWithoutQueueName are decoded with Kueue's defaults
// (SetDefaults_Configuration); the other real top-level sections are
// accepted and ignored. v1beta2 has no `enable` in fairSharing and
// waitForPodsReady: a present fairSharing is on, and waitForPodsReady is on
// even when absent (Kueue's v1beta2 SetDefaults_Configuration), with a 30m
// timeout (v1beta1: 5m), blockAdmission false and recoveryTimeout = timeout;
// in either version the feature gate DisableWaitForPodsReady turns it off.
// v1beta2 also drops queueVisibility and integrations.podOptions.
#include "api/codec/decoders.h"

namespace kuota::codec {
namespace {

using api::FairSharingStrategy;
using api::RequeuingTimestamp;

template <bool kV1beta2>
Status DecodeFairSharingConfig(MapReader& r, api::FairSharingConfig& out) {
  if constexpr (kV1beta2) {
    KUOTA_RETURN_IF_ERROR(r.Removed(
        "enable", "config.kueue.x-k8s.io/v1beta2 turns fair sharing on by the section's presence"));
    out.enable = true;
  } else {
    KUOTA_RETURN_IF_ERROR(r.Bool("enable", out.enable));
  }
  return r.EnumList<FairSharingStrategy>(
      "preemptionStrategies", out.preemption_strategies,
      {{"LessThanOrEqualToFinalShare", FairSharingStrategy::kLessThanOrEqualToFinalShare},
       {"LessThanInitialShare", FairSharingStrategy::kLessThanInitialShare}});
}

Status DecodeRequeuingStrategy(MapReader& r, api::RequeuingStrategy& out) {
  KUOTA_RETURN_IF_ERROR(r.Enum<RequeuingTimestamp>(
      "timestamp", out.timestamp,
      {{"Eviction", RequeuingTimestamp::kEviction}, {"Creation", RequeuingTimestamp::kCreation}}));
  KUOTA_RETURN_IF_ERROR(r.OptInt32("backoffLimitCount", out.backoff_limit_count));
  KUOTA_RETURN_IF_ERROR(r.Int32("backoffBaseSeconds", out.backoff_base_seconds));
  return r.Int32("backoffMaxSeconds", out.backoff_max_seconds);
}

// Kueue's v1beta2 default waitForPodsReady.timeout (DefaultWaitForPodsReadyTimeout).
constexpr int64_t kV1beta2PodsReadyTimeoutMs = 30 * 60 * 1000;

template <bool kV1beta2>
Status DecodeWaitForPodsReady(MapReader& r, api::WaitForPodsReady& out) {
  if constexpr (kV1beta2) {
    KUOTA_RETURN_IF_ERROR(
        r.Removed("enable",
                  "config.kueue.x-k8s.io/v1beta2 always runs waitForPodsReady (the feature gate "
                  "DisableWaitForPodsReady turns it off)"));
    out.enable = true;
    out.timeout = kuota::Duration{kV1beta2PodsReadyTimeoutMs};
  } else {
    KUOTA_RETURN_IF_ERROR(r.Bool("enable", out.enable));
  }
  KUOTA_RETURN_IF_ERROR(r.Duration("timeout", out.timeout));
  // Kueue's v1beta2 treats a zero timeout as unset.
  if (kV1beta2 && out.timeout.ms == 0) out.timeout = kuota::Duration{kV1beta2PodsReadyTimeoutMs};
  // Kueue: blockAdmission defaults to the value of enable in v1beta1, to
  // false in v1beta2.
  std::optional<bool> block;
  KUOTA_RETURN_IF_ERROR(r.OptBool("blockAdmission", block));
  out.block_admission = block.value_or(kV1beta2 ? false : out.enable);
  KUOTA_RETURN_IF_ERROR(r.OptDuration("recoveryTimeout", out.recovery_timeout));
  // v1beta2: an unset recoveryTimeout is the timeout ("0s" turns it off).
  if (kV1beta2 && !out.recovery_timeout) out.recovery_timeout = out.timeout;
  return r.Object("requeuingStrategy", out.requeuing_strategy, DecodeRequeuingStrategy);
}

template <bool kV1beta2>
Status DecodeIntegrations(MapReader& r, api::Integrations& out) {
  std::vector<std::string> frameworks;
  if (r.Has("frameworks")) {
    KUOTA_RETURN_IF_ERROR(r.StringList("frameworks", frameworks));
    out.frameworks = std::move(frameworks);
  }
  // Which pods and which label keys Kueue copies: not used by Kuota.
  if constexpr (!kV1beta2) r.Ignore({"podOptions"});
  r.Ignore({"externalFrameworks", "labelKeysToCopy"});
  return Status::Ok();
}

constexpr const char* kDispatcherAllAtOnce = "kueue.x-k8s.io/multikueue-dispatcher-all-at-once";
constexpr const char* kDispatcherIncremental = "kueue.x-k8s.io/multikueue-dispatcher-incremental";

Status DecodeMultiKueueSettings(MapReader& r, api::MultiKueueSettings& out) {
  std::optional<kuota::Duration> d;
  KUOTA_RETURN_IF_ERROR(r.OptDuration("gcInterval", d));
  if (d) out.gc_interval = *d;
  d.reset();
  KUOTA_RETURN_IF_ERROR(r.OptDuration("workerLostTimeout", d));
  if (d) out.worker_lost_timeout = *d;
  if (r.Has("origin")) KUOTA_RETURN_IF_ERROR(r.String("origin", out.origin));
  if (r.Has("dispatcherName")) {
    KUOTA_RETURN_IF_ERROR(r.String("dispatcherName", out.dispatcher_name));
    if (out.dispatcher_name != kDispatcherAllAtOnce &&
        out.dispatcher_name != kDispatcherIncremental) {
      return Status::Invalid(r.PathOf("dispatcherName") + ": Unsupported value: \"" +
                             out.dispatcher_name + "\": supported values: \"" +
                             kDispatcherAllAtOnce + "\", \"" + kDispatcherIncremental + "\"");
    }
  }
  r.Ignore({"externalFrameworks", "clusterProfile"});
  return Status::Ok();
}

template <bool kV1beta2>
Status DecodeConfigurationAs(MapReader& r, api::Configuration& out) {
  KUOTA_RETURN_IF_ERROR(
      r.Object("fairSharing", out.fair_sharing, DecodeFairSharingConfig<kV1beta2>));
  if constexpr (kV1beta2) {
    // On with its defaults even when the section is absent.
    out.wait_for_pods_ready.enable = true;
    out.wait_for_pods_ready.timeout = kuota::Duration{kV1beta2PodsReadyTimeoutMs};
    out.wait_for_pods_ready.block_admission = false;
    out.wait_for_pods_ready.recovery_timeout = out.wait_for_pods_ready.timeout;
  }
  KUOTA_RETURN_IF_ERROR(
      r.Object("waitForPodsReady", out.wait_for_pods_ready, DecodeWaitForPodsReady<kV1beta2>));
  // Kueue's feature gates: only DisableWaitForPodsReady changes what Kuota does.
  api::Labels gates;
  KUOTA_RETURN_IF_ERROR(r.StringMap("featureGates", gates));
  if (auto it = gates.find("DisableWaitForPodsReady"); it != gates.end() && it->second == "true") {
    out.wait_for_pods_ready.enable = false;
  }
  KUOTA_RETURN_IF_ERROR(r.Object("integrations", out.integrations, DecodeIntegrations<kV1beta2>));
  KUOTA_RETURN_IF_ERROR(r.Bool("manageJobsWithoutQueueName", out.manage_jobs_without_queue_name));
  KUOTA_RETURN_IF_ERROR(r.OptObject(
      "admissionFairSharing", out.admission_fair_sharing,
      [](MapReader& a, api::AdmissionFairSharingConfig& cfg) {
        KUOTA_RETURN_IF_ERROR(a.Duration("usageHalfLifeTime", cfg.usage_half_life_time));
        KUOTA_RETURN_IF_ERROR(a.Duration("usageSamplingInterval", cfg.usage_sampling_interval));
        api::ResourceList weights;  // resource name -> number, read as quantities
        KUOTA_RETURN_IF_ERROR(a.ResourceList("resourceWeights", weights));
        for (const auto& [name, q] : weights) {
          cfg.resource_weights[name] = static_cast<double>(q.milli()) / 1000.0;
        }
        return Status::Ok();
      }));
  // The rest of Kueue's Configuration, including the inlined
  // ControllerManager fields (webhook, leaderElection, metrics, health,
  // pprofBindAddress, controller).
  if constexpr (kV1beta2) {
    r.Ignore({"visibilityServer"});
  } else {
    r.Ignore({"queueVisibility"});
  }
  if (r.Has("namespace")) {
    std::string ns;
    KUOTA_RETURN_IF_ERROR(r.String("namespace", ns));
    out.namespace_ = ns;
  }
  KUOTA_RETURN_IF_ERROR(r.Object("multiKueue", out.multi_kueue, DecodeMultiKueueSettings));
  r.Ignore({"managedJobsNamespaceSelector", "internalCertManagement", "clientConnection",
            "resources", "objectRetentionPolicies", "webhook", "leaderElection", "metrics",
            "health", "pprofBindAddress", "controller"});
  return Status::Ok();
}

}  // namespace

Status DecodeConfiguration(MapReader& r, api::Configuration& out) {
  return DecodeConfigurationAs<false>(r, out);
}

Status DecodeConfigurationV1beta2(MapReader& r, api::Configuration& out) {
  return DecodeConfigurationAs<true>(r, out);
}

}  // namespace kuota::codec
