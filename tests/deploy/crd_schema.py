"""Checks that a CustomResourceDefinition is one kube-apiserver accepts as
apiextensions.k8s.io/v1 with a structural schema, offline (no cluster here).

  crd_errors(crd) -> [message]   every rule broken, each naming its schema path

The rules are apiextensions-apiserver's (structural schemas, defaulting, list-map
keys, printer columns), not a full OpenAPI validator: what a hand-written CRD gets
wrong. Used by tests/deploy/chart_test.py.
"""
import re

TYPES = {"object", "array", "string", "integer", "number", "boolean"}
ALLOWED_KEYS = {
    "type", "format", "description", "title", "properties", "additionalProperties", "items",
    "required", "enum", "default", "pattern", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "minProperties",
    "maxProperties", "multipleOf", "nullable", "anyOf", "example",
    "x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string",
    "x-kubernetes-embedded-resource", "x-kubernetes-list-type", "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type", "x-kubernetes-validations",
}
COLUMN_TYPES = {"integer", "number", "string", "boolean", "date"}
_FIELD = r"[A-Za-z_][A-Za-z0-9_]*"
# .a.b, optionally with one filter step: .a[?(@.type=='X')].b
JSONPATH_RE = re.compile(rf"^((?:\.{_FIELD})+)(?:\[\?\(@\.({_FIELD})=='([^']*)'\)\]((?:\.{_FIELD})+))?$")
# Where x-kubernetes-preserve-unknown-fields may be used: status and deep pod templates.
PRESERVE_OK = re.compile(r"^\.status(\.|$)|^\.spec\.podSets\[\]\.(template|topologyRequest)$")


def _matches_type(value, node):
    if node.get("x-kubernetes-int-or-string"):
        return isinstance(value, (int, str)) and not isinstance(value, bool)
    t = node.get("type")
    return {
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
    }.get(t, lambda v: node.get("x-kubernetes-preserve-unknown-fields", False))(value)


def schema_errors(node, path, errs):
    """Appends to errs every structural rule `node` (at schema `path`) breaks."""
    if not isinstance(node, dict):
        errs.append(f"{path}: a schema must be a mapping")
        return
    for k in node:
        if k not in ALLOWED_KEYS:
            errs.append(f"{path}: '{k}' is not allowed in a structural schema")
    preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
    int_or_string = node.get("x-kubernetes-int-or-string") is True
    t = node.get("type")
    if preserve and not PRESERVE_OK.match(path or "."):
        errs.append(f"{path}: x-kubernetes-preserve-unknown-fields is only for status and"
                    f" podSets[].template; type this field")
    if int_or_string:
        if t is not None:
            errs.append(f"{path}: x-kubernetes-int-or-string must not set type")
        if "anyOf" in node and node["anyOf"] != [{"type": "integer"}, {"type": "string"}]:
            errs.append(f"{path}: int-or-string anyOf must be [integer, string]")
    elif "anyOf" in node:
        errs.append(f"{path}: anyOf is only allowed in the int-or-string form")
    if t is None and not int_or_string and not preserve:
        errs.append(f"{path}: no type (every node needs a type, or int-or-string,"
                    f" or preserve-unknown-fields)")
    if t is not None and t not in TYPES:
        errs.append(f"{path}: unknown type '{t}'")
    if "properties" in node and "additionalProperties" in node:
        errs.append(f"{path}: properties and additionalProperties are mutually exclusive")
    if ("properties" in node or "additionalProperties" in node) and t not in ("object", None):
        errs.append(f"{path}: properties on a non-object")
    if "additionalProperties" in node:
        ap = node["additionalProperties"]
        if not isinstance(ap, dict):
            errs.append(f"{path}: additionalProperties must be a schema (not true/false)")
        else:
            schema_errors(ap, f"{path}.*", errs)
    for name, child in (node.get("properties") or {}).items():
        schema_errors(child, f"{path}.{name}", errs)
    for r in node.get("required", []):
        if r not in (node.get("properties") or {}) and not preserve:
            errs.append(f"{path}: required field '{r}' is not among properties")
    if t == "array":
        if not isinstance(node.get("items"), dict):
            errs.append(f"{path}: an array needs items (one schema)")
        else:
            schema_errors(node["items"], f"{path}[]", errs)
    elif "items" in node:
        errs.append(f"{path}: items on a non-array")
    lt = node.get("x-kubernetes-list-type")
    if lt is not None:
        if t != "array" or lt not in ("atomic", "set", "map"):
            errs.append(f"{path}: bad x-kubernetes-list-type '{lt}'")
        if lt == "map":
            items = node.get("items") or {}
            keys = node.get("x-kubernetes-list-map-keys") or []
            if not keys:
                errs.append(f"{path}: list-type map without x-kubernetes-list-map-keys")
            for k in keys:
                prop = (items.get("properties") or {}).get(k)
                if prop is None:
                    errs.append(f"{path}: list-map key '{k}' is not a property of the items")
                elif k not in items.get("required", []) and "default" not in prop:
                    errs.append(f"{path}: list-map key '{k}' must be required or defaulted")
    typed = t in TYPES or int_or_string
    for v in node.get("enum", []) if typed else []:
        if not _matches_type(v, node):
            errs.append(f"{path}: enum value {v!r} is not a {t}")
    if "default" in node and typed:
        d = node["default"]
        if not _matches_type(d, node):
            errs.append(f"{path}: default {d!r} is not a {t}")
        elif "enum" in node and d not in node["enum"]:
            errs.append(f"{path}: default {d!r} is not in the enum")
    for rule in node.get("x-kubernetes-validations", []):
        if not isinstance(rule, dict) or not rule.get("rule"):
            errs.append(f"{path}: x-kubernetes-validations entries need a rule")


def resolve(schema, jsonpath):
    """The schema node a printer column's JSONPath reads; 'unknown' inside a
    preserve-unknown node; None when the path names no field."""
    m = JSONPATH_RE.match(jsonpath)
    if not m:
        return None
    head, filter_field, _, tail = m.groups()
    fields = head.strip(".").split(".")
    if fields[0] == "metadata":
        return {"type": "string", "format": "date-time"} \
            if fields[1:] == ["creationTimestamp"] else {"type": "string"}
    node = schema
    steps = fields + ([None] + tail.strip(".").split(".") if filter_field else [])
    for f in steps:
        if node.get("x-kubernetes-preserve-unknown-fields") and \
                (f is None or f not in (node.get("properties") or {})):
            return "unknown"
        if f is None:   # the filter step: into the list's items
            if node.get("type") != "array":
                return None
            node = node["items"]
            if filter_field not in (node.get("properties") or {}) and \
                    not node.get("x-kubernetes-preserve-unknown-fields"):
                return None
            continue
        node = (node.get("properties") or {}).get(f)
        if node is None:
            return None
    return node


def crd_errors(crd):
    errs = []
    if crd.get("apiVersion") != "apiextensions.k8s.io/v1" or \
            crd.get("kind") != "CustomResourceDefinition":
        return ["not an apiextensions.k8s.io/v1 CustomResourceDefinition"]
    spec, names = crd.get("spec") or {}, (crd.get("spec") or {}).get("names") or {}
    for k in ("kind", "listKind", "plural", "singular"):
        if not names.get(k):
            errs.append(f"spec.names.{k} is missing")
    if names.get("listKind") and names["listKind"] != f"{names.get('kind')}List":
        errs.append("spec.names.listKind must be <kind>List")
    if names.get("plural") != (names.get("plural") or "").lower():
        errs.append("spec.names.plural must be lower case")
    want_name = f"{names.get('plural')}.{spec.get('group')}"
    if (crd.get("metadata") or {}).get("name") != want_name:
        errs.append(f"metadata.name must be {want_name}")
    if spec.get("scope") not in ("Cluster", "Namespaced"):
        errs.append("spec.scope must be Cluster or Namespaced")
    versions = spec.get("versions") or []
    if sum(1 for v in versions if v.get("storage")) != 1:
        errs.append("exactly one version must be the storage version")
    for v in versions:
        vp = f"versions[{v.get('name')}]"
        schema = ((v.get("schema") or {}).get("openAPIV3Schema"))
        if not isinstance(schema, dict):
            errs.append(f"{vp}: no openAPIV3Schema")
            continue
        if schema.get("type") != "object":
            errs.append(f"{vp}: the root schema must be type: object")
        meta = (schema.get("properties") or {}).get("metadata")
        if meta is not None and (set(meta) - {"type", "properties"} or
                                 set(meta.get("properties") or {}) - {"name", "generateName"}):
            errs.append(f"{vp}: metadata may only restrict name and generateName")
        sub = []
        schema_errors(schema, "", sub)
        errs += [f"{vp}: schema{e}" if e.startswith(".") else f"{vp}: schema {e}" for e in sub]
        for c in v.get("additionalPrinterColumns") or []:
            cp = f"{vp}: printer column {c.get('name')!r}"
            if not c.get("name") or c.get("type") not in COLUMN_TYPES:
                errs.append(f"{cp}: needs a name and a type in {sorted(COLUMN_TYPES)}")
            if not isinstance(c.get("priority", 0), int) or c.get("priority", 0) < 0:
                errs.append(f"{cp}: priority must be a non-negative integer")
            target = resolve(schema, c.get("jsonPath", ""))
            if target is None:
                errs.append(f"{cp}: jsonPath {c.get('jsonPath')!r} names no field of the schema")
            elif target != "unknown":
                want = {"integer": "integer", "number": "number", "string": "string",
                        "boolean": "boolean", "date": "string"}.get(c.get("type"))
                if target.get("type") != want:
                    errs.append(f"{cp}: type {c.get('type')} but {c.get('jsonPath')} is a"
                                f" {target.get('type')}")
    return errs


def schema_at(schema, dotted):
    """The node at 'spec.podSets[].count' in a version's openAPIV3Schema, or None."""
    node = schema
    for part in dotted.split("."):
        arr = part.endswith("[]")
        node = (node.get("properties") or {}).get(part[:-2] if arr else part)
        if node is None:
            return None
        if arr:
            node = node.get("items") or {}
    return node
