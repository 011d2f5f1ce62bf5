#!/usr/bin/env python3
"""The web dashboard (/ui) end to end: kuotad (--no-run-pods), queues applied
with the real kubectl, the page opened in headless Chromium (driven over the
DevTools Protocol, tests/e2e/cdp.py) with the admin's token in the URL
fragment. With no reload, a Job that cannot be admitted (its ClusterQueue's
quota is full) shows as pending with its reason, then, once the blocking Job
is deleted, as admitted on its flavor (and, once its status names a
MultiKueue worker, that worker in the Cluster column); the cohort tree,
LocalQueues and GPU use show what was applied. The static files are public, the API is not.
Usage: ui_test.py KUOTAD   (needs chromium and kubectl; prints `ui: N passed, M failed`)
"""
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

import yaml

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import CdpError, Chromium, find_chromium  # noqa: E402

PASS, FAIL = [], []

MANIFESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "manifests", "ui")


def job_manifest(name):
    """manifests/ui/job.yaml named NAME, as JSON for kubectl create -f -."""
    with open(os.path.join(MANIFESTS, "job.yaml")) as f:
        job = yaml.safe_load(f)
    job["metadata"]["name"] = name
    return json.dumps(job)


def ok(name):
    PASS.append(name)
    print("ok   " + name, flush=True)


def bad(name, detail=""):
    FAIL.append(name)
    print("FAIL " + name, flush=True)
    for line in str(detail).splitlines():
        print("     | " + line, flush=True)


def check(name, condition, detail=""):
    if condition:
        ok(name)
    else:
        bad(name, detail)
    return condition


def summary():
    print("ui: %d passed, %d failed" % (len(PASS), len(FAIL)), flush=True)
    return 1 if FAIL or not PASS else 0


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    kuotad = sys.argv[1]
    # Never a silent skip: a machine without chromium or kubectl fails here.
    if find_chromium() is None:
        bad("chromium present", "chromium is not installed: apt-get install chromium "
            "(scripts/setup.sh installs it)")
        return summary()
    if shutil.which("kubectl") is None:
        bad("kubectl present", "kubectl is not on PATH")
        return summary()
    tmp = tempfile.mkdtemp(prefix="kuota-ui-")
    kubeconfig = os.path.join(tmp, "kubeconfig")
    log = open(os.path.join(tmp, "kuotad.log"), "ab")
    proc = subprocess.Popen([kuotad, "--data-dir", os.path.join(tmp, "data"), "--port", "0",
                             "--kubeconfig-out", kubeconfig, "--no-sync", "--no-run-pods",
                             "--gpus", "4"], stdout=log, stderr=log)
    try:
        return run(tmp, kubeconfig, proc)
    except Exception:  # noqa: BLE001 - any failure is reported, then the summary
        bad("the test ran to its end", traceback.format_exc())
        return summary()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        if not FAIL:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("(kuotad's log and chromium's are in %s)" % tmp)


def run(tmp, kubeconfig, proc):
    def k(*args, stdin=None, check_rc=True):
        r = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, *args], input=stdin,
                           capture_output=True, text=True, timeout=60)
        if check_rc and r.returncode != 0:
            raise RuntimeError("kubectl %s: %s" % (" ".join(args), r.stderr.strip()))
        return r.stdout

    for _ in range(400):
        if os.path.exists(kubeconfig) and os.path.getsize(kubeconfig) > 0:
            if subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "get", "--raw", "/healthz"],
                              capture_output=True).returncode == 0:
                break
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    if proc.poll() is not None or not os.path.exists(kubeconfig):
        bad("kuotad starts", open(os.path.join(tmp, "kuotad.log")).read()[-3000:])
        return summary()
    token = k("config", "view", "--raw", "-o", "jsonpath={.users[0].user.token}").strip()
    server = k("config", "view", "--raw", "-o", "jsonpath={.clusters[0].cluster.server}").strip()

    # The static files are public (GET/HEAD), the API is not.
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE

    def get(path, method="GET", data=None):
        request = urllib.request.Request(server + path, method=method, data=data)
        try:
            with urllib.request.urlopen(request, context=insecure, timeout=10) as r:
                return r.status, r.headers.get("Content-Type", ""), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type", ""), e.read().decode()

    status, ctype, body = get("/ui/app.js")
    check("GET /ui/app.js without a token: 200 JavaScript", status == 200 and
          ctype.startswith("text/javascript") and "watch=1" in body, (status, ctype))
    status, ctype, body = get("/ui")
    check("GET /ui without a token: the page", status == 200 and ctype.startswith("text/html") and
          'src="/ui/app.js"' in body, (status, ctype, body[:200]))
    status, _, _ = get("/ui/style.css")
    check("GET /ui/style.css without a token: 200", status == 200, status)
    status, _, body = get("/apis/kueue.x-k8s.io/v1beta1/clusterqueues")
    check("GET /apis/... without a token: 401", status == 401, (status, body[:200]))
    status, _, _ = get("/ui/app.js", method="POST", data=b"")
    check("POST /ui/app.js without a token: 401", status == 401, status)
    status, _, _ = get("/ui/no-such-file.js")
    check("GET /ui/no-such-file.js: 404", status == 404, status)

    k("apply", "-f", os.path.join(MANIFESTS, "queues.yaml"))
    k("create", "-f", "-", stdin=job_manifest("blocker"))

    try:
        browser = Chromium(1400, 1000, log_path=os.path.join(tmp, "chromium.log"))
    except CdpError as e:
        bad("chromium starts", e)
        return summary()
    with browser:
        browse(browser, server, token, k)
    return summary()


def workload_name(k, job):
    for _ in range(100):
        out = k("-n", "ui-a", "get", "workloads", "-o", "json")
        for w in json.loads(out)["items"]:
            if any(o.get("name") == job for o in w["metadata"].get("ownerReferences", [])):
                return w["metadata"]["name"]
        time.sleep(0.1)
    return None


def browse(browser, server, token, k):
    browser.open(server + "/ui#token=" + token)
    live = browser.wait_for("document.body.dataset.live === 'true'", 20)
    if not check("the page lists and watches (status: live)", live,
                 browser.evaluate("document.getElementById('status').textContent") or ""):
        bad("no JavaScript errors", "\n".join(browser.console_errors()))
        return
    check("the token leaves the address bar, stays in sessionStorage",
          browser.evaluate("location.hash === '' && sessionStorage.getItem('kuota-token') !== null"))
    # Set once: a reload would lose it.
    browser.evaluate("window.kuotaTestMarker = 'same page'")

    def text(selector):
        return browser.evaluate(
            "(() => { const e = document.querySelector(%s); return e ? e.textContent : null; })()"
            % json.dumps(selector))

    def wait_text(selector, needle, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            t = text(selector)
            if t is not None and needle in t:
                return t
            time.sleep(0.1)
        return text(selector)

    tree = browser.wait_for("document.querySelector('#cohorts [data-cohort=\"org\"] "
                            "[data-cohort=\"research\"] [data-cq=\"cq-a\"]') !== null "
                            "&& document.querySelector('#cohorts [data-cohort=\"org\"] > .cqs "
                            "[data-cq=\"cq-b\"]') !== null", 10)
    check("cohort tree: org > research > cq-a, org > cq-b", tree,
          text("#cohorts"))
    t = wait_text('#localqueues [data-lq="ui-a/lq-a"]', "cq-a")
    check("LocalQueue ui-a/lq-a -> cq-a listed", t and "cq-a" in t, t)

    blocker = workload_name(k, "blocker")
    sel_admitted = '#admitted [data-workload="ui-a/%s"]' % blocker
    t = wait_text(sel_admitted, "gpu-node")
    check("the blocking Job's workload shows as admitted on flavor gpu-node", t and "gpu-node" in t, t)
    t = wait_text('#gpus [data-cq="cq-a"]', "cq-a12")
    check("GPU use: cq-a uses 1 of 2", t and t.startswith("cq-a12"), t)
    t = wait_text('#cohorts [data-cq="cq-a"] [data-resource="cpu"]', "1 / 1")
    check("cq-a's cpu bar: 1 / 1", t and "1 / 1" in t, t)

    k("create", "-f", "-", stdin=job_manifest("waiter"))
    waiter = workload_name(k, "waiter")
    sel_pending = '#pending [data-workload="ui-a/%s"]' % waiter
    t = wait_text(sel_pending + " .why", "insufficient unused quota")
    check("the new Job's workload shows as pending, with why", t and
          "insufficient unused quota for cpu" in t, "%s: %s\n#pending: %s" % (waiter, t, text("#pending")))
    check("... and not as admitted",
          text('#admitted [data-workload="ui-a/%s"]' % waiter) is None)
    t = wait_text('#localqueues [data-lq="ui-a/lq-a"]', "cq-a11")
    check("LocalQueue counts: 1 pending, 1 admitted", t and t.endswith("cq-a11"), t)

    k("-n", "ui-a", "delete", "job", "blocker")
    sel_admitted = '#admitted [data-workload="ui-a/%s"]' % waiter
    t = wait_text(sel_admitted, "gpu-node")
    check("once the quota is freed, the same workload shows as admitted on gpu-node",
          t and "gpu-node" in t and "running" in t, "%s\n#admitted: %s\n#pending: %s"
          % (t, text("#admitted"), text("#pending")))
    deadline = time.time() + 10
    while text(sel_pending) is not None and time.time() < deadline:
        time.sleep(0.1)
    check("... and no longer as pending", text(sel_pending) is None, text("#pending"))
    t = wait_text('#admitted [data-workload="ui-a/%s"] [data-since]' % waiter, "s")
    check("... with how long it has run", t is not None and t.rstrip("s").isdigit(), t)
    heads = browser.evaluate("[...document.querySelectorAll('#admitted thead th')]"
                             ".map((e) => e.textContent).join('|')")
    check("the admitted workloads have a Cluster column", heads and
          "|Cluster|" in "|%s|" % heads, heads)
    # The worker a MultiKueue manager dispatched it to (status.clusterName, set
    # here through the status subresource: nominated first, as Kueue requires).
    for status in ({"nominatedClusterNames": ["worker-1"]},
                   {"nominatedClusterNames": None, "clusterName": "worker-1"}):
        k("-n", "ui-a", "patch", "workloads", waiter, "--subresource=status", "--type=merge",
          "-p", json.dumps({"status": status}))
    t = wait_text(sel_admitted + " .cluster", "worker-1", 10)
    check("... which shows its status.clusterName", t == "worker-1",
          "%s\n#admitted: %s" % (t, text("#admitted")))
    check("no reload happened", browser.evaluate("window.kuotaTestMarker") == "same page")
    errors = browser.console_errors()
    check("no JavaScript errors", not errors, "\n".join(errors))

    # A bad token: back to the token box, which explains where tokens come from.
    browser.open(server + "/ui#token=not-a-token")
    t = browser.wait_for("!document.getElementById('login').hidden && "
                         "document.getElementById('login').textContent", 10)
    check("a refused token: the token box, with how to get one",
          t and "401" in t and "kuota login" in t and "kubectl config view --raw" in t, t)


if __name__ == "__main__":
    sys.exit(main())
