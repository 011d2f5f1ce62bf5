#include "standalone/pod_command.h"

#include <map>
#include <optional>

namespace kuota::standalone {
namespace {

using Json = nlohmann::json;

// Kubelet's $(VAR) expansion: $(NAME) -> value when NAME is defined, "$$" ->
// "$", anything else is kept as written.
std::string Expand(const std::string& in, const std::map<std::string, std::string>& vars) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '$' || i + 1 >= in.size()) {
      out += in[i];
      continue;
    }
    if (in[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    if (in[i + 1] == '(') {
      size_t close = in.find(')', i + 2);
      if (close != std::string::npos) {
        auto it = vars.find(in.substr(i + 2, close - i - 2));
        if (it != vars.end()) {
          out += it->second;
          i = close;
          continue;
        }
      }
    }
    out += in[i];
  }
  return out;
}

const Json* Field(const Json& obj, const char* name) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(name);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::string Str(const Json& obj, const char* a, const char* b = nullptr) {
  const Json* f = Field(obj, a);
  if (f && b) f = Field(*f, b);
  return f && f->is_string() ? f->get<std::string>() : "";
}

Result<std::vector<std::string>> StringList(const Json& container, const char* field,
                                            const std::string& path) {
  std::vector<std::string> out;
  const Json* f = Field(container, field);
  if (f == nullptr) return out;
  if (!f->is_array()) return Status::Invalid(path + "." + field + ": must be a list of strings");
  for (size_t i = 0; i < f->size(); ++i) {
    if (!(*f)[i].is_string()) {
      return Status::Invalid(path + "." + field + "[" + std::to_string(i) + "]: must be a string");
    }
    out.push_back((*f)[i].get<std::string>());
  }
  return out;
}

// The value of a fieldRef, as the downward API gives it.
std::string FieldRefValue(const Json& pod, const std::string& path, bool* known) {
  *known = true;
  if (path == "metadata.name") return Str(pod, "metadata", "name");
  if (path == "metadata.namespace") return Str(pod, "metadata", "namespace");
  if (path == "metadata.uid") return Str(pod, "metadata", "uid");
  if (path == "spec.nodeName") return Str(pod, "spec", "nodeName");
  if (path == "spec.serviceAccountName") return Str(pod, "spec", "serviceAccountName");
  if (path == "status.podIP" || path == "status.hostIP") return "127.0.0.1";
  const std::string labels = "metadata.labels['", annotations = "metadata.annotations['";
  for (const auto& [prefix, field] :
       {std::pair{labels, "labels"}, std::pair{annotations, "annotations"}}) {
    if (path.rfind(prefix, 0) == 0 && path.size() > prefix.size() + 2 &&
        path.compare(path.size() - 2, 2, "']") == 0) {
      const std::string key = path.substr(prefix.size(), path.size() - prefix.size() - 2);
      const Json* meta = Field(pod, "metadata");
      const Json* m = meta ? Field(*meta, field) : nullptr;
      const Json* v = m ? Field(*m, key.c_str()) : nullptr;
      return v && v->is_string() ? v->get<std::string>() : "";
    }
  }
  *known = false;
  return "";
}

// `optional: true` on a configMapKeyRef, secretKeyRef, configMapRef or secretRef.
bool IsOptional(const Json& ref) {
  const Json* f = Field(ref, "optional");
  return f != nullptr && f->is_boolean() && f->get<bool>();
}

// An environment variable's value cannot hold a NUL byte (a Secret's may).
Status CheckEnvValue(const std::string& value, const std::string& where) {
  if (value.find('\0') == std::string::npos) return Status::Ok();
  return Status::Invalid(where +
                         ": the value holds a NUL byte, which an environment variable "
                         "cannot");
}

// The object a configMapRef / configMapKeyRef (or, with `secret`, a secretRef
// / secretKeyRef) names; nullptr when absent from `config`.
const Json* RefObject(const Json& ref, bool secret, const PodConfigObjects* config) {
  if (config == nullptr) return nullptr;
  const std::string name = Str(ref, "name");
  return secret ? config->FindSecret(name) : config->FindConfigMap(name);
}

// NotFound with the kubelet's words for the object `ref` names.
Status RefNotFound(const Json& ref, bool secret) {
  return Status::NotFound(ConfigNotFoundMessage(secret ? "secret" : "configmap", Str(ref, "name")));
}

using EnvValues = std::map<std::string, std::string>;

// Every key and value of the ConfigMap or Secret an envFrom source names;
// nullopt when it is absent and optional.
Result<std::optional<EnvValues>> EnvFromValues(const Json& ref, bool secret,
                                               const PodConfigObjects* config) {
  const Json* object = RefObject(ref, secret, config);
  if (object == nullptr) {
    if (IsOptional(ref)) return std::optional<EnvValues>();
    return RefNotFound(ref, secret);
  }
  return std::optional(secret ? SecretValues(*object) : ConfigMapValues(*object, /*binary=*/false));
}

// The value a configMapKeyRef or secretKeyRef names; nullopt when it (its
// object or its key) is absent and optional.
Result<std::optional<std::string>> KeyRefValue(const Json& ref, bool secret,
                                               const PodConfigObjects* config,
                                               const std::string& ns) {
  const Json* object = RefObject(ref, secret, config);
  if (object == nullptr) {
    if (IsOptional(ref)) return std::optional<std::string>();
    return RefNotFound(ref, secret);
  }
  const std::string key = Str(ref, "key");
  std::optional<std::string> v =
      secret ? SecretValue(*object, key) : ConfigMapValue(*object, key, /*binary=*/false);
  if (!v && !IsOptional(ref)) {
    return Status::NotFound("couldn't find key " + key + " in " +
                            (secret ? "Secret " : "ConfigMap ") + ns + "/" + Str(ref, "name"));
  }
  return v;
}

}  // namespace

std::string ProgramFromImage(const std::string& image) {
  std::string s = image;
  if (size_t at = s.find('@'); at != std::string::npos) s.resize(at);
  if (size_t slash = s.rfind('/'); slash != std::string::npos) s = s.substr(slash + 1);
  if (size_t colon = s.find(':'); colon != std::string::npos) s.resize(colon);
  return s;
}

Result<ContainerCommand> BuildContainerCommand(const Json& pod, const Json& container,
                                               const std::vector<runtime::EnvVar>& extra_env,
                                               const ContainerInputs& inputs) {
  const std::string name = Str(container, "name");
  const std::string path = "spec.containers[" + name + "]";
  const std::string ns = Str(pod, "metadata", "namespace");
  ContainerCommand out;
  std::map<std::string, std::string> vars;
  // envFrom first: env entries override what it sets, as in the kubelet.
  if (const Json* env_from = Field(container, "envFrom")) {
    if (!env_from->is_array()) return Status::Invalid(path + ".envFrom: must be a list");
    for (size_t i = 0; i < env_from->size(); ++i) {
      const Json& e = (*env_from)[i];
      const std::string ep = path + ".envFrom[" + std::to_string(i) + "]";
      const std::string prefix = Str(e, "prefix");
      const Json* cm_ref = Field(e, "configMapRef");
      const Json* secret_ref = cm_ref == nullptr ? Field(e, "secretRef") : nullptr;
      if (cm_ref == nullptr && secret_ref == nullptr) {
        out.warnings.push_back(ep + ": names neither a configMapRef nor a secretRef; ignored");
        continue;
      }
      KUOTA_ASSIGN_OR_RETURN(
          std::optional<EnvValues> values,
          EnvFromValues(cm_ref ? *cm_ref : *secret_ref, cm_ref == nullptr, inputs.config));
      if (!values) continue;
      for (const auto& [key, value] : *values) {
        const std::string var = prefix + key;
        if (var.empty() || var.find('=') != std::string::npos) {
          out.warnings.push_back(ep + ": " + Json(var).dump() +
                                 " is not an environment variable name; skipped");
          continue;
        }
        KUOTA_RETURN_IF_ERROR(CheckEnvValue(value, ep + ": " + var));
        vars[var] = value;
        out.env.push_back({var, value});
      }
    }
  }
  if (const Json* env = Field(container, "env")) {
    if (!env->is_array()) return Status::Invalid(path + ".env: must be a list");
    for (size_t i = 0; i < env->size(); ++i) {
      const Json& e = (*env)[i];
      const std::string ep = path + ".env[" + std::to_string(i) + "]";
      const std::string var = Str(e, "name");
      if (var.empty() || var.find('=') != std::string::npos) {
        return Status::Invalid(ep + ".name: must be a non-empty name without '='");
      }
      std::string value;
      if (const Json* vf = Field(e, "valueFrom")) {
        if (const Json* fr = Field(*vf, "fieldRef")) {
          bool known = false;
          value = FieldRefValue(pod, Str(*fr, "fieldPath"), &known);
          if (!known) {
            out.warnings.push_back(ep + ".valueFrom.fieldRef: \"" + Str(*fr, "fieldPath") +
                                   "\" is not supported locally; set to \"\"");
          }
        } else if (const Json* ref = Field(*vf, "configMapKeyRef")) {
          KUOTA_ASSIGN_OR_RETURN(std::optional<std::string> v,
                                 KeyRefValue(*ref, /*secret=*/false, inputs.config, ns));
          if (!v) continue;
          value = std::move(*v);
        } else if (const Json* ref = Field(*vf, "secretKeyRef")) {
          KUOTA_ASSIGN_OR_RETURN(std::optional<std::string> v,
                                 KeyRefValue(*ref, /*secret=*/true, inputs.config, ns));
          if (!v) continue;
          value = std::move(*v);
        } else {
          out.warnings.push_back(ep +
                                 ".valueFrom: only fieldRef, configMapKeyRef and "
                                 "secretKeyRef are supported locally; " +
                                 var + " set to \"\"");
        }
      } else {
        value = Expand(Str(e, "value"), vars);
      }
      KUOTA_RETURN_IF_ERROR(CheckEnvValue(value, ep));
      vars[var] = value;
      out.env.push_back({var, value});
    }
  }
  // Paths into volumes, once each value is final (a value is never rewritten twice).
  for (auto& e : out.env) e.value = RewriteMountPaths(e.value, inputs.mounts);
  for (const auto& e : extra_env) {
    vars[e.name] = e.value;
    out.env.push_back(e);
  }
  KUOTA_ASSIGN_OR_RETURN(std::vector<std::string> command, StringList(container, "command", path));
  KUOTA_ASSIGN_OR_RETURN(std::vector<std::string> args, StringList(container, "args", path));
  if (command.empty()) {
    const std::string program = ProgramFromImage(Str(container, "image"));
    if (program.empty()) {
      return Status::Invalid(path + ": no command and no image to name a program");
    }
    command.push_back(program);
  }
  for (auto& c : command) out.argv.push_back(RewriteMountPaths(Expand(c, vars), inputs.mounts));
  for (auto& a : args) out.argv.push_back(RewriteMountPaths(Expand(a, vars), inputs.mounts));
  out.working_dir = RewriteMountPaths(Str(container, "workingDir"), inputs.mounts);
  return out;
}

}  // namespace kuota::standalone
