// Fingerprint: a decoded api::Object's identity and metadata as one string
// (apiVersion, kind, name, namespace, labels, annotations, finalizers), so two
// decodings of one manifest can be compared. Header-only; for the codec targets.
#pragma once

#include <string>
#include <variant>

#include "api/object.h"

namespace kuota::fuzz {

inline std::string Fingerprint(const api::Object& object) {
  std::string out = object.api_version + "/" + object.kind;
  std::visit(
      [&](const auto& v) {
        if constexpr (requires { v.metadata; }) {
          const api::ObjectMeta& m = v.metadata;
          out += " " + m.namespace_ + "/" + m.name + " gen=" + m.generate_name;
          for (const auto& [k, val] : m.labels) out += " l:" + k + "=" + val;
          for (const auto& [k, val] : m.annotations) out += " a:" + k + "=" + val;
          for (const auto& f : m.finalizers) out += " f:" + f;
        }
      },
      object.value);
  return out;
}

}  // namespace kuota::fuzz
