#include "server/openapi.h"

#include <cstdint>
#include <cstdio>
#include <vector>

#include "server/discovery.h"
#include "server/resource_info.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

// "io.x-k8s.kueue.v1beta1.ClusterQueue", "io.k8s.api.batch.v1.Job",
// "io.k8s.api.core.v1.Pod": the definition names kube uses.
std::string DefinitionName(const ResourceInfo& r, const std::string& kind) {
  std::string prefix;
  if (r.group.empty()) {
    prefix = "io.k8s.api.core";
  } else if (r.group.size() > 8 && r.group.compare(r.group.size() - 8, 8, ".k8s.io") == 0) {
    prefix = "io.k8s.api." + r.group.substr(0, r.group.size() - 8);
  } else if (r.group.find('.') == std::string::npos) {
    prefix = "io.k8s.api." + r.group;
  } else {
    // Reverse the DNS labels: kueue.x-k8s.io -> io.x-k8s.kueue.
    std::vector<std::string> labels;
    size_t pos = 0;
    while (true) {
      size_t dot = r.group.find('.', pos);
      labels.push_back(r.group.substr(pos, dot == std::string::npos ? dot : dot - pos));
      if (dot == std::string::npos) break;
      pos = dot + 1;
    }
    for (auto it = labels.rbegin(); it != labels.rend(); ++it) {
      if (!prefix.empty()) prefix += ".";
      prefix += *it;
    }
  }
  return prefix + "." + r.version + "." + kind;
}

Json Gvk(const ResourceInfo& r, const std::string& kind) {
  return {{"group", r.group}, {"version", r.version}, {"kind", kind}};
}

Json PreservedObject(const std::string& description) {
  return {{"type", "object"},
          {"description", description},
          {"x-kubernetes-preserve-unknown-fields", true}};
}

Json KindSchema(const ResourceInfo& r) {
  Json props = {
      {"apiVersion", {{"type", "string"}, {"description", "APIVersion of the object."}}},
      {"kind", {{"type", "string"}, {"description", "Kind of the object."}}},
      {"metadata", PreservedObject("Standard object's metadata.")},
  };
  if (r.plural != "events" && r.plural != "priorityclasses" &&
      r.plural != "workloadpriorityclasses") {
    props["spec"] = PreservedObject("The desired state of the " + r.kind + ".");
  }
  if (r.has_status) props["status"] = PreservedObject("The observed state of the " + r.kind + ".");
  return {{"type", "object"},
          {"description", r.kind + " (" + r.ApiVersion() + ") as served by Kuota."},
          {"properties", props},
          {"x-kubernetes-preserve-unknown-fields", true},
          {"x-kubernetes-group-version-kind", Json::array({Gvk(r, r.kind)})}};
}

Json ListSchema(const ResourceInfo& r, const std::string& ref_prefix) {
  return {{"type", "object"},
          {"description", r.kind + "List is a list of " + r.kind + "."},
          {"required", Json::array({"items"})},
          {"properties",
           {{"apiVersion", {{"type", "string"}}},
            {"kind", {{"type", "string"}}},
            {"metadata", PreservedObject("Standard list metadata.")},
            {"items",
             {{"type", "array"}, {"items", {{"$ref", ref_prefix + DefinitionName(r, r.kind)}}}}}}},
          {"x-kubernetes-group-version-kind", Json::array({Gvk(r, r.kind + "List")})}};
}

// --- OpenAPI v3 ---

Json QueryParam3(const std::string& name, const std::string& type) {
  return {{"name", name}, {"in", "query"}, {"schema", {{"type", type}, {"uniqueItems", true}}}};
}

Json PathParam3(const std::string& name) {
  return {{"name", name},
          {"in", "path"},
          {"required", true},
          {"schema", {{"type", "string"}, {"uniqueItems", true}}}};
}

constexpr const char* kScaleSchema = "io.k8s.api.autoscaling.v1.Scale";

Json JsonContent3(const std::string& ref) {
  return {{"application/json", {{"schema", {{"$ref", ref}}}}}};
}

Json Operation3(const ResourceInfo& r, const std::string& action, const std::string& op_id,
                const std::string& response_kind, Json params) {
  std::string ref = "#/components/schemas/" + DefinitionName(r, response_kind);
  return {
      {"operationId", op_id},
      {"description", action + " " + r.kind},
      {"tags", Json::array({r.group.empty() ? "core_" + r.version : r.group + "_" + r.version})},
      {"parameters", std::move(params)},
      {"responses", {{"200", {{"description", "OK"}, {"content", JsonContent3(ref)}}}}},
      {"x-kubernetes-action", action},
      {"x-kubernetes-group-version-kind", Gvk(r, r.kind)}};
}

Json WriteParams3(bool patch) {
  Json params = Json::array({QueryParam3("dryRun", "string"), QueryParam3("fieldManager", "string"),
                             QueryParam3("fieldValidation", "string")});
  if (patch) params.push_back(QueryParam3("force", "boolean"));
  return params;
}

Json ListParams3() {
  return Json::array({QueryParam3("allowWatchBookmarks", "boolean"),
                      QueryParam3("continue", "string"), QueryParam3("fieldSelector", "string"),
                      QueryParam3("labelSelector", "string"), QueryParam3("limit", "integer"),
                      QueryParam3("resourceVersion", "string"),
                      QueryParam3("timeoutSeconds", "integer"), QueryParam3("watch", "boolean")});
}

bool IsBuiltin(const ResourceInfo& r) { return r.group.find("kueue") == std::string::npos; }

Json PatchBody3() {
  Json schema = {{"$ref", "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}};
  // Strategic merge patch is served for built-in kinds too, but it is left out
  // here on purpose: kubectl then computes apply patches from its compiled-in
  // types (which know the merge keys) instead of these permissive schemas.
  return {{"content",
           {{"application/json-patch+json", {{"schema", schema}}},
            {"application/merge-patch+json", {{"schema", schema}}},
            {"application/apply-patch+yaml", {{"schema", schema}}}}},
          {"required", true}};
}

Json ObjectBody3(const ResourceInfo& r) {
  return {{"content", JsonContent3("#/components/schemas/" + DefinitionName(r, r.kind))},
          {"required", true}};
}

void AddPaths3(const ResourceInfo& r, Json& paths) {
  std::string prefix = r.group.empty() ? "/api/" + r.version : "/apis/" + r.ApiVersion();
  std::string scope = r.namespaced ? "Namespaced" : "";
  std::string collection = prefix + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.plural;
  Json scope_params = Json::array();
  if (r.namespaced) scope_params.push_back(PathParam3("namespace"));

  Json coll = {{"parameters", scope_params}};
  coll["get"] = Operation3(r, "list", "list" + scope + r.kind, r.kind + "List", ListParams3());
  coll["post"] = Operation3(r, "post", "create" + scope + r.kind, r.kind, WriteParams3(false));
  coll["post"]["requestBody"] = ObjectBody3(r);
  coll["delete"] = Operation3(r, "deletecollection", "deleteCollection" + scope + r.kind, "Status",
                              ListParams3());
  coll["delete"]["responses"]["200"]["content"] =
      JsonContent3("#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status");
  paths[collection] = coll;

  if (r.namespaced) {
    Json all = {{"parameters", Json::array()}};
    all["get"] =
        Operation3(r, "list", "list" + r.kind + "ForAllNamespaces", r.kind + "List", ListParams3());
    paths[prefix + "/" + r.plural] = all;
  }

  Json item_params = scope_params;
  item_params.push_back(PathParam3("name"));
  auto item_ops = [&](const std::string& suffix, const std::string& id_suffix) {
    Json item = {{"parameters", item_params}};
    item["get"] = Operation3(r, "get", "read" + scope + r.kind + id_suffix, r.kind, Json::array());
    item["put"] =
        Operation3(r, "put", "replace" + scope + r.kind + id_suffix, r.kind, WriteParams3(false));
    item["put"]["requestBody"] = ObjectBody3(r);
    item["patch"] =
        Operation3(r, "patch", "patch" + scope + r.kind + id_suffix, r.kind, WriteParams3(true));
    item["patch"]["requestBody"] = PatchBody3();
    if (suffix.empty()) {
      item["delete"] = Operation3(r, "delete", "delete" + scope + r.kind, r.kind,
                                  Json::array({QueryParam3("dryRun", "string"),
                                               QueryParam3("propagationPolicy", "string")}));
    }
    paths[collection + "/{name}" + suffix] = item;
  };
  item_ops("", "");
  if (r.has_status) item_ops("/status", "Status");
  if (r.scale) {
    // The scale subresource reads and writes an autoscaling/v1 Scale.
    item_ops("/scale", "Scale");
    Json& scale = paths[collection + "/{name}/scale"];
    const Json ref = JsonContent3("#/components/schemas/" + std::string(kScaleSchema));
    const Json scale_gvk = {{"group", "autoscaling"}, {"version", "v1"}, {"kind", "Scale"}};
    for (const char* verb : {"get", "put", "patch"}) {
      scale[verb]["responses"]["200"]["content"] = ref;
      scale[verb]["x-kubernetes-group-version-kind"] = scale_gvk;
    }
    scale["put"]["requestBody"] = {{"content", ref}, {"required", true}};
  }
}

// autoscaling/v1 Scale, the body of every kind's scale subresource.
Json ScaleSchema() {
  Json props = {{"apiVersion", {{"type", "string"}}},
                {"kind", {{"type", "string"}}},
                {"metadata", PreservedObject("Standard object metadata.")},
                {"spec",
                 {{"type", "object"},
                  {"description", "ScaleSpec describes the attributes of a scale subresource."},
                  {"properties",
                   {{"replicas",
                     {{"type", "integer"},
                      {"format", "int32"},
                      {"description",
                       "replicas is the desired "
                       "number of instances for "
                       "the scaled object."}}}}}}},
                {"status",
                 {{"type", "object"},
                  {"properties",
                   {{"replicas", {{"type", "integer"}, {"format", "int32"}}},
                    {"selector", {{"type", "string"}}}}}}}};
  return {{"type", "object"},
          {"description", "Scale represents a scaling request for a resource."},
          {"properties", props},
          {"x-kubernetes-group-version-kind",
           Json::array({{{"group", "autoscaling"}, {"version", "v1"}, {"kind", "Scale"}}})}};
}

Json CommonSchemas() {
  return {{"io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
           {{"type", "object"},
            {"description",
             "Patch is provided to give a concrete name and type to the "
             "Kubernetes PATCH request body."}}},
          {"io.k8s.apimachinery.pkg.apis.meta.v1.Status",
           {{"type", "object"},
            {"description", "Status is a return value for calls that don't return other objects."},
            {"x-kubernetes-preserve-unknown-fields", true},
            {"x-kubernetes-group-version-kind",
             Json::array({{{"group", ""}, {"version", "v1"}, {"kind", "Status"}}})}}}};
}

std::string Fnv1aHex(const std::string& data) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llX", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

Json OpenApiV3Document(const std::string& group, const std::string& version) {
  Json paths = Json::object();
  Json schemas = CommonSchemas();
  bool any = false;
  for (const ResourceInfo& r : ServedResources()) {
    if (r.group != group || r.version != version) continue;
    any = true;
    AddPaths3(r, paths);
    schemas[DefinitionName(r, r.kind)] = KindSchema(r);
    schemas[DefinitionName(r, r.kind + "List")] = ListSchema(r, "#/components/schemas/");
    if (r.scale) schemas[kScaleSchema] = ScaleSchema();
  }
  if (!any) return nullptr;
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "Kubernetes"}, {"version", kServerGitVersion}}},
          {"paths", paths},
          {"components", {{"schemas", schemas}}}};
}

Json OpenApiV3Index(const std::map<std::string, std::string>& documents) {
  Json paths = Json::object();
  for (const ResourceInfo& r : ServedResources()) {
    auto it = documents.find(r.group + "/" + r.version);
    if (it == documents.end()) continue;
    std::string key = r.group.empty() ? "api/" + r.version : "apis/" + r.ApiVersion();
    paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + Fnv1aHex(it->second)}};
  }
  return {{"paths", paths}};
}

Json OpenApiV2Document() {
  Json paths = Json::object();
  Json definitions = Json::object();
  for (const ResourceInfo& r : ServedResources()) {
    definitions[DefinitionName(r, r.kind)] = KindSchema(r);
    definitions[DefinitionName(r, r.kind + "List")] = ListSchema(r, "#/definitions/");
    std::string prefix = r.group.empty() ? "/api/" + r.version : "/apis/" + r.ApiVersion();
    std::string item =
        prefix + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.plural + "/{name}";
    Json consumes = Json::array({"application/json-patch+json", "application/merge-patch+json",
                                 "application/apply-patch+yaml"});
    if (IsBuiltin(r)) consumes.push_back("application/strategic-merge-patch+json");
    Json ok = {{"200",
                {{"description", "OK"},
                 {"schema", {{"$ref", "#/definitions/" + DefinitionName(r, r.kind)}}}}}};
    paths[item] = {{"get",
                    {{"operationId", "read" + r.kind},
                     {"responses", ok},
                     {"x-kubernetes-action", "get"},
                     {"x-kubernetes-group-version-kind", Gvk(r, r.kind)}}},
                   {"patch",
                    {{"operationId", "patch" + r.kind},
                     {"consumes", consumes},
                     {"parameters", Json::array({{{"name", "fieldValidation"},
                                                  {"in", "query"},
                                                  {"type", "string"},
                                                  {"uniqueItems", true}}})},
                     {"responses", ok},
                     {"x-kubernetes-action", "patch"},
                     {"x-kubernetes-group-version-kind", Gvk(r, r.kind)}}}};
  }
  return {{"swagger", "2.0"},
          {"info", {{"title", "Kubernetes"}, {"version", kServerGitVersion}}},
          {"paths", paths},
          {"definitions", definitions}};
}

}  // namespace kuota::server
