#!/usr/bin/env python3
"""Renders deploy/helm/kuota the way `helm template` would, for a small subset
of Go template syntax (Helm itself is not packaged by Debian, so it cannot run
in CI here).

Supported, and nothing else:
  {{ .Values.a.b }}  {{ .Release.Name }}  {{ .Release.Namespace }}
  {{ .Chart.Name }}  {{ .Chart.Version }}  {{ .Chart.AppVersion }}
  {{ $.Values.a }}   (the root, inside range)      {{ "literal" }}
  {{- if X }} ... {{- else }} ... {{- end }}     (X: a field path)
  {{- range X }} {{ . }} {{ .field }} {{- end }}  (X: a field path to a list)
  pipelines: | quote   | default "x" (or a path)   | toYaml   | indent N
             | nindent N
  whitespace trimming with {{- and -}}

Anything else (include, tpl, with, define, variables, comments, other
functions, `else if`) is an error naming the file and the line, so the chart
cannot drift out of what tests/deploy/chart_test.py checks.

Library: load_chart(), render_chart(), values_references(), merge_values().
Command line:
  render_chart.py CHART_DIR [--name kuota] [--namespace kuota-system] [-f values.yaml]...
prints the rendered templates (not the CRDs) as `helm template` would.
"""
import argparse
import copy
import json
import os
import re
import sys

import yaml


class TemplateError(Exception):
    """A template the renderer refuses, or one that fails to evaluate."""

    def __init__(self, path, line, message):
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line


# --- Lexing -----------------------------------------------------------------

_SPACE = " \t\r\n"


def _find_action_end(text, start, path, line):
    """Index of the '}}' closing the action opened at text[start-2:start]."""
    i = start
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                if text[i] == "\\":
                    i += 1
                if i < len(text) and text[i] == "\n":
                    raise TemplateError(path, line, "unterminated string in action")
                i += 1
        elif c == "`":
            end = text.find("`", i + 1)
            if end < 0:
                raise TemplateError(path, line, "unterminated raw string in action")
            i = end
        elif text.startswith("}}", i):
            return i
        i += 1
    raise TemplateError(path, line, "unclosed action: '{{' without '}}'")


def _lex(text, path):
    """[('text', str, line) | ('action', inner, line)], with {{- and -}} trims applied."""
    tokens = []
    pos = 0
    line = 1
    trim_next = False
    while True:
        start = text.find("{{", pos)
        chunk = text[pos:] if start < 0 else text[pos:start]
        if trim_next:
            stripped = chunk.lstrip(_SPACE)
            line += chunk[: len(chunk) - len(stripped)].count("\n")
            chunk_line = line
            chunk = stripped
        else:
            chunk_line = line
        if start < 0:
            if "}}" in chunk:
                bad = chunk_line + chunk[: chunk.index("}}")].count("\n")
                raise TemplateError(path, bad, "stray '}}' outside an action")
            tokens.append(("text", chunk, chunk_line))
            return tokens
        action_line = chunk_line + chunk.count("\n")
        inner_start = start + 2
        left_trim = text.startswith("-", inner_start) and inner_start + 1 < len(text) and \
            text[inner_start + 1] in _SPACE
        if text.startswith("-", inner_start) and not left_trim:
            raise TemplateError(path, action_line, "'{{-' must be followed by a space")
        end = _find_action_end(text, inner_start, path, action_line)
        inner = text[inner_start + (1 if left_trim else 0):end]
        right_trim = len(inner) >= 2 and inner[-1] == "-" and inner[-2] in _SPACE
        if right_trim:
            inner = inner[:-1]
        if left_trim:
            chunk = chunk.rstrip(_SPACE)
        if "}}" in chunk:
            raise TemplateError(path, chunk_line + chunk[: chunk.index("}}")].count("\n"),
                                "stray '}}' outside an action")
        tokens.append(("text", chunk, chunk_line))
        tokens.append(("action", inner.strip(_SPACE), action_line))
        line = action_line + text[inner_start:end].count("\n")
        pos = end + 2
        trim_next = right_trim


# --- Parsing ----------------------------------------------------------------

_FIELD = r"[A-Za-z_][A-Za-z0-9_]*"
_PATH_RE = re.compile(rf"^(\$|\$?(\.{_FIELD})+|\.)$")
_STRING_RE = re.compile(r'^"(?:[^"\\\n]|\\.)*"$')
_INT_RE = re.compile(r"^-?[0-9]+$")
_FUNCS = {"quote": 0, "default": 1, "toYaml": 0, "indent": 1, "nindent": 1}
_ROOTS = {"Values", "Release", "Chart"}


def _split_outside_strings(s, sep):
    parts, cur, i = [], "", 0
    while i < len(s):
        c = s[i]
        if c == '"':
            j = i + 1
            while j < len(s) and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            cur += s[i:j + 1]
            i = j + 1
            continue
        if (sep is None and c in _SPACE) or c == sep:
            parts.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    parts.append(cur)
    return parts


class _Operand:
    """A field path (".Values.a", "$.Values.a", ".", ".name") or a literal."""

    def __init__(self, token, path, line, in_range):
        self.token = token
        self.in_range = in_range
        if _STRING_RE.match(token):
            self.kind, self.value = "literal", json.loads(token)
        elif _INT_RE.match(token):
            self.kind, self.value = "literal", int(token)
        elif token in ("true", "false"):
            self.kind, self.value = "literal", token == "true"
        elif _PATH_RE.match(token):
            self.kind = "path"
            self.from_root = token.startswith("$")
            self.fields = [f for f in token.lstrip("$").split(".") if f]
            if self.from_root or not in_range:
                if not self.fields:
                    if self.from_root or token == ".":
                        raise TemplateError(path, line, f"'{token}': the whole root cannot be rendered")
                if self.fields[0] not in _ROOTS:
                    raise TemplateError(path, line, f"'{token}': unsupported root .{self.fields[0]}"
                                        f" (supported: .Values, .Release, .Chart)")
            elif self.fields and self.fields[0] in _ROOTS:
                raise TemplateError(path, line, f"'{token}' inside range: '.' is the element there;"
                                    f" write ${token}")
        else:
            raise TemplateError(path, line, f"unsupported operand '{token}'")

    def values_path(self):
        """The .Values path this operand reads from the root, or None."""
        if self.kind == "path" and self.fields and self.fields[0] == "Values" and \
                (self.from_root or not self.in_range):
            return tuple(self.fields[1:])
        return None


class _Pipeline:
    def __init__(self, text, path, line, in_range):
        self.path, self.line = path, line
        commands = [c.strip(_SPACE) for c in _split_outside_strings(text, "|")]
        if not commands or not commands[0]:
            raise TemplateError(path, line, f"empty pipeline in '{{{{ {text} }}}}'")
        first = [w for w in _split_outside_strings(commands[0], None) if w]
        if len(first) != 1:
            raise TemplateError(path, line, f"unsupported: '{commands[0]}' (function calls are"
                                f" supported only as pipeline stages: X | f)")
        self.operand = _Operand(first[0], path, line, in_range)
        self.stages = []
        for cmd in commands[1:]:
            words = [w for w in _split_outside_strings(cmd, None) if w]
            if not words:
                raise TemplateError(path, line, "empty pipeline stage")
            name, args = words[0], words[1:]
            if name not in _FUNCS:
                raise TemplateError(path, line, f"unsupported function '{name}'"
                                    f" (supported: {', '.join(sorted(_FUNCS))})")
            if len(args) != _FUNCS[name]:
                raise TemplateError(path, line, f"'{name}' takes {_FUNCS[name]} argument(s)"
                                    f" before the piped value, got {len(args)}")
            ops = [_Operand(a, path, line, in_range) for a in args]
            if name in ("indent", "nindent") and not (ops[0].kind == "literal" and
                                                       isinstance(ops[0].value, int)):
                raise TemplateError(path, line, f"'{name}' wants an integer literal")
            self.stages.append((name, ops))

    def operands(self):
        yield self.operand
        for _, ops in self.stages:
            yield from ops


class _Node:
    pass


class _Text(_Node):
    def __init__(self, text):
        self.text = text


class _Output(_Node):
    def __init__(self, pipeline):
        self.pipeline = pipeline


class _If(_Node):
    def __init__(self, pipeline):
        self.pipeline, self.then, self.otherwise = pipeline, [], None


class _Range(_Node):
    def __init__(self, pipeline):
        self.pipeline, self.body = pipeline, []


_KEYWORDS = {"if", "else", "end", "range", "with", "define", "template", "block", "break",
             "continue", "include", "tpl", "required", "fail", "lookup"}


def parse_template(text, path):
    """Parses `text` (from file `path`) into a node list; TemplateError if unsupported."""
    root = []
    stack = [(root, None, 0)]   # (node list being filled, owner node, range depth)
    for kind, value, line in _lex(text, path):
        body, owner, depth = stack[-1]
        if kind == "text":
            if value:
                body.append(_Text(value))
            continue
        if value.startswith("/*"):
            raise TemplateError(path, line, "template comments {{/* */}} are not supported;"
                                " use a YAML '#' comment")
        words = value.split(None, 1)
        head = words[0] if words else ""
        rest = words[1] if len(words) > 1 else ""
        if ":=" in value or (value.startswith("$") and not value.startswith("$.")):
            raise TemplateError(path, line, f"template variables are not supported: '{value}'")
        if head == "if":
            node = _If(_Pipeline(rest, path, line, depth > 0))
            body.append(node)
            stack.append((node.then, node, depth))
        elif head == "range":
            node = _Range(_Pipeline(rest, path, line, depth > 0))
            if node.pipeline.operand.kind != "path" or node.pipeline.stages:
                raise TemplateError(path, line, "range wants a plain field path")
            body.append(node)
            stack.append((node.body, node, depth + 1))
        elif head == "else":
            if rest:
                raise TemplateError(path, line, f"unsupported: 'else {rest}' (no else-if/else-with)")
            if not isinstance(owner, _If) or owner.otherwise is not None:
                raise TemplateError(path, line, "'else' outside an if (else in range is unsupported)")
            owner.otherwise = []
            stack[-1] = (owner.otherwise, owner, depth)
        elif head == "end":
            if rest:
                raise TemplateError(path, line, f"unexpected '{rest}' after end")
            if owner is None:
                raise TemplateError(path, line, "'end' without if/range")
            stack.pop()
        elif head in _KEYWORDS:
            raise TemplateError(path, line, f"unsupported template construct '{head}'")
        else:
            body.append(_Output(_Pipeline(value, path, line, depth > 0)))
    if len(stack) > 1:
        raise TemplateError(path, "EOF", "missing {{ end }}")
    return root


def _walk(nodes):
    for n in nodes:
        yield n
        if isinstance(n, _If):
            yield from _walk(n.then)
            yield from _walk(n.otherwise or [])
        elif isinstance(n, _Range):
            yield from _walk(n.body)


# --- Evaluation -------------------------------------------------------------

def _empty(v):
    """Go's (and Sprig's) emptiness: nil, false, 0, and empty strings, lists, maps."""
    if v is None or v is False:
        return True
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v == 0
    if isinstance(v, (str, list, dict)):
        return len(v) == 0
    return False


def _to_text(v, path, line):
    if v is None:
        return ""   # Helm renders a missing value as an empty string
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, str)):
        return str(v)
    raise TemplateError(path, line, f"cannot print a {type(v).__name__} directly;"
                        f" pipe it through toYaml")


def _to_yaml(v):
    if v is None:
        return "null"
    return yaml.safe_dump(v, default_flow_style=False, sort_keys=True, allow_unicode=True,
                          width=1 << 30).rstrip("\n")


class _Scope:
    def __init__(self, root, dot):
        self.root, self.dot = root, dot


def _lookup(op, scope, path, line):
    if op.kind == "literal":
        return op.value
    cur = scope.root if op.from_root else scope.dot
    fixed = (scope.root["Release"], scope.root["Chart"])   # structs: unknown fields are errors
    for f in op.fields:
        if isinstance(cur, dict):
            if any(cur is d for d in fixed) and f not in cur:
                raise TemplateError(path, line, f"{op.token}: no such field {f}")
            cur = cur.get(f)
        elif cur is None:   # as Go: a missing key is nil, and nil has no fields
            raise TemplateError(path, line, f"{op.token}: nil pointer evaluating"
                                f" interface {{}}.{f} (a value on the way is missing)")
        else:
            raise TemplateError(path, line, f"{op.token}: cannot read field {f} of a "
                            f"{type(cur).__name__}")
    return cur


def _eval(pipeline, scope):
    path, line = pipeline.path, pipeline.line
    v = _lookup(pipeline.operand, scope, path, line)
    for name, ops in pipeline.stages:
        args = [_lookup(o, scope, path, line) for o in ops]
        if name == "quote":
            v = "" if v is None else json.dumps(_to_text(v, path, line), ensure_ascii=False)
        elif name == "default":
            v = args[0] if _empty(v) else v
        elif name == "toYaml":
            v = _to_yaml(v)
        elif name in ("indent", "nindent"):
            if not isinstance(v, str):
                raise TemplateError(path, line, f"{name} wants a string, got "
                                    f"{type(v).__name__} (pipe it through toYaml first)")
            pad = " " * args[0]
            v = ("\n" if name == "nindent" else "") + pad + v.replace("\n", "\n" + pad)
    return v


def _render_nodes(nodes, scope, out):
    for n in nodes:
        if isinstance(n, _Text):
            out.append(n.text)
        elif isinstance(n, _Output):
            out.append(_to_text(_eval(n.pipeline, scope), n.pipeline.path, n.pipeline.line))
        elif isinstance(n, _If):
            cond = _eval(n.pipeline, scope)
            _render_nodes(n.then if not _empty(cond) else (n.otherwise or []), scope, out)
        elif isinstance(n, _Range):
            items = _eval(n.pipeline, scope)
            if items is None:
                continue
            if not isinstance(items, list):
                raise TemplateError(n.pipeline.path, n.pipeline.line,
                                    f"range over a {type(items).__name__} is unsupported (lists only)")
            for item in items:
                _render_nodes(n.body, _Scope(scope.root, item), out)


def render_template(text, path, root):
    """Renders one template's text with root = {Values, Release, Chart}."""
    out = []
    _render_nodes(parse_template(text, path), _Scope(root, root), out)
    return "".join(out)


# --- Charts -----------------------------------------------------------------

def merge_values(base, override):
    """Helm's coalescing: maps merge recursively, null deletes, the rest replaces."""
    result = copy.deepcopy(base) if isinstance(base, dict) else {}
    for k, v in (override or {}).items():
        if v is None:
            result.pop(k, None)
        elif isinstance(v, dict) and isinstance(result.get(k), dict):
            result[k] = merge_values(result[k], v)
        else:
            result[k] = copy.deepcopy(v)
    return result


def _read_yaml(path):
    with open(path, encoding="utf-8") as f:
        try:
            return yaml.safe_load(f)
        except yaml.YAMLError as e:
            raise TemplateError(path, getattr(getattr(e, "problem_mark", None), "line", -1) + 1,
                                f"invalid YAML: {e}") from e


class Chart:
    def __init__(self, chart_dir):
        self.dir = chart_dir
        self.meta = _read_yaml(os.path.join(chart_dir, "Chart.yaml")) or {}
        self.values = _read_yaml(os.path.join(chart_dir, "values.yaml")) or {}
        tdir = os.path.join(chart_dir, "templates")
        self.templates = sorted(os.path.join("templates", n) for n in os.listdir(tdir)
                                if os.path.isfile(os.path.join(tdir, n)))
        cdir = os.path.join(chart_dir, "crds")
        self.crds = sorted(os.path.join("crds", n) for n in os.listdir(cdir)) \
            if os.path.isdir(cdir) else []

    def text(self, rel):
        with open(os.path.join(self.dir, rel), encoding="utf-8") as f:
            return f.read()


def load_chart(chart_dir):
    return Chart(chart_dir)


def render_chart(chart, release_name, namespace, value_files=()):
    """Returns [(template path, rendered text)] for every file under templates/,
    NOTES.txt included (Helm prints it rather than applying it)."""
    values = chart.values
    for vf in value_files:
        values = merge_values(values, _read_yaml(vf) or {})
    root = {
        "Values": values,
        "Release": {"Name": release_name, "Namespace": namespace, "Service": "Helm"},
        "Chart": {"Name": chart.meta.get("name"), "Version": chart.meta.get("version"),
                  "AppVersion": chart.meta.get("appVersion")},
    }
    name = chart.meta.get("name", "chart")
    return [(f"{name}/{rel}", render_template(chart.text(rel), os.path.join(chart.dir, rel), root))
            for rel in chart.templates]


def values_references(chart):
    """[(file, line, path tuple)] for every .Values path the templates read."""
    refs = []
    for rel in chart.templates:
        full = os.path.join(chart.dir, rel)
        nodes = parse_template(chart.text(rel), full)
        for n in _walk(nodes):
            pipe = getattr(n, "pipeline", None)
            if pipe is None:
                continue
            for op in pipe.operands():
                p = op.values_path()
                if p is not None:
                    refs.append((full, pipe.line, p))
    return refs


def split_documents(text):
    """Splits rendered YAML on '---' lines; drops documents that hold nothing."""
    docs = re.split(r"(?m)^---[ \t]*$\n?", text)
    return [d for d in docs if yaml.safe_load(d) is not None]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("chart")
    ap.add_argument("--name", default="kuota")
    ap.add_argument("--namespace", default="kuota-system")
    ap.add_argument("-f", "--values", action="append", default=[])
    args = ap.parse_args(argv)
    try:
        chart = load_chart(args.chart)
        for src, text in render_chart(chart, args.name, args.namespace, args.values):
            if src.endswith("NOTES.txt"):
                continue
            for doc in split_documents(text):
                sys.stdout.write(f"---\n# Source: {src}\n{doc.strip(chr(10))}\n")
    except TemplateError as e:
        print(f"render_chart: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
