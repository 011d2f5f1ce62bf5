#!/usr/bin/env python3
"""A tiny HTTPS admission webhook for admission_webhooks_test.sh.

POST /label: mutating, a JSONPatch adding the label stamped-by=webhook.
POST /deny:  validating, refuses objects whose name starts with "forbidden"
             (403, "name forbidden by policy"), allows the rest (those whose
             name starts with "warn" with a warning).
Each AdmissionReview received is appended, one JSON line, to REVIEWS.
Usage: admission_webhook_server.py PORT CERT KEY REVIEWS
"""
import base64
import http.server
import json
import ssl
import sys

PORT, CERT, KEY, REVIEWS = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]


class Hook(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with open(REVIEWS, "a") as f:
            f.write(json.dumps({"path": self.path, "review": review}) + "\n")
        req = review["request"]
        resp = {"uid": req["uid"], "allowed": True}
        path = self.path.split("?")[0]
        if path == "/label" and req.get("object"):
            ops = []
            if not req["object"]["metadata"].get("labels"):
                ops.append({"op": "add", "path": "/metadata/labels", "value": {}})
            ops.append({"op": "add", "path": "/metadata/labels/stamped-by", "value": "webhook"})
            resp["patchType"] = "JSONPatch"
            resp["patch"] = base64.b64encode(json.dumps(ops).encode()).decode()
        elif path == "/deny" and req.get("name", "").startswith("forbidden"):
            resp["allowed"] = False
            resp["status"] = {"code": 403, "reason": "Forbidden", "message": "name forbidden by policy"}
        elif path == "/deny" and req.get("name", "").startswith("warn"):
            resp["warnings"] = ["the test webhook warns about " + req["name"]]
        body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                           "response": resp}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Hook)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(CERT, KEY)
server.socket = ctx.wrap_socket(server.socket, server_side=True)
print("serving", flush=True)
server.serve_forever()
