#!/usr/bin/env python3
"""Writes src/server/protobuf_schema_data.cc: the protobuf field numbers, JSON
names and types of the built-in kinds kuotad decodes from protobuf bodies
(server/protobuf_body), read from Kubernetes' own definitions.

Usage:
  scripts/gen_protobuf_schema.py API_DIR APIMACHINERY_DIR RELEASE \
      > src/server/protobuf_schema_data.cc
  clang-format -i src/server/protobuf_schema_data.cc

API_DIR and APIMACHINERY_DIR are checkouts of k8s.io/api and
k8s.io/apimachinery at the same release (the one kubectl's client-go is
built from; e.g. `git archive v0.32.4` of each); RELEASE names it (v0.32.4)
in the file's header. Each package's
generated.proto gives the messages and field numbers; its Go types
(types.go, ...) give each field's JSON name, whether it is inlined into its
parent (`json:",inline"`), and whether a zero value is sent in JSON (a
pointer, or a tag without omitempty) or left out (as kubectl's JSON would).
Only the messages reachable from ROOTS are written.
"""
import os
import re
import sys

# (API group, kind, proto package, message): the kinds kuotad serves that a
# client may send as protobuf. CustomResourceDefinition is left out (kubectl
# never sends one through a typed client).
ROOTS = [
    ("", "Namespace", "k8s.io.api.core.v1", "Namespace"),
    ("", "Pod", "k8s.io.api.core.v1", "Pod"),
    ("", "Event", "k8s.io.api.core.v1", "Event"),
    ("", "Node", "k8s.io.api.core.v1", "Node"),
    ("", "Secret", "k8s.io.api.core.v1", "Secret"),
    ("", "ConfigMap", "k8s.io.api.core.v1", "ConfigMap"),
    ("batch", "Job", "k8s.io.api.batch.v1", "Job"),
    # kubectl create deployment sends protobuf; the other apps kinds come along.
    ("apps", "Deployment", "k8s.io.api.apps.v1", "Deployment"),
    ("apps", "StatefulSet", "k8s.io.api.apps.v1", "StatefulSet"),
    ("apps", "ReplicaSet", "k8s.io.api.apps.v1", "ReplicaSet"),
    ("scheduling.k8s.io", "PriorityClass", "k8s.io.api.scheduling.v1", "PriorityClass"),
    ("rbac.authorization.k8s.io", "Role", "k8s.io.api.rbac.v1", "Role"),
    ("rbac.authorization.k8s.io", "ClusterRole", "k8s.io.api.rbac.v1", "ClusterRole"),
    ("rbac.authorization.k8s.io", "RoleBinding", "k8s.io.api.rbac.v1", "RoleBinding"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding", "k8s.io.api.rbac.v1", "ClusterRoleBinding"),
    ("coordination.k8s.io", "Lease", "k8s.io.api.coordination.v1", "Lease"),
    ("authorization.k8s.io", "SelfSubjectAccessReview", "k8s.io.api.authorization.v1",
     "SelfSubjectAccessReview"),
    ("authorization.k8s.io", "SelfSubjectRulesReview", "k8s.io.api.authorization.v1",
     "SelfSubjectRulesReview"),
    ("authentication.k8s.io", "SelfSubjectReview", "k8s.io.api.authentication.v1",
     "SelfSubjectReview"),
    # The body of a delete (kubectl's typed clients send it as protobuf).
    ("meta.k8s.io", "DeleteOptions", "k8s.io.apimachinery.pkg.apis.meta.v1", "DeleteOptions"),
]

# Proto package -> directory of its generated.proto and Go types, relative to
# API_DIR ("api:") or APIMACHINERY_DIR ("apimachinery:").
PACKAGES = {
    "k8s.io.api.core.v1": "api:core/v1",
    "k8s.io.api.batch.v1": "api:batch/v1",
    "k8s.io.api.apps.v1": "api:apps/v1",
    "k8s.io.api.scheduling.v1": "api:scheduling/v1",
    "k8s.io.api.rbac.v1": "api:rbac/v1",
    "k8s.io.api.coordination.v1": "api:coordination/v1",
    "k8s.io.api.authorization.v1": "api:authorization/v1",
    "k8s.io.api.authentication.v1": "api:authentication/v1",
    "k8s.io.apimachinery.pkg.apis.meta.v1": "apimachinery:pkg/apis/meta/v1",
}

# Messages whose Go type has a JSON form of its own (ProtoType in
# server/protobuf_schema.h).
SPECIAL = {
    "k8s.io.apimachinery.pkg.apis.meta.v1.Time": "kTime",
    "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime": "kMicroTime",
    # No decoder yet (none of ROOTS reaches it): reaching it stops the script.
    "k8s.io.apimachinery.pkg.apis.meta.v1.Duration": None,
    "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1": "kRawJson",
    "k8s.io.apimachinery.pkg.runtime.RawExtension": "kRawJson",
    "k8s.io.apimachinery.pkg.api.resource.Quantity": "kQuantity",
    "k8s.io.apimachinery.pkg.util.intstr.IntOrString": "kIntOrString",
    # Go `type ExtraValue []string`: a JSON list of strings.
    "k8s.io.api.authentication.v1.ExtraValue": "kStringList",
    "k8s.io.api.authorization.v1.ExtraValue": "kStringList",
}

SCALARS = {"string": "kString", "bytes": "kBytes", "bool": "kBool", "int32": "kInt32",
           "int64": "kInt64", "double": "kDouble"}

FIELD_RE = re.compile(r"^\s*(optional|repeated)\s+(\S+)\s+(\w+)\s*=\s*(\d+)\s*;")
MAP_RE = re.compile(r"^\s*map<\s*(\S+)\s*,\s*(\S+)\s*>\s+(\w+)\s*=\s*(\d+)\s*;")
GO_FIELD_RE = re.compile(r'^\s*(\w+(?:\.\w+)?)\s*(\S*)\s*`([^`]*)`')
GO_TAG_RE = re.compile(r'(\w+):"([^"]*)"')


def package_dir(roots, package):
    where, rel = PACKAGES[package].split(":", 1)
    return os.path.join(roots[where], rel)


def read_protos(roots):
    """{qualified message name: [(label, type, name, number, map value)]}."""
    messages = {}
    for package in PACKAGES:
        path = os.path.join(package_dir(roots, package), "generated.proto")
        current = None
        with open(path) as f:
            for line in f:
                line = line.split("//", 1)[0]
                m = re.match(r"^message\s+(\w+)\s*\{", line)
                if m:
                    current = package + "." + m.group(1)
                    messages[current] = []
                    continue
                if line.startswith("}"):
                    current = None
                    continue
                if current is None:
                    continue
                m = MAP_RE.match(line)
                if m:
                    if m.group(1) != "string":
                        sys.exit("%s.%s: map keys other than strings" % (current, m.group(3)))
                    messages[current].append(
                        ("map", qualify(package, m.group(2)), m.group(3), int(m.group(4))))
                    continue
                m = FIELD_RE.match(line)
                if m:
                    messages[current].append(
                        (m.group(1), qualify(package, m.group(2)), m.group(3), int(m.group(4))))
    return messages


def qualify(package, type_name):
    if type_name in SCALARS:
        return type_name
    if type_name.startswith("."):
        return type_name[1:]
    return package + "." + type_name


def read_go_fields(roots):
    """{(package, struct, proto number): (json name, inline, keep zero)}."""
    out = {}
    for package in PACKAGES:
        directory = package_dir(roots, package)
        for name in sorted(os.listdir(directory)):
            if not name.endswith(".go") or name.endswith("_test.go") or name.startswith("zz_"):
                continue
            if name.startswith("generated"):
                continue
            struct = None
            with open(os.path.join(directory, name)) as f:
                for line in f:
                    m = re.match(r"^type\s+(\w+)\s+struct\s*\{", line)
                    if m:
                        struct = m.group(1)
                        continue
                    if line.startswith("}"):
                        struct = None
                        continue
                    if struct is None:
                        continue
                    m = GO_FIELD_RE.match(line)
                    if not m:
                        continue
                    tags = dict(GO_TAG_RE.findall(m.group(3)))
                    if tags.get("protobuf", "-") == "-":
                        continue
                    number = int(tags["protobuf"].split(",")[1])
                    go_type = m.group(2) if m.group(2) else m.group(1)  # embedded: type only
                    json_parts = tags.get("json", "").split(",")
                    inline = "inline" in json_parts[1:]
                    omitempty = "omitempty" in json_parts[1:]
                    keep_zero = go_type.startswith("*") or not omitempty
                    out[(package, struct, number)] = (json_parts[0], inline, keep_zero)
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    roots = {"api": sys.argv[1], "apimachinery": sys.argv[2]}
    protos = read_protos(roots)
    go_fields = read_go_fields(roots)

    order = []  # messages in the order they are written
    index = {}

    def visit(name):
        if name in index or name in SPECIAL:
            return
        if name not in protos:
            sys.exit("message %s is not in the proto files read" % name)
        index[name] = len(order)
        order.append(name)
        for label, type_name, _, _ in protos[name]:
            if type_name not in SCALARS:
                visit(type_name)

    for _, _, package, message in ROOTS:
        visit(package + "." + message)

    lines = []
    w = lines.append
    w("// Generated by scripts/gen_protobuf_schema.py from k8s.io/api and")
    w("// k8s.io/apimachinery %s: the protobuf form of the kinds protobuf_body" % sys.argv[3])
    w("// decodes. Do not edit by hand; run the script again (its header says how).")
    w('#include "server/protobuf_schema.h"')
    w("")
    w("namespace kuota::server {")
    w("namespace {")
    w("")
    w("using T = ProtoType;")
    w("using L = ProtoLabel;")
    w("constexpr uint8_t kKeep = kProtoKeepZero;")
    w("constexpr uint8_t kInline = kProtoInline;")
    w("")
    w("constexpr ProtoField kProtoFields[] = {")
    starts = []
    count = 0
    for name in order:
        package, struct = name.rsplit(".", 1)
        starts.append((count, len(protos[name])))
        w("    // %s" % name)
        for label, type_name, field, number in sorted(protos[name], key=lambda f: f[3]):
            json_name, inline, keep_zero = go_fields.get((package, struct, number),
                                                         (field, False, False))
            if (package, struct, number) not in go_fields:
                sys.stderr.write("note: no Go field for %s.%s (%d); JSON name %s\n" %
                                 (name, field, number, field))
            if inline:
                json_name = ""
            if type_name in SCALARS:
                kind, message = SCALARS[type_name], -1
            elif type_name in SPECIAL:
                if SPECIAL[type_name] is None:
                    sys.exit("%s.%s: %s has no decoder in protobuf_body" % (name, field,
                                                                          type_name))
                kind, message = SPECIAL[type_name], -1
            else:
                kind, message = "kMessage", index[type_name]
            lab = {"optional": "L::kSingle", "repeated": "L::kRepeated", "map": "L::kMap"}[label]
            flags = " | ".join(f for f, on in (("kKeep", keep_zero), ("kInline", inline)) if on)
            w('    {%d, "%s", T::%s, %s, %d, %s},' % (number, json_name, kind, lab, message,
                                                     flags or "0"))
        count += len(protos[name])
    w("};")
    w("")
    w("constexpr ProtoMessage kProtoMessages[] = {")
    for name, (start, n) in zip(order, starts):
        w('    {"%s", %d, %d},' % (name, start, n))
    w("};")
    w("")
    w("constexpr ProtoKind kProtoKinds[] = {")
    for group, kind, package, message in ROOTS:
        w('    {"%s", "%s", %d},' % (group, kind, index[package + "." + message]))
    w("};")
    w("")
    w("}  // namespace")
    w("")
    w("const ProtoSchema& KubernetesProtoSchema() {")
    w("  static const ProtoSchema kSchema{kProtoFields, kProtoMessages, kProtoKinds};")
    w("  return kSchema;")
    w("}")
    w("")
    w("}  // namespace kuota::server")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
