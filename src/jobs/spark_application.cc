#include "jobs/spark_application.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "jobs/job_fields.h"
#include "jobs/spark_pod_templates.h"

namespace kuota::jobs {
namespace {

// Where Expand puts the pods Spark makes (never stored).
constexpr const char* kSparkPodsKey = "kuotaSparkPods";
// The spec.driver / spec.executor fields admission writes and eviction restores.
constexpr const char* kSparkPlacementFields[] = {"labels", "annotations", "nodeSelector",
                                                 "tolerations"};
constexpr int64_t kSparkDriverPort = 7078;  // Spark's default spark.driver.port

const char* SparkRoleOf(size_t set) { return set == 0 ? spark::kDriverRole : spark::kExecutorRole; }

std::string SparkState(const Json& job) {
  return StrAt(ObjAt(ObjAt(job, "status"), "applicationState"), "state");
}

// States from which the operator submits the application (again).
bool SparkAwaitsSubmission(const std::string& state) {
  return state.empty() || state == "SUSPENDED" || state == "SUSPENDING" || state == "RESUMING" ||
         state == "PENDING_RERUN" || state == "INVALIDATING";
}

bool SparkTerminal(const std::string& state) {
  return state == "COMPLETED" || state == "FAILED" || state == "SUBMISSION_FAILED";
}

uint64_t SparkFnv(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string SparkHex(uint64_t v, int digits) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return std::string(buf).substr(16 - digits);
}

// The operator's submission id (a UUID), here derived from the application
// and the submission's number.
std::string SparkSubmissionId(const Json& job, int64_t n) {
  const std::string seed = MetaStr(job, "uid") + "/" + std::to_string(n) + "/submission";
  const std::string a = SparkHex(SparkFnv(seed + "1"), 16);
  const std::string b = SparkHex(SparkFnv(seed + "2"), 16);
  return a.substr(0, 8) + "-" + a.substr(8, 4) + "-" + a.substr(12, 4) + "-" + b.substr(0, 4) +
         "-" + b.substr(4, 12);
}

std::string SparkConf(const Json& job, const char* key) {
  return StrAt(ObjAt(SpecOf(job), "sparkConf"), key);
}

// The saved spec.nodeSelector and placement fields of each role, from the
// annotation Start wrote; null when none.
Json SparkSaved(const Json& job) {
  const std::string text = MetaMapValue(job, "annotations", kOriginalPlacementAnnotation);
  if (text.empty()) return Json();
  Json saved = Json::parse(text, nullptr, false);
  return saved.is_object() ? saved : Json();
}

// Puts the saved placement back on `job`.
void SparkRestore(Json& job, const Json& saved) {
  Json& spec = job["spec"];
  if (!spec.is_object()) return;
  if (saved.contains("nodeSelector")) spec["nodeSelector"] = saved["nodeSelector"];
  for (const char* role : {spark::kDriverRole, spark::kExecutorRole}) {
    if (!spec.contains(role) || !spec[role].is_object()) continue;
    const Json& s = ObjAt(saved, role);
    for (const char* f : kSparkPlacementFields) {
      if (s.contains(f)) {
        spec[role][f] = s[f];
      } else {
        spec[role].erase(f);
      }
    }
  }
}

// The job as submitted: Start's placement taken out.
Json SparkAsSubmitted(const Json& job) {
  Json out = job;
  const Json saved = SparkSaved(job);
  if (saved.is_object()) SparkRestore(out, saved);
  return out;
}

// ---- Validation: the CRD's schema ----

std::string SparkDns1035(const std::string& name) {
  static const char* kMsg =
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
      "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
      "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
  if (name.size() > kMaxLabelLength) return "must be no more than 63 characters";
  if (name.empty() || !std::islower(static_cast<unsigned char>(name.front())) ||
      name.back() == '-') {
    return kMsg;
  }
  for (char c : name) {
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '-')) {
      return kMsg;
    }
  }
  return "";
}

Status SparkRequiredString(const Json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return Required(path + "." + key);
  return StringField(obj, key, path).status();
}

Status SparkEnum(const Json& obj, const char* key, const std::string& path,
                 const std::vector<std::string>& allowed) {
  KUOTA_ASSIGN_OR_RETURN(std::string v, StringField(obj, key, path));
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return Status::Ok();
  if (!Contains(allowed, v)) return NotSupportedValue(path + "." + key, v, allowed);
  return Status::Ok();
}

Status SparkStrings(const Json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return Status::Ok();
  if (!it->is_array()) return InvalidValue(path + "." + key, *it, "must be an array");
  for (size_t i = 0; i < it->size(); ++i) {
    if (!(*it)[i].is_string()) {
      return InvalidValue(path + "." + key + "[" + std::to_string(i) + "]", (*it)[i],
                          "must be a string");
    }
  }
  return Status::Ok();
}

Status SparkStringMap(const Json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return Status::Ok();
  if (!it->is_object()) return InvalidValue(path + "." + key, *it, "must be an object");
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string())
      return InvalidValue(path + "." + key + "[" + k + "]", v, "must be a string");
  }
  return Status::Ok();
}

Status SparkObjects(const Json& obj, const char* key, const std::string& path, bool named) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return Status::Ok();
  if (!it->is_array()) return InvalidValue(path + "." + key, *it, "must be an array");
  for (size_t i = 0; i < it->size(); ++i) {
    const std::string at = path + "." + key + "[" + std::to_string(i) + "]";
    if (!(*it)[i].is_object()) return InvalidValue(at, (*it)[i], "must be an object");
    if (named) KUOTA_RETURN_IF_ERROR(SparkRequiredString((*it)[i], "name", at));
  }
  return Status::Ok();
}

Status SparkOptionalObject(const Json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null() || it->is_object()) return Status::Ok();
  return InvalidValue(path + "." + key, *it, "must be an object");
}

// spec.driver or spec.executor (SparkPodSpec and the role's own fields).
Status SparkValidateRole(const Json& spec, const std::string& role) {
  const std::string path = "spec." + role;
  KUOTA_ASSIGN_OR_RETURN(const Json* r, ObjectField(spec, role.c_str(), "spec"));
  KUOTA_RETURN_IF_ERROR(IntField(*r, "cores", path, 1, 1).status());
  if (role == spark::kExecutorRole) {
    KUOTA_RETURN_IF_ERROR(IntField(*r, "instances", path, 1, 1).status());
    KUOTA_RETURN_IF_ERROR(CheckBool(*r, "deleteOnTermination", path));
  }
  for (const char* f : {"coreRequest", "coreLimit", "memory", "memoryLimit", "memoryOverhead",
                        "image", "serviceAccount", "priorityClassName", "javaOptions",
                        "schedulerName", "podName", "kubernetesMaster"}) {
    KUOTA_RETURN_IF_ERROR(StringField(*r, f, path).status());
  }
  for (const char* f : {"labels", "annotations", "nodeSelector", "envVars", "serviceLabels",
                        "serviceAnnotations"}) {
    KUOTA_RETURN_IF_ERROR(SparkStringMap(*r, f, path));
  }
  KUOTA_RETURN_IF_ERROR(SparkObjects(*r, "env", path, true));
  KUOTA_RETURN_IF_ERROR(SparkObjects(*r, "volumeMounts", path, true));
  KUOTA_RETURN_IF_ERROR(SparkObjects(*r, "sidecars", path, true));
  KUOTA_RETURN_IF_ERROR(SparkObjects(*r, "initContainers", path, true));
  KUOTA_RETURN_IF_ERROR(SparkObjects(*r, "tolerations", path, false));
  KUOTA_RETURN_IF_ERROR(SparkOptionalObject(*r, "affinity", path));
  KUOTA_RETURN_IF_ERROR(IntField(*r, "terminationGracePeriodSeconds", path, 0, 0).status());
  if (auto g = r->find("gpu"); g != r->end() && !g->is_null()) {
    if (!g->is_object()) return InvalidValue(path + ".gpu", *g, "must be an object");
    KUOTA_RETURN_IF_ERROR(SparkRequiredString(*g, "name", path + ".gpu"));
    auto q = g->find("quantity");
    if (q == g->end() || q->is_null()) return Required(path + ".gpu.quantity");
    KUOTA_RETURN_IF_ERROR(
        IntField(*g, "quantity", path + ".gpu", 0, std::numeric_limits<int64_t>::min()).status());
  }
  if (auto t = r->find("template"); t != r->end() && !t->is_null()) {
    if (!t->is_object()) return InvalidValue(path + ".template", *t, "must be an object");
    KUOTA_RETURN_IF_ERROR(SparkOptionalObject(*t, "metadata", path + ".template"));
    KUOTA_RETURN_IF_ERROR(SparkOptionalObject(*t, "spec", path + ".template"));
    const Json& ts = ObjAt(*t, "spec");
    KUOTA_RETURN_IF_ERROR(SparkObjects(ts, "containers", path + ".template.spec", false));
    const Json& tm = ObjAt(*t, "metadata");
    KUOTA_RETURN_IF_ERROR(SparkStringMap(tm, "labels", path + ".template.metadata"));
    KUOTA_RETURN_IF_ERROR(SparkStringMap(tm, "annotations", path + ".template.metadata"));
  }
  // Kueue builds the pod set from these quantities: one that does not parse
  // leaves the application without a Workload.
  return spark::KueuePodSetTemplate(Json{{"spec", spec}}, role).status();
}

// "3.1.2" >= "3.0.0"? Missing parts count as 0; text that is not a version is older.
bool SparkVersionAtLeast3(const std::string& v) {
  std::string s = v;
  if (!s.empty() && (s[0] == 'v' || s[0] == 'V')) s = s.substr(1);
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  size_t i = 0;
  int64_t major = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && major < 1000000) {
    major = major * 10 + (s[i++] - '0');
  }
  return major >= 3;
}

// The operator's denied sparkConf keys and why.
const std::map<std::string, std::string>& SparkDeniedConf() {
  static const std::map<std::string, std::string> kDenied = [] {
    std::map<std::string, std::string> m;
    const std::string sa = "configure the service account via the CRD spec instead";
    const std::string creds = "authentication credentials are managed by the operator";
    const std::string managed = "this value is managed by the operator";
    const std::string image = "use the image field on the CRD instead";
    m["spark.kubernetes.authenticate.driver.serviceAccountName"] = sa;
    m["spark.kubernetes.authenticate.executor.serviceAccountName"] = sa;
    for (const char* k : {"spark.kubernetes.authenticate.oauthTokenFile",
                          "spark.kubernetes.authenticate.oauthToken",
                          "spark.kubernetes.authenticate.driver.oauthTokenFile",
                          "spark.kubernetes.authenticate.driver.oauthToken",
                          "spark.kubernetes.authenticate.executor.oauthTokenFile",
                          "spark.kubernetes.authenticate.executor.oauthToken"}) {
      m[k] = creds;
    }
    m["spark.master"] = managed;
    m["spark.kubernetes.driver.master"] = managed;
    m["spark.kubernetes.container.image"] = image;
    m["spark.kubernetes.driver.container.image"] = image;
    m["spark.kubernetes.executor.container.image"] = image;
    return m;
  }();
  return kDenied;
}

// The operator's webhook (validateSpec).
Status SparkOperatorWebhook(const Json& job, const Json& spec) {
  auto has_template = [&spec](const char* role) {
    const Json& r = ObjAt(spec, role);
    return r.contains("template") && r["template"].is_object();
  };
  const bool templated = has_template(spark::kDriverRole) || has_template(spark::kExecutorRole);
  if (templated && !SparkVersionAtLeast3(StrAt(spec, "sparkVersion"))) {
    return InvalidValue("spec.sparkVersion", StrAt(spec, "sparkVersion"),
                        "pod template feature requires Spark version 3.0.0 or higher");
  }
  if (spec.contains("nodeSelector") && spec["nodeSelector"].is_object() &&
      ((ObjAt(spec, "driver").contains("nodeSelector") &&
        ObjAt(spec, "driver")["nodeSelector"].is_object()) ||
       (ObjAt(spec, "executor").contains("nodeSelector") &&
        ObjAt(spec, "executor")["nodeSelector"].is_object()))) {
    return Status::Invalid(
        "spec.nodeSelector: Forbidden: node selector cannot be defined at both SparkApplication "
        "and Driver/Executor");
  }
  std::set<int64_t> ports;
  std::set<std::string> formats;
  const Json& ingress = ArrAt(spec, "driverIngressOptions");
  for (size_t i = 0; i < ingress.size(); ++i) {
    const std::string at = "spec.driverIngressOptions[" + std::to_string(i) + "]";
    const Json& o = ingress[i];
    if (!o.contains("servicePort") || !o["servicePort"].is_number_integer()) {
      return Required(at + ".servicePort");
    }
    if (!ports.insert(o["servicePort"].get<int64_t>()).second) {
      return Status::Invalid(at + ".servicePort: Duplicate value: " + o["servicePort"].dump());
    }
    const std::string format = StrAt(o, "ingressURLFormat");
    if (format.empty()) return Required(at + ".ingressURLFormat");
    if (!formats.insert(format).second) {
      return Status::Invalid(at + ".ingressURLFormat: Duplicate value: " + Quoted(format));
    }
  }
  for (const auto& [key, value] : ObjAt(spec, "sparkConf").items()) {
    const std::string at = "spec.sparkConf[" + key + "]";
    if (auto d = SparkDeniedConf().find(key); d != SparkDeniedConf().end()) {
      return Status::Invalid(at + ": Forbidden: sparkConf key " + Quoted(key) +
                             " is not allowed: " + d->second);
    }
    if (key == "spark.kubernetes.namespace" && value.is_string() &&
        value.get<std::string>() != MetaStr(job, "namespace")) {
      return Status::Invalid(at + ": Forbidden: sparkConf key " + Quoted(key) +
                             " is not allowed: must equal the application namespace " +
                             Quoted(MetaStr(job, "namespace")) + ", got " +
                             Quoted(value.get<std::string>()));
    }
  }
  return Status::Ok();
}

PodSetDef SparkPodSet(const std::string& role, int64_t count, int stage) {
  PodSetDef s;
  s.name = role;
  s.template_path = Json::json_pointer(std::string("/") + kSparkPodsKey + "/" + role);
  s.count = count;
  s.stage = stage;
  return s;
}

}  // namespace

const KindInfo& SparkApplicationKind::Info() const {
  // The CRD's additionalPrinterColumns.
  static const KindInfo kInfo = [] {
    auto at = [](const char* pointer) {
      return [p = Json::json_pointer(pointer)](const Json& job) -> Json {
        return job.contains(p) ? job.at(p) : Json();
      };
    };
    return CrdKindInfo("sparkoperator.k8s.io", "v1beta2", "SparkApplication", "SparkApplication",
                       {.short_names = {"sparkapp"},
                        .columns = {
                            {"Suspend", "boolean", "", 0, at("/spec/suspend")},
                            {"Status", "string", "", 0, at("/status/applicationState/state")},
                            {"Attempts", "string", "", 0, at("/status/executionAttempts")},
                            {"Start", "string", "", 0, at("/status/lastSubmissionAttemptTime")},
                            {"Finish", "string", "", 0, at("/status/terminationTime")},
                            {"Age", "date", "", 0, at("/metadata/creationTimestamp")},
                        }});
  }();
  return kInfo;
}

std::string SparkApplicationKind::DriverPodName(const Json& job) {
  const std::string own = StrAt(ObjAt(SpecOf(job), "driver"), "podName");
  if (!own.empty()) return own;
  const std::string conf = SparkConf(job, "spark.kubernetes.driver.pod.name");
  return conf.empty() ? JobName(job) + "-driver" : conf;
}

int64_t SparkApplicationKind::Submission(const Json& job) {
  const int64_t done = IntAt(ObjAt(job, "status"), "submissionAttempts", 0);
  return SparkAwaitsSubmission(SparkState(job)) ? done + 1 : std::max<int64_t>(done, 1);
}

std::string SparkApplicationKind::ApplicationId(const Json& job, int64_t n) {
  const std::string seed = MetaStr(job, "uid") + "/" + std::to_string(n) + "/app";
  return "spark-" + SparkHex(SparkFnv(seed + "1"), 16) + SparkHex(SparkFnv(seed + "2"), 16);
}

Status SparkApplicationKind::Validate(const Json& job) const {
  if (!job.is_object()) return InvalidValue("", job, "must be an object");
  // The operator's webhook: the name becomes a Service's.
  if (std::string why = SparkDns1035(JobName(job)); !why.empty()) {
    return InvalidValue("metadata.name", JobName(job), "invalid SparkApplication name: " + why);
  }
  KUOTA_ASSIGN_OR_RETURN(const Json* spec, ObjectField(job, "spec", ""));
  // The CRD's schema.
  KUOTA_RETURN_IF_ERROR(CheckBool(*spec, "suspend", "spec"));
  if (!spec->contains("type") || (*spec)["type"].is_null()) return Required("spec.type");
  KUOTA_RETURN_IF_ERROR(SparkEnum(*spec, "type", "spec", {"Java", "Python", "Scala", "R"}));
  KUOTA_RETURN_IF_ERROR(SparkRequiredString(*spec, "sparkVersion", "spec"));
  KUOTA_RETURN_IF_ERROR(SparkEnum(*spec, "mode", "spec", {"cluster", "client"}));
  KUOTA_RETURN_IF_ERROR(SparkRequiredString(*spec, "mainApplicationFile", "spec"));
  KUOTA_RETURN_IF_ERROR(SparkEnum(*spec, "pythonVersion", "spec", {"2", "3"}));
  for (const char* f : {"mainClass", "image", "imagePullPolicy", "proxyUser", "sparkConfigMap",
                        "hadoopConfigMap", "memoryOverheadFactor", "batchScheduler"}) {
    KUOTA_RETURN_IF_ERROR(StringField(*spec, f, "spec").status());
  }
  KUOTA_RETURN_IF_ERROR(SparkStrings(*spec, "arguments", "spec"));
  KUOTA_RETURN_IF_ERROR(SparkStrings(*spec, "imagePullSecrets", "spec"));
  for (const char* f : {"sparkConf", "hadoopConf", "nodeSelector"}) {
    KUOTA_RETURN_IF_ERROR(SparkStringMap(*spec, f, "spec"));
  }
  KUOTA_RETURN_IF_ERROR(SparkObjects(*spec, "volumes", "spec", true));
  KUOTA_RETURN_IF_ERROR(SparkObjects(*spec, "driverIngressOptions", "spec", false));
  for (const char* f : {"failureRetries", "retryInterval", "timeToLiveSeconds"}) {
    KUOTA_RETURN_IF_ERROR(
        IntField(*spec, f, "spec", 0, std::numeric_limits<int64_t>::min()).status());
  }
  if (auto rp = spec->find("restartPolicy"); rp != spec->end() && !rp->is_null()) {
    const std::string at = "spec.restartPolicy";
    if (!rp->is_object()) return InvalidValue(at, *rp, "must be an object");
    KUOTA_RETURN_IF_ERROR(SparkEnum(*rp, "type", at, {"Never", "Always", "OnFailure"}));
    KUOTA_RETURN_IF_ERROR(IntField(*rp, "onSubmissionFailureRetries", at, 0, 0).status());
    KUOTA_RETURN_IF_ERROR(IntField(*rp, "onFailureRetries", at, 0, 0).status());
    KUOTA_RETURN_IF_ERROR(IntField(*rp, "onSubmissionFailureRetryInterval", at, 1, 1).status());
    KUOTA_RETURN_IF_ERROR(IntField(*rp, "onFailureRetryInterval", at, 1, 1).status());
  }
  if (auto deps = spec->find("deps"); deps != spec->end() && !deps->is_null()) {
    if (!deps->is_object()) return InvalidValue("spec.deps", *deps, "must be an object");
    for (const char* f :
         {"jars", "files", "pyFiles", "packages", "excludePackages", "repositories", "archives"}) {
      KUOTA_RETURN_IF_ERROR(SparkStrings(*deps, f, "spec.deps"));
    }
  }
  if (auto da = spec->find("dynamicAllocation"); da != spec->end() && !da->is_null()) {
    const std::string at = "spec.dynamicAllocation";
    if (!da->is_object()) return InvalidValue(at, *da, "must be an object");
    KUOTA_RETURN_IF_ERROR(CheckBool(*da, "enabled", at));
    KUOTA_RETURN_IF_ERROR(CheckBool(*da, "shuffleTrackingEnabled", at));
    for (const char* f : {"initialExecutors", "minExecutors", "maxExecutors"}) {
      KUOTA_RETURN_IF_ERROR(IntField(*da, f, at, 0, 0).status());
    }
  }
  KUOTA_RETURN_IF_ERROR(SparkValidateRole(*spec, spark::kDriverRole));
  KUOTA_RETURN_IF_ERROR(SparkValidateRole(*spec, spark::kExecutorRole));
  // The operator's webhook.
  KUOTA_RETURN_IF_ERROR(SparkOperatorWebhook(job, *spec));
  // Kueue's webhook, for a queued application.
  if (QueueName(job).empty()) return Status::Ok();
  const std::string mode = StrAt(*spec, "mode");
  if (mode != "cluster") {
    return InvalidValue("spec.mode", mode,
                        "only Cluster mode is supported for a kueue managed job");
  }
  const Json& da = ObjAt(*spec, "dynamicAllocation");
  if (da.contains("enabled") && da["enabled"].is_boolean() && da["enabled"].get<bool>()) {
    return InvalidValue("spec.dynamicAllocation.enabled", true,
                        "a kueue managed job can use dynamicAllocation only when the "
                        "ElasticJobsViaWorkloadSlices feature gate is on and the job is an "
                        "elastic job");
  }
  // The topology annotations of the pod sets as Kueue builds them, named at
  // spec.driver / spec.executor.
  Json view = SparkAsSubmitted(job);
  for (const char* role : {spark::kDriverRole, spark::kExecutorRole}) {
    KUOTA_ASSIGN_OR_RETURN(Json tmpl, spark::KueuePodSetTemplate(view, role));
    view[kSparkPodsKey][role] = std::move(tmpl);
  }
  return ValidateTopology(view, false);
}

void SparkApplicationKind::Default(Json& job) const {
  if (!job.is_object() || !job.contains("spec") || !job["spec"].is_object()) return;
  const std::string state = SparkState(job);
  if (!state.empty() && state != "INVALIDATING") return;
  Json& spec = job["spec"];
  auto set_if_absent = [](Json& obj, const char* key, Json value) {
    if (!obj.contains(key) || obj[key].is_null()) obj[key] = std::move(value);
  };
  if (!spec.contains("type") || spec["type"] == "") spec["type"] = "Scala";
  if (!spec.contains("mode") || spec["mode"] == "") spec["mode"] = "cluster";
  if (spec.contains("restartPolicy") && !spec["restartPolicy"].is_null() &&
      !spec["restartPolicy"].is_object()) {
    return;
  }
  Json& rp = spec["restartPolicy"];
  if (!rp.is_object()) rp = Json::object();
  if (!rp.contains("type") || rp["type"] == "") rp["type"] = "Never";
  if (rp["type"] != "Never") {
    set_if_absent(rp, "onFailureRetryInterval", 5);
    set_if_absent(rp, "onSubmissionFailureRetryInterval", 5);
  }
  const Json conf = ObjAt(spec, "sparkConf");
  const Json da = ObjAt(spec, "dynamicAllocation");
  const bool dynamic = spec.contains("dynamicAllocation") && spec["dynamicAllocation"].is_object()
                           ? da.contains("enabled") && da["enabled"] == true
                           : conf.contains("spark.dynamicallocation.enabled") &&
                                 conf["spark.dynamicallocation.enabled"] == "true";
  for (const char* role : {spark::kDriverRole, spark::kExecutorRole}) {
    if (!spec.contains(role) || !spec[role].is_object()) continue;
    Json& r = spec[role];
    if (!conf.contains(std::string("spark.") + role + ".cores")) set_if_absent(r, "cores", 1);
    if (!conf.contains(std::string("spark.") + role + ".memory")) set_if_absent(r, "memory", "1g");
  }
  if (spec.contains("executor") && spec["executor"].is_object() && !dynamic &&
      StrAt(conf, "spark.executor.instances").empty()) {
    set_if_absent(spec["executor"], "instances", 1);
  }
  if (dynamic && spec["dynamicAllocation"].is_object()) {
    set_if_absent(spec["dynamicAllocation"], "shuffleTrackingEnabled", true);
  }
}

std::vector<PodSetDef> SparkApplicationKind::PodSets(const Json& job) const {
  // Executors come once the driver runs: the driver asks for them.
  return {
      SparkPodSet(spark::kDriverRole, 1, 0),
      SparkPodSet(spark::kExecutorRole,
                  std::max<int64_t>(0, IntAt(ObjAt(SpecOf(job), "executor"), "instances", 0)), 1)};
}

std::optional<Json> SparkApplicationKind::Expand(const Json& job) const {
  if (job.contains(kSparkPodsKey)) return std::nullopt;
  Json view = job;
  for (const char* role : {spark::kDriverRole, spark::kExecutorRole}) {
    view[kSparkPodsKey][role] = spark::LocalPodTemplate(job, role);
  }
  return view;
}

Result<Json> SparkApplicationKind::BuildWorkload(const Json& job) const {
  const std::string name = JobName(job);
  const std::string uid = MetaStr(job, "uid");
  if (name.empty() || uid.empty()) return Status::Invalid("job has no name or uid yet");
  // While it runs, spec.driver and spec.executor carry the flavors'
  // placement: the Workload describes the application as submitted.
  const Json app = SparkAsSubmitted(job);
  Json pod_sets = Json::array();
  std::string pod_priority;
  for (const PodSetDef& set : PodSets(app)) {
    KUOTA_ASSIGN_OR_RETURN(Json tmpl, spark::KueuePodSetTemplate(app, set.name));
    KUOTA_ASSIGN_OR_RETURN(Json topology, BuildTopologyRequest(ObjAt(tmpl, "metadata"), {}));
    if (pod_priority.empty()) pod_priority = StrAt(ObjAt(tmpl, "spec"), "priorityClassName");
    Json ps = {{"name", set.name}, {"count", set.count}, {"template", std::move(tmpl)}};
    if (!topology.is_null()) ps["topologyRequest"] = std::move(topology);
    pod_sets.push_back(std::move(ps));
  }
  Json wl =
      MakeJobWorkload(Info().workload_prefix, ApiVersion(), Kind(), name, MetaStr(job, "namespace"),
                      uid, LocalQueueName(job), std::move(pod_sets));
  const std::string wpc = MetaMapValue(job, "labels", kPriorityClassLabel);
  if (!wpc.empty()) {
    SetPriorityClassRef(wl, wpc, true);
  } else if (!pod_priority.empty()) {
    SetPriorityClassRef(wl, pod_priority, false);
  }
  return wl;
}

Json SparkApplicationKind::Start(const Json& job,
                                 const std::vector<PodSetPlacement>& placement) const {
  Json out = job;
  Json& spec = out["spec"];
  const bool have_saved = SparkSaved(job).is_object();
  Json saved = Json::object();
  // Kueue moves spec.nodeSelector (exclusive with the roles') into each role.
  const bool global = spec.contains("nodeSelector") && spec["nodeSelector"].is_object();
  const Json global_selector = global ? spec["nodeSelector"] : Json::object();
  if (global) saved["nodeSelector"] = global_selector;
  for (const char* role : {spark::kDriverRole, spark::kExecutorRole}) {
    Json& r = spec[role];
    if (!r.is_object()) r = Json::object();
    Json s = Json::object();
    for (const char* f : kSparkPlacementFields) {
      if (r.contains(f)) s[f] = r[f];
    }
    saved[role] = std::move(s);
    Json selector = global ? global_selector : ObjAt(r, "nodeSelector");
    for (const PodSetPlacement& p : placement) {
      if (p.name != role) continue;
      for (const auto& [k, v] : p.node_selector) selector[k] = v;
      for (const Json& t : p.tolerations) r["tolerations"].push_back(t);
      for (const auto& [k, v] : p.labels) r["labels"][k] = v;
      for (const auto& [k, v] : p.annotations) r["annotations"][k] = v;
    }
    if (!selector.empty()) r["nodeSelector"] = std::move(selector);
  }
  if (global) spec.erase("nodeSelector");
  if (!have_saved) out["metadata"]["annotations"][kOriginalPlacementAnnotation] = saved.dump();
  spec["suspend"] = false;
  return out;
}

Json SparkApplicationKind::Stop(const Json& job) const {
  Json out = job;
  out["spec"]["suspend"] = true;
  const Json saved = SparkSaved(job);
  if (!saved.is_object()) return out;
  SparkRestore(out, saved);
  out["metadata"]["annotations"].erase(kOriginalPlacementAnnotation);
  return out;
}

bool SparkApplicationKind::IsFinished(const Json& job, bool* succeeded) const {
  const std::string state = SparkState(job);
  if (succeeded != nullptr) *succeeded = state == "COMPLETED";
  return SparkTerminal(state);
}

bool SparkApplicationKind::PodsReady(const Json& job) const {
  if (SparkState(job) != "RUNNING") return false;
  const int64_t want = IntAt(ObjAt(SpecOf(job), "executor"), "instances", 0);
  int64_t ready = 0;
  for (const auto& [pod, state] : ObjAt(ObjAt(job, "status"), "executorState").items()) {
    if (state == "RUNNING" || state == "COMPLETED") ++ready;
  }
  return ready >= want;
}

std::string SparkApplicationKind::PodSetTemplateField(const Json& /*job*/, size_t index) const {
  return std::string("spec.") + SparkRoleOf(index);
}

std::string SparkApplicationKind::TopologyMetadataPath(const PodSetDef& set) const {
  return "spec." + set.name;
}

std::string SparkApplicationKind::PodName(const Json& job, const PodSetDef& set,
                                          int64_t index) const {
  if (set.name == spark::kDriverRole) return DriverPodName(job);
  std::string prefix = SparkConf(job, "spark.kubernetes.executor.podNamePrefix");
  if (prefix.empty()) prefix = JobName(job);
  return prefix + "-exec-" + std::to_string(index + 1);
}

void SparkApplicationKind::CustomizePod(const Json& job, const PodPosition& where,
                                        Json& pod) const {
  const std::string role = SparkRoleOf(where.set);
  const int64_t n = Submission(job);
  const std::string app_id = ApplicationId(job, n);
  const std::string name = JobName(job);
  Json& labels = pod["metadata"]["labels"];
  // Spark's labels, then the operator's.
  labels["spark-app-selector"] = app_id;
  labels["spark-role"] = role;
  labels["spark-app-name"] = name;
  const std::string version = StrAt(SpecOf(job), "sparkVersion");
  if (!version.empty()) labels["spark-version"] = version;
  labels["sparkoperator.k8s.io/app-name"] = name;
  labels["sparkoperator.k8s.io/launched-by-spark-operator"] = "true";
  labels["sparkoperator.k8s.io/submission-id"] = SparkSubmissionId(job, n);
  std::vector<std::pair<std::string, std::string>> env = {{"SPARK_APPLICATION_ID", app_id}};
  if (role == spark::kDriverRole) {
    env.emplace_back("SPARK_DRIVER_BIND_ADDRESS", where.address);
  } else {
    const std::string id = std::to_string(where.index + 1);
    labels["spark-exec-id"] = id;
    labels["spark-exec-resourceprofile-id"] = "0";
    const Json& executor = ObjAt(SpecOf(job), "executor");
    std::string port = SparkConf(job, "spark.driver.port");
    if (port.empty()) port = std::to_string(kSparkDriverPort);
    env.emplace_back("SPARK_DRIVER_URL",
                     "spark://CoarseGrainedScheduler@" + where.address + ":" + port);
    env.emplace_back("SPARK_EXECUTOR_CORES", std::to_string(IntAt(executor, "cores", 1)));
    if (auto mib = spark::JavaMemoryMiB(StrAt(executor, "memory"))) {
      env.emplace_back("SPARK_EXECUTOR_MEMORY", std::to_string(*mib) + "m");
    }
    env.emplace_back("SPARK_EXECUTOR_ID", id);
    env.emplace_back("SPARK_RESOURCE_PROFILE_ID", "0");
    env.emplace_back("SPARK_EXECUTOR_POD_IP", where.address);
    env.emplace_back("SPARK_EXECUTOR_POD_NAME", MetaStr(pod, "name"));
  }
  // On the Spark container only, as Spark sets them.
  Json* c = spark::SparkContainer(pod["spec"], role);
  if (c == nullptr) return;
  Json& list = (*c)["env"];
  if (!list.is_array()) list = Json::array();
  for (const auto& [k, v] : env) list.push_back({{"name", k}, {"value", v}});
}

Json SparkApplicationKind::NextStatus(const Json& job, const GroupObservation& seen) const {
  const Json& old = ObjAt(job, "status");
  Json st = old;
  const std::string state = SparkState(job);
  auto set_state = [&st](const std::string& s, const std::string& error) {
    st["applicationState"] = {{"state", s}};
    if (!error.empty()) st["applicationState"]["errorMessage"] = error;
  };
  if (seen.restarts > 0) st["restarts"] = seen.restarts;
  if (SparkTerminal(state)) return st;
  if (seen.suspended) {
    // The operator deletes the pods and keeps the application SUSPENDED.
    set_state("SUSPENDED", "");
    st.erase("executorState");
    return st;
  }
  if (SparkAwaitsSubmission(state)) {
    // A new submission (the first, a resume or a rerun).
    const int64_t n = Submission(job);
    st["submissionID"] = SparkSubmissionId(job, n);
    st["sparkApplicationId"] = ApplicationId(job, n);
    st["lastSubmissionAttemptTime"] = seen.now;
    st["submissionAttempts"] = n;
    st["executionAttempts"] = IntAt(old, "executionAttempts", 0) + 1;
    st["driverInfo"] = {{"podName", DriverPodName(job)}};
    st.erase("terminationTime");
    st.erase("executorState");
    set_state("SUBMITTED", "");
  }
  Json executors = ObjAt(st, "executorState");
  std::string driver_phase;
  std::string driver_failure;
  for (const ObservedPod& p : seen.pods) {
    if (p.set == 0) {
      driver_phase = p.phase;
      driver_failure = p.failure;
      continue;
    }
    executors[p.name] = p.phase == "Running"     ? "RUNNING"
                        : p.phase == "Succeeded" ? "COMPLETED"
                        : p.phase == "Failed"    ? "FAILED"
                                                 : "PENDING";
  }
  if (seen.outcome != GroupObservation::Outcome::kRunning || seen.restarting) {
    // Executors no longer there ended with the application.
    const bool ok = seen.outcome == GroupObservation::Outcome::kSucceeded;
    std::set<std::string> present;
    for (const ObservedPod& p : seen.pods) present.insert(p.name);
    for (auto& [pod, s] : executors.items()) {
      if (!present.count(pod) && s != "FAILED" && s != "COMPLETED") s = ok ? "COMPLETED" : "FAILED";
    }
  }
  if (!executors.empty()) st["executorState"] = executors;
  if (seen.restarting) {
    set_state("PENDING_RERUN", "");
  } else if (seen.outcome == GroupObservation::Outcome::kSucceeded) {
    set_state("COMPLETED", "");
    st["terminationTime"] = seen.now;
  } else if (seen.outcome == GroupObservation::Outcome::kFailed) {
    std::string why = driver_failure.empty() ? seen.message : "driver " + driver_failure;
    set_state("FAILED", why);
    st["terminationTime"] = seen.now;
  } else if (driver_phase == "Running") {
    set_state("RUNNING", "");
  }
  return st == old ? old : st;
}

int64_t SparkApplicationKind::MaxRestarts(const Json& job) const {
  // The application's reruns its restart policy allows, and Spark's
  // spark.executor.maxNumFailures default: max(2 x executors, 3).
  const Json& spec = SpecOf(job);
  const Json& rp = ObjAt(spec, "restartPolicy");
  if (StrAt(rp, "type") == "Always") return std::numeric_limits<int64_t>::max();
  const int64_t reruns = StrAt(rp, "type") == "OnFailure" ? IntAt(rp, "onFailureRetries", 0) : 0;
  return reruns + std::max<int64_t>(3, 2 * IntAt(ObjAt(spec, "executor"), "instances", 0));
}

GroupAction SparkApplicationKind::OnPodEvent(const Json& job, const PodSetDef& set,
                                             PodEvent event) const {
  if (set.name != spark::kDriverRole) {
    // Spark asks for a new executor in place of one lost.
    return event == PodEvent::kSucceeded ? GroupAction::kNone : GroupAction::kRestartPod;
  }
  const Json& rp = ObjAt(SpecOf(job), "restartPolicy");
  const std::string policy = StrAt(rp, "type");
  if (event == PodEvent::kSucceeded) {
    return policy == "Always" ? GroupAction::kRestartJob : GroupAction::kCompleteJob;
  }
  if (policy == "Always") return GroupAction::kRestartJob;
  if (policy == "OnFailure" &&
      IntAt(ObjAt(job, "status"), "executionAttempts", 0) <= IntAt(rp, "onFailureRetries", 0)) {
    return GroupAction::kRestartJob;
  }
  return GroupAction::kFailJob;
}

bool SparkApplicationKind::Succeeded(const Json& /*job*/, const std::vector<PodSetDef>& /*sets*/,
                                     const GroupObservation& /*seen*/) const {
  // Only the driver's end decides (OnPodEvent).
  return false;
}

}  // namespace kuota::jobs
