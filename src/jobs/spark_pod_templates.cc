#include "jobs/spark_pod_templates.h"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

#include "api/quantity.h"
#include "jobs/job_fields.h"

namespace kuota::jobs::spark {
namespace {

// Kube's message for a quantity that does not parse.
constexpr const char* kSparkQuantityMessage =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

std::string SparkLower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// Java's size suffixes and the Kubernetes binary unit of each, longest first.
const std::vector<std::pair<std::string, std::string>>& SparkUnits() {
  static const std::vector<std::pair<std::string, std::string>> kUnits = {
      {"kb", "Ki"}, {"mb", "Mi"}, {"gb", "Gi"}, {"tb", "Ti"}, {"pb", "Pi"},
      {"k", "Ki"},  {"m", "Mi"},  {"g", "Gi"},  {"t", "Ti"},  {"p", "Pi"}};
  return kUnits;
}

bool SparkEndsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const Json& SparkRoleSpec(const Json& app, const std::string& role) {
  return ObjAt(SpecOf(app), role.c_str());
}

// The quantity at r[key] (a string) as `convert` makes it, checked.
Result<std::string> SparkQuantity(const Json& r, const char* key, const std::string& path,
                                  bool memory) {
  auto it = r.find(key);
  if (it == r.end() || it->is_null()) return std::string();
  if (!it->is_string()) return InvalidValue(path + "." + key, *it, "must be a string");
  const std::string text = memory ? K8sMemory(it->get<std::string>()) : it->get<std::string>();
  if (!api::Quantity::Parse(text).ok()) {
    return InvalidValue(path + "." + key, *it, kSparkQuantityMessage);
  }
  return text;
}

// The Spark container's resources as Kueue computes them: coreRequest,
// coreLimit, memory and memoryLimit (Java units converted), the GPU limit.
Result<Json> SparkResources(const Json& r, const std::string& path) {
  Json res = Json::object();
  KUOTA_ASSIGN_OR_RETURN(std::string cpu, SparkQuantity(r, "coreRequest", path, false));
  KUOTA_ASSIGN_OR_RETURN(std::string cpu_limit, SparkQuantity(r, "coreLimit", path, false));
  KUOTA_ASSIGN_OR_RETURN(std::string mem, SparkQuantity(r, "memory", path, true));
  KUOTA_ASSIGN_OR_RETURN(std::string mem_limit, SparkQuantity(r, "memoryLimit", path, true));
  if (!cpu.empty()) res["requests"]["cpu"] = cpu;
  if (!mem.empty()) res["requests"]["memory"] = mem;
  if (!cpu_limit.empty()) res["limits"]["cpu"] = cpu_limit;
  if (!mem_limit.empty()) res["limits"]["memory"] = mem_limit;
  const Json& gpu = ObjAt(r, "gpu");
  if (!StrAt(gpu, "name").empty() && IntAt(gpu, "quantity", 0) > 0) {
    res["limits"][StrAt(gpu, "name")] = std::to_string(IntAt(gpu, "quantity", 0));
  }
  return res;
}

// The volumes of spec.volumes the role mounts (not Spark's local dirs), each
// once, and its mounts on `container`, as the operator's pod webhook adds them.
void SparkAddVolumes(const Json& app, const Json& r, Json& pod_spec, Json& container) {
  const Json& volumes = ArrAt(SpecOf(app), "volumes");
  std::vector<std::string> added;
  for (const Json& m : ArrAt(r, "volumeMounts")) {
    const std::string name = StrAt(m, "name");
    if (name.rfind("spark-local-dir-", 0) == 0) continue;
    for (const Json& v : volumes) {
      if (StrAt(v, "name") != name) continue;
      if (!Contains(added, name)) {
        pod_spec["volumes"].push_back(v);
        added.push_back(name);
      }
      container["volumeMounts"].push_back(m);
      break;
    }
  }
}

// Appends the role's containers at r[key] to pod_spec[list], but those
// already there (same name and image).
void SparkAddContainers(const Json& r, const char* key, Json& pod_spec, const char* list) {
  for (const Json& c : ArrAt(r, key)) {
    if (!c.is_object()) continue;
    bool have = false;
    for (const Json& old : ArrAt(pod_spec, list)) {
      have = have ||
             (StrAt(old, "name") == StrAt(c, "name") && StrAt(old, "image") == StrAt(c, "image"));
    }
    if (!have) pod_spec[list].push_back(c);
  }
}

// Copies the string map r[key] into out (overriding).
void SparkMergeMap(const Json& r, const char* key, Json& out) {
  for (const auto& [k, v] : ObjAt(r, key).items()) {
    if (v.is_string()) out[k] = v;
  }
}

// A path a local:// URI names on this machine ("local:///opt/a.jar" -> "/opt/a.jar").
std::string SparkLocalPath(const std::string& uri) {
  const std::string scheme = "local://";
  return uri.rfind(scheme, 0) == 0 ? uri.substr(scheme.size()) : uri;
}

// spark-submit's arguments for running the application here, in local mode:
// what the operator's submission passes, with the master local[N] (N: the
// executors' cores) and the driver in this process (client mode).
std::vector<std::string> SparkSubmitArgs(const Json& app) {
  const Json& spec = SpecOf(app);
  const Json& executor = ObjAt(spec, "executor");
  const int64_t slots = IntAt(executor, "instances", 0) * IntAt(executor, "cores", 1);
  std::vector<std::string> args = {
      "--master",      slots > 0 ? "local[" + std::to_string(slots) + "]" : "local[*]",
      "--deploy-mode", "client",
      "--name",        JobName(app)};
  if (!StrAt(spec, "mainClass").empty()) {
    args.insert(args.end(), {"--class", StrAt(spec, "mainClass")});
  }
  const Json& deps = ObjAt(spec, "deps");
  for (const auto& [key, flag] :
       std::vector<std::pair<const char*, const char*>>{{"jars", "--jars"},
                                                        {"packages", "--packages"},
                                                        {"excludePackages", "--exclude-packages"},
                                                        {"repositories", "--repositories"},
                                                        {"pyFiles", "--py-files"},
                                                        {"files", "--files"},
                                                        {"archives", "--archives"}}) {
    std::string joined;
    for (const Json& d : ArrAt(deps, key)) {
      if (!d.is_string()) continue;
      joined += (joined.empty() ? "" : ",") + SparkLocalPath(d.get<std::string>());
    }
    if (!joined.empty()) args.insert(args.end(), {flag, joined});
  }
  const std::string driver_memory = StrAt(ObjAt(spec, "driver"), "memory");
  if (!driver_memory.empty()) args.insert(args.end(), {"--driver-memory", driver_memory});
  for (const auto& [k, v] : ObjAt(spec, "sparkConf").items()) {
    if (v.is_string()) args.insert(args.end(), {"--conf", k + "=" + v.get<std::string>()});
  }
  for (const auto& [k, v] : ObjAt(spec, "hadoopConf").items()) {
    if (v.is_string()) {
      args.insert(args.end(), {"--conf", "spark.hadoop." + k + "=" + v.get<std::string>()});
    }
  }
  if (!StrAt(spec, "proxyUser").empty()) {
    args.insert(args.end(), {"--proxy-user", StrAt(spec, "proxyUser")});
  }
  args.push_back(SparkLocalPath(StrAt(spec, "mainApplicationFile")));
  for (const Json& a : ArrAt(spec, "arguments")) {
    if (a.is_string()) args.push_back(a.get<std::string>());
  }
  return args;
}

}  // namespace

std::string K8sMemory(const std::string& java) {
  const std::string lower = SparkLower(java);
  for (const auto& [unit, k8s] : SparkUnits()) {
    if (SparkEndsWith(lower, unit)) return java.substr(0, java.size() - unit.size()) + k8s;
  }
  return java;
}

std::optional<int64_t> JavaMemoryMiB(const std::string& java) {
  const std::string lower = SparkLower(java);
  size_t digits = 0;
  while (digits < lower.size() && std::isdigit(static_cast<unsigned char>(lower[digits]))) {
    ++digits;
  }
  if (digits == 0 || digits > 15) return std::nullopt;
  const int64_t n = std::stoll(lower.substr(0, digits));
  const std::string unit = lower.substr(digits);
  // Spark reads spark.executor.memory without a unit as MiB.
  if (unit.empty() || unit == "m" || unit == "mb") return n;
  if (unit == "b") return n / (1024 * 1024);
  if (unit == "k" || unit == "kb") return n / 1024;
  if (unit == "g" || unit == "gb") return n * 1024;
  if (unit == "t" || unit == "tb") return n * 1024 * 1024;
  if (unit == "p" || unit == "pb") return n * 1024 * 1024 * 1024;
  return std::nullopt;
}

Json* SparkContainer(Json& pod_spec, const std::string& role) {
  if (!pod_spec.is_object()) return nullptr;
  auto cs = pod_spec.find("containers");
  if (cs == pod_spec.end() || !cs->is_array() || cs->empty()) return nullptr;
  for (Json& c : *cs) {
    const std::string name = StrAt(c, "name");
    if (role == kDriverRole ? name == kDriverContainer
                            : (name == kExecutorContainer || name == "executor")) {
      return &c;
    }
  }
  return (*cs)[0].is_object() ? &(*cs)[0] : nullptr;
}

Result<Json> KueuePodSetTemplate(const Json& app, const std::string& role) {
  const Json& r = SparkRoleSpec(app, role);
  const std::string path = "spec." + role;
  Json pod_spec = Json::object();
  Json container = {{"name", role == kDriverRole ? kDriverContainer : kExecutorContainer}};
  SparkAddVolumes(app, r, pod_spec, container);
  KUOTA_ASSIGN_OR_RETURN(Json resources, SparkResources(r, path));
  if (!resources.empty()) container["resources"] = std::move(resources);
  pod_spec["containers"] = Json::array({std::move(container)});
  SparkAddContainers(r, "initContainers", pod_spec, "initContainers");
  SparkAddContainers(r, "sidecars", pod_spec, "containers");
  if (!StrAt(r, "priorityClassName").empty()) {
    pod_spec["priorityClassName"] = StrAt(r, "priorityClassName");
  }
  if (!ObjAt(r, "nodeSelector").empty()) pod_spec["nodeSelector"] = ObjAt(r, "nodeSelector");
  if (!ObjAt(r, "affinity").empty()) pod_spec["affinity"] = ObjAt(r, "affinity");
  if (!ArrAt(r, "tolerations").empty()) pod_spec["tolerations"] = ArrAt(r, "tolerations");
  // The template's metadata with the role's labels and annotations on top.
  const Json& tmeta = ObjAt(ObjAt(r, "template"), "metadata");
  Json meta = Json::object();
  for (const char* f : {"labels", "annotations"}) {
    Json m = ObjAt(tmeta, f);
    SparkMergeMap(r, f, m);
    if (!m.empty()) meta[f] = std::move(m);
  }
  Json out = Json::object();
  if (!meta.empty()) out["metadata"] = std::move(meta);
  out["spec"] = std::move(pod_spec);
  return out;
}

Json LocalPodTemplate(const Json& app, const std::string& role) {
  const Json& spec = SpecOf(app);
  const Json& r = SparkRoleSpec(app, role);
  const Json& tmpl = ObjAt(r, "template");
  // Labels: the template's, the application's (but Kueue's, which the
  // operator does not pass on) and the role's; annotations likewise.
  Json labels = ObjAt(ObjAt(tmpl, "metadata"), "labels");
  for (const auto& [k, v] : ObjAt(ObjAt(app, "metadata"), "labels").items()) {
    if (v.is_string() && k.rfind("kueue.x-k8s.io/", 0) != 0) labels[k] = v;
  }
  SparkMergeMap(r, "labels", labels);
  Json annotations = ObjAt(ObjAt(tmpl, "metadata"), "annotations");
  SparkMergeMap(r, "annotations", annotations);

  Json pod_spec = ObjAt(tmpl, "spec");
  if (SparkContainer(pod_spec, role) == nullptr) {
    pod_spec["containers"] =
        Json::array({{{"name", role == kDriverRole ? kDriverContainer : kExecutorContainer}}});
  }
  Json container = *SparkContainer(pod_spec, role);
  const std::string image = !StrAt(r, "image").empty() ? StrAt(r, "image") : StrAt(spec, "image");
  if (!image.empty()) container["image"] = image;
  auto resources = SparkResources(r, "spec." + role);
  if (resources.ok()) {
    for (const char* kind : {"requests", "limits"}) {
      for (const auto& [k, v] : ObjAt(*resources, kind).items())
        container["resources"][kind][k] = v;
    }
  }
  // The environment: the container's, the role's env and envVars, and what
  // sparkConf sets for this role.
  Json env = ArrAt(container, "env");
  for (const Json& e : ArrAt(r, "env")) env.push_back(e);
  for (const auto& [k, v] : ObjAt(r, "envVars").items()) {
    if (v.is_string()) env.push_back({{"name", k}, {"value", v}});
  }
  const std::string conf_prefix =
      role == kDriverRole ? "spark.kubernetes.driverEnv." : "spark.executorEnv.";
  for (const auto& [k, v] : ObjAt(spec, "sparkConf").items()) {
    if (v.is_string() && k.rfind(conf_prefix, 0) == 0 && k.size() > conf_prefix.size()) {
      env.push_back({{"name", k.substr(conf_prefix.size())}, {"value", v}});
    }
  }
  if (!env.empty()) container["env"] = std::move(env);
  // What runs: the container's own command, else here what the image would
  // run: spark-submit for the driver; an executor holds its slot until the
  // driver ends (local mode runs the tasks in the driver).
  if (ArrAt(container, "command").empty()) {
    container.erase("args");
    if (role == kDriverRole) {
      container["command"] = Json::array({"spark-submit"});
      container["args"] = SparkSubmitArgs(app);
    } else {
      container["command"] = Json::array({"sleep", "infinity"});
    }
  }
  SparkAddVolumes(app, r, pod_spec, container);
  *SparkContainer(pod_spec, role) = std::move(container);
  SparkAddContainers(r, "initContainers", pod_spec, "initContainers");
  SparkAddContainers(r, "sidecars", pod_spec, "containers");
  if (!StrAt(r, "priorityClassName").empty()) {
    pod_spec["priorityClassName"] = StrAt(r, "priorityClassName");
  }
  if (!ObjAt(r, "affinity").empty()) pod_spec["affinity"] = ObjAt(r, "affinity");
  // Placement: spec.nodeSelector and the role's (where admission puts the
  // flavor's), and the role's tolerations.
  Json selector = ObjAt(pod_spec, "nodeSelector");
  SparkMergeMap(spec, "nodeSelector", selector);
  SparkMergeMap(r, "nodeSelector", selector);
  if (!selector.empty()) pod_spec["nodeSelector"] = std::move(selector);
  for (const Json& t : ArrAt(r, "tolerations")) pod_spec["tolerations"].push_back(t);
  if (!StrAt(r, "serviceAccount").empty())
    pod_spec["serviceAccountName"] = StrAt(r, "serviceAccount");
  if (r.contains("terminationGracePeriodSeconds") &&
      r["terminationGracePeriodSeconds"].is_number_integer()) {
    pod_spec["terminationGracePeriodSeconds"] = r["terminationGracePeriodSeconds"];
  }
  // Spark's pods are never restarted in place.
  pod_spec["restartPolicy"] = "Never";
  Json meta = Json::object();
  if (!labels.empty()) meta["labels"] = std::move(labels);
  if (!annotations.empty()) meta["annotations"] = std::move(annotations);
  return {{"metadata", std::move(meta)}, {"spec", std::move(pod_spec)}};
}

}  // namespace kuota::jobs::spark
