"""A small client for kuotad's REST API that talks to it only through the
kubeconfig kuotad wrote (--kubeconfig-out), as kubectl does: the current
context's cluster `server` (http:// or https://), its
`certificate-authority-data` / `certificate-authority` / `insecure-skip-tls-verify`,
and the user's `token` / `tokenFile` (sent as `Authorization: Bearer`) or
client certificate. Imported by the fault tests; not run on its own.

Not thread-safe per instance: give each thread its own KubeClient (they are
cheap; each request opens its own connection, so a killed kuotad never leaves
a half-read keep-alive connection behind).
"""
import base64
import http.client
import json
import os
import ssl
import tempfile
import urllib.parse

import yaml


class KubeconfigError(Exception):
    pass


def _pick(items, name, what):
    for item in items or []:
        if item.get("name") == name:
            return item.get(what) or {}
    raise KubeconfigError("kubeconfig has no %s named %r" % (what, name))


class Kubeconfig:
    """The parts of a kubeconfig a client needs, for its current context."""

    def __init__(self, path):
        with open(path) as f:
            text = f.read()
        doc = yaml.safe_load(text) if text.strip() else None
        if not isinstance(doc, dict) or not doc.get("current-context"):
            raise KubeconfigError("%s: not a complete kubeconfig (yet)" % path)
        base_dir = os.path.dirname(os.path.abspath(path))
        ctx = _pick(doc.get("contexts"), doc["current-context"], "context")
        cluster = _pick(doc.get("clusters"), ctx.get("cluster"), "cluster")
        user = _pick(doc.get("users"), ctx.get("user"), "user") if ctx.get("user") else {}
        self.server = cluster.get("server", "")
        if not self.server:
            raise KubeconfigError("%s: the cluster has no server" % path)
        url = urllib.parse.urlsplit(self.server)
        self.scheme = url.scheme
        self.host = url.hostname
        self.port = url.port or (443 if url.scheme == "https" else 80)
        self.prefix = url.path.rstrip("/")
        self.tls = None
        if self.scheme == "https":
            ca_data = cluster.get("certificate-authority-data")
            ca_file = cluster.get("certificate-authority")
            if cluster.get("insecure-skip-tls-verify"):
                ctx_ssl = ssl.create_default_context()
                ctx_ssl.check_hostname = False
                ctx_ssl.verify_mode = ssl.CERT_NONE
            elif ca_data:
                ctx_ssl = ssl.create_default_context(
                    cadata=base64.b64decode(ca_data).decode())
            elif ca_file:
                ctx_ssl = ssl.create_default_context(
                    cafile=os.path.join(base_dir, ca_file))
            else:
                ctx_ssl = ssl.create_default_context()
            cert = user.get("client-certificate-data")
            key = user.get("client-key-data")
            if cert and key:
                # ssl wants files; they live only as long as loading takes.
                with tempfile.NamedTemporaryFile("wb") as cf, \
                        tempfile.NamedTemporaryFile("wb") as kf:
                    cf.write(base64.b64decode(cert))
                    kf.write(base64.b64decode(key))
                    cf.flush()
                    kf.flush()
                    ctx_ssl.load_cert_chain(cf.name, kf.name)
            elif user.get("client-certificate") and user.get("client-key"):
                ctx_ssl.load_cert_chain(os.path.join(base_dir, user["client-certificate"]),
                                        os.path.join(base_dir, user["client-key"]))
            self.tls = ctx_ssl
        elif self.scheme != "http":
            raise KubeconfigError("%s: unsupported server %r" % (path, self.server))
        self.headers = {}
        token = user.get("token")
        if not token and user.get("tokenFile"):
            with open(os.path.join(base_dir, user["tokenFile"])) as f:
                token = f.read().strip()
        if token:
            self.headers["Authorization"] = "Bearer " + token
        elif user.get("username") is not None and user.get("password") is not None:
            basic = base64.b64encode(("%s:%s" % (user["username"], user["password"])).encode())
            self.headers["Authorization"] = "Basic " + basic.decode()


class Response:
    def __init__(self, status, body):
        self.status = status
        self.text = body.decode(errors="replace")
        try:
            self.json = json.loads(self.text) if self.text else None
        except ValueError:
            self.json = None

    def message(self):
        if isinstance(self.json, dict) and "message" in self.json:
            return self.json["message"]
        return self.text[:500]


class KubeClient:
    def __init__(self, config, timeout=10):
        self.config = config
        self.timeout = timeout

    def request(self, method, path, body=None):
        """Returns a Response; raises OSError (and http.client's errors) when
        kuotad cannot be reached or the connection breaks."""
        c = self.config
        if c.tls is not None:
            conn = http.client.HTTPSConnection(c.host, c.port, timeout=self.timeout,
                                               context=c.tls)
        else:
            conn = http.client.HTTPConnection(c.host, c.port, timeout=self.timeout)
        headers = dict(c.headers)
        headers["Accept"] = "application/json"
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            conn.request(method, c.prefix + path, body=data, headers=headers)
            r = conn.getresponse()
            return Response(r.status, r.read())
        finally:
            conn.close()

    def get(self, path):
        return self.request("GET", path)

    def post(self, path, body):
        return self.request("POST", path, body)

    def list_all(self, path, page=500):
        """Every item of a collection, following continue tokens."""
        items, cont = [], ""
        while True:
            sep = "&" if "?" in path else "?"
            q = "%slimit=%d" % (sep, page) + ("&continue=" + urllib.parse.quote(cont) if cont else "")
            r = self.get(path + q)
            if r.status != 200:
                raise RuntimeError("GET %s: %d %s" % (path, r.status, r.message()))
            items += r.json.get("items") or []
            cont = (r.json.get("metadata") or {}).get("continue") or ""
            if not cont:
                return items
