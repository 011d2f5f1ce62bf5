#include "standalone/pod_command.h"

#include <map>

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

}  // namespace

std::string ProgramFromImage(const std::string& image) {
  std::string s = image;
  if (size_t at = s.find('@'); at != std::string::npos) s.resize(at);
  if (size_t slash = s.rfind('/'); slash != std::string::npos) s = s.substr(slash + 1);
  if (size_t colon = s.find(':'); colon != std::string::npos) s.resize(colon);
  return s;
}

Result<ContainerCommand> BuildContainerCommand(const Json& pod, const Json& container,
                                               const std::vector<runtime::EnvVar>& extra_env) {
  const std::string name = Str(container, "name");
  const std::string path = "spec.containers[" + name + "]";
  ContainerCommand out;
  std::map<std::string, std::string> vars;
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
        } else {
          out.warnings.push_back(ep + ".valueFrom: only fieldRef is supported locally; " + var +
                                 " set to \"\"");
        }
      } else {
        value = Expand(Str(e, "value"), vars);
      }
      vars[var] = value;
      out.env.push_back({var, value});
    }
  }
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
  for (auto& c : command) out.argv.push_back(Expand(c, vars));
  for (auto& a : args) out.argv.push_back(Expand(a, vars));
  out.working_dir = Str(container, "workingDir");
  return out;
}

}  // namespace kuota::standalone
