#!/usr/bin/env python3
"""Fault test (issue 10, "Faults, not only crashes"): kuotad killed with
SIGKILL at random instants under a writer load, KILLS times, each time
restarted on the same data directory, and checked:

  * acknowledged writes are never lost: two writer threads create queued
    Jobs and plain objects (WorkloadPriorityClasses) without pause, through kills
    and restarts, and records every create answered 201; after every restart
    and at the end all of them must be listed;
  * quota is never over-committed: a sampler (every ~0.1 s) sums the
    Workloads holding quota (status.admission set, not Finished) and reads the
    ClusterQueue's flavorsReservation/flavorsUsage, which must stay within
    the 1-CPU nominal quota (Jobs ask 250m: 4 at a time, the rest wait), and
    counts the Jobs whose commands really run (processes, from /proc), at
    most 4 at any instant, also while kuotad is down;
  * no pod starts twice: each Job's command appends "start" to a file named
    after the Job, then "end"; every file holds at most one "start", and at
    the end every Job is Complete with succeeded 1, failed 0, its file exactly
    "start\\nend" (crash_start_test.sh's check, here at random instants);
  * no orphan: every process of this test carries KUOTA_FAULT_TAG=<tag> in its
    environment (kuotad's own, inherited by its keepers and pods). A command
    still running after kuotad reported its pod ended, or running for more
    than 3 s of one kuotad's life while that kuotad says its pod has not
    started, is an orphan; after the last, clean shutdown (SIGTERM, once
    every Job ended) no tagged process may remain.

About 1 in 5 kills lands during the start itself (recovery included), at a
random instant after exec; the others at a random instant 0.2-2 s after the
restarted kuotad answers. kuotad runs with its default durability (every write
synced before it is acknowledged).

Talks to kuotad only through the kubeconfig it writes (kuota_client.py).
Prints one summary line:
  fault: K kills, 0 acknowledged objects lost (of N), 0 over-commits (M samples), 0 double starts, 0 orphans
and exits non-zero when any count is not 0 or a check failed.

Usage: kill_restart_test.py PATH/TO/kuotad [KILLS] [--seed S] [--keep]
"""
import argparse
import http.client
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kuota_client import KubeClient, Kubeconfig, KubeconfigError  # noqa: E402

NS = "fault"
CQ = "fault-cq"
LQ = "fault-lq"
QUOTA_MILLIS = 1000
JOB_MILLIS = 250
SLOTS = QUOTA_MILLIS // JOB_MILLIS
BACKLOG = 12  # Jobs created but not yet ended, at most (so the end drains quickly)
NET_ERRORS = (OSError, http.client.HTTPException)


def log(msg):
    print(msg, flush=True)


def millis(q):
    """A CPU quantity ("250m", "1", "0.5") in millicores."""
    q = str(q)
    if q.endswith("m"):
        return int(q[:-1])
    return int(round(float(q) * 1000))


def cond(obj, type_):
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == type_:
            return c.get("status")
    return None


class Kuotad:
    """One kuotad after another on the same data directory."""

    def __init__(self, binary, tmp, tag):
        self.binary = binary
        self.tmp = tmp
        self.kubeconfig = os.path.join(tmp, "kubeconfig")
        self.log_path = os.path.join(tmp, "kuotad.log")
        self.env = dict(os.environ, KUOTA_FAULT_TAG=tag)
        self.proc = None
        self.generation = 0

    def start(self):
        if os.path.exists(self.kubeconfig):
            os.unlink(self.kubeconfig)
        self.generation += 1
        with open(self.log_path, "a") as out:
            out.write("=== start %d\n" % self.generation)
            out.flush()
            self.proc = subprocess.Popen(
                [self.binary, "--data-dir", os.path.join(self.tmp, "data"), "--port", "0",
                 "--kubeconfig-out", self.kubeconfig, "--gpus", "0", "--no-cgroups"],
                stdout=out, stderr=subprocess.STDOUT, env=self.env)

    def wait_ready(self, timeout):
        """The Kubeconfig once kuotad answers /healthz through it; None when it
        exited or did not answer in time."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return None
            try:
                cfg = Kubeconfig(self.kubeconfig)
                if KubeClient(cfg, timeout=2).get("/healthz").status == 200:
                    return cfg
            except (FileNotFoundError, KubeconfigError) + NET_ERRORS:
                pass
            time.sleep(0.02)
        return None

    def kill9(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        if self.proc:
            self.proc.wait()

    def stop(self, timeout=30):
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill9()
            return "hung"

    def tail(self, n=30):
        with open(self.log_path, errors="replace") as f:
            return "".join(f.readlines()[-n:])


def scan_processes(tag):
    """{pid: (start time, job or None, cmdline)} of the processes carrying the tag."""
    want = b"KUOTA_FAULT_TAG=" + tag.encode()
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % entry, "rb") as f:
                env = f.read().split(b"\0")
            if want not in env:
                continue
            with open("/proc/%s/stat" % entry, "rb") as f:
                stat = f.read()
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if fields[0] == b"Z":
            continue
        job = None
        for e in env:
            if e.startswith(b"FAULT_JOB="):
                job = e[len(b"FAULT_JOB="):].decode()
        found[int(entry)] = (int(fields[19]), job, cmdline)
    return found


class Shared:
    def __init__(self):
        self.lock = threading.Lock()
        self.cfg = None          # the running kuotad's kubeconfig, None while down
        self.generation = 0
        self.stop = threading.Event()
        self.acked = {"jobs": [], "wpcs": []}
        self.unexpected = []     # answers other than 201 to a create


def job_body(name, out_dir, seconds):
    return {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": NS,
                     "labels": {"kueue.x-k8s.io/queue-name": LQ}},
        "spec": {"backoffLimit": 0, "template": {"spec": {
            "restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
            "containers": [{
                "name": "main", "image": "busybox",
                "command": ["sh", "-c",
                            'echo start >> "$0"; sleep "$1"; echo end >> "$0"',
                            os.path.join(out_dir, name), "%.2f" % seconds],
                "env": [{"name": "FAULT_JOB", "value": name}],
                "resources": {"requests": {"cpu": "%dm" % JOB_MILLIS}}}]}}}}


def writer(shared, kind, out_dir, rng):
    """Creates objects of one kind without pause, recording every 201: Jobs
    (at most BACKLOG not yet ended) or WorkloadPriorityClasses."""
    n = 0
    open_jobs = []
    while not shared.stop.is_set():
        with shared.lock:
            cfg = shared.cfg
        if cfg is None:
            time.sleep(0.01)
            continue
        if kind == "jobs":
            open_jobs = [j for j in open_jobs if not _ended(os.path.join(out_dir, j))]
            if len(open_jobs) >= BACKLOG:
                time.sleep(0.05)
                continue
        n += 1
        if kind == "jobs":
            name = "j%d" % n
            path = "/apis/batch/v1/namespaces/%s/jobs" % NS
            body = job_body(name, out_dir, rng.uniform(0.1, 0.8))
        else:
            name = "w%d" % n
            path = "/apis/kueue.x-k8s.io/v1beta1/workloadpriorityclasses"
            body = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
                    "metadata": {"name": name, "labels": {"fault-test": "yes"}},
                    "value": n}
        try:
            r = KubeClient(cfg, timeout=5).post(path, body)
        except NET_ERRORS:
            continue  # not acknowledged: it may or may not exist
        if r.status == 201:
            with shared.lock:
                shared.acked[kind].append(name)
            if kind == "jobs":
                open_jobs.append(name)
        else:
            with shared.lock:
                shared.unexpected.append("%s %s: %d %s" % (kind, name, r.status, r.message()))


def _ended(path):
    try:
        with open(path) as f:
            return "end" in f.read()
    except OSError:
        return False


class Sampler:
    """Quota at every sampled instant, and which pods kuotad tracks."""

    def __init__(self, shared, tag):
        self.shared = shared
        self.tag = tag
        self.samples = 0
        self.overcommits = []
        self.orphans = {}        # (pid, start) -> why
        self.untracked = {}      # (pid, start) -> (generation, since)
        self.max_waiting = 0
        self.max_running = 0

    def run(self):
        while not self.shared.stop.is_set():
            self.sample()
            time.sleep(0.1)

    def sample(self):
        procs = scan_processes(self.tag)
        running = {job for _, job, _ in procs.values() if job}
        self.samples += 1
        self.max_running = max(self.max_running, len(running))
        if len(running) > SLOTS:
            self.overcommits.append("%d Jobs' commands running at once: %s"
                                    % (len(running), sorted(running)))
        with self.shared.lock:
            cfg, gen = self.shared.cfg, self.shared.generation
        if cfg is None:
            return
        client = KubeClient(cfg, timeout=5)
        try:
            wls = client.get("/apis/kueue.x-k8s.io/v1beta1/namespaces/%s/workloads" % NS)
            cq = client.get("/apis/kueue.x-k8s.io/v1beta1/clusterqueues/" + CQ)
            pods = client.get("/api/v1/namespaces/%s/pods" % NS)
        except NET_ERRORS:
            return
        if wls.status != 200 or cq.status != 200 or pods.status != 200:
            return
        self.samples += 1
        reserved, waiting = 0, 0
        for wl in wls.json.get("items") or []:
            adm = (wl.get("status") or {}).get("admission")
            if cond(wl, "Finished") == "True":
                continue
            if not adm:
                waiting += 1
                continue
            for psa in adm.get("podSetAssignments") or []:
                reserved += millis((psa.get("resourceUsage") or {}).get("cpu", "0"))
        self.max_waiting = max(self.max_waiting, waiting)
        if reserved > QUOTA_MILLIS:
            self.overcommits.append("Workloads hold %dm CPU of %dm" % (reserved, QUOTA_MILLIS))
        for field in ("flavorsReservation", "flavorsUsage"):
            for fl in (cq.json.get("status") or {}).get(field) or []:
                for res in fl.get("resources") or []:
                    if res.get("name") == "cpu" and millis(res.get("total", "0")) > QUOTA_MILLIS:
                        self.overcommits.append("ClusterQueue %s cpu %s" % (field, res["total"]))
        phase = {}
        for pod in pods.json.get("items") or []:
            labels = pod["metadata"].get("labels") or {}
            job = labels.get("batch.kubernetes.io/job-name") or labels.get("job-name")
            phase.setdefault(job, []).append((pod.get("status") or {}).get("phase"))
        after = scan_processes(self.tag)
        now = time.monotonic()
        for pid, (start, job, cmd) in procs.items():
            if not job or after.get(pid, (None,))[0] != start:
                continue  # ended meanwhile
            key = (pid, start)
            phases = phase.get(job, [])
            if "Running" in phases:
                self.untracked.pop(key, None)
            elif phases and all(p in ("Succeeded", "Failed") for p in phases):
                self.orphans.setdefault(key, "Job %s's command (pid %d) runs after kuotad "
                                        "reported its pod %s" % (job, pid, phases))
            else:
                g, since = self.untracked.setdefault(key, (gen, now))
                if g != gen:
                    self.untracked[key] = (gen, now)
                elif now - since > 3:
                    self.orphans.setdefault(key, "Job %s's command (pid %d) runs; kuotad says "
                                            "its pods are %s for %.1f s" % (job, pid, phases,
                                                                             now - since))


def apply(client, path, body):
    r = client.post(path, body)
    if r.status not in (201, 409):
        raise RuntimeError("create %s: %d %s" % (path, r.status, r.message()))


def setup(cfg):
    c = KubeClient(cfg)
    apply(c, "/api/v1/namespaces",
          {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    k = "/apis/kueue.x-k8s.io/v1beta1/"
    apply(c, k + "resourceflavors", {"apiVersion": "kueue.x-k8s.io/v1beta1",
                                     "kind": "ResourceFlavor", "metadata": {"name": "local"}})
    apply(c, k + "clusterqueues", {
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
        "metadata": {"name": CQ},
        "spec": {"namespaceSelector": {}, "resourceGroups": [{
            "coveredResources": ["cpu"],
            "flavors": [{"name": "local", "resources": [
                {"name": "cpu", "nominalQuota": "%dm" % QUOTA_MILLIS}]}]}]}})
    apply(c, k + "namespaces/%s/localqueues" % NS, {
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
        "metadata": {"name": LQ, "namespace": NS}, "spec": {"clusterQueue": CQ}})


def stored_names(cfg):
    c = KubeClient(cfg, timeout=20)
    jobs = {j["metadata"]["name"]: j
            for j in c.list_all("/apis/batch/v1/namespaces/%s/jobs" % NS)}
    wpcs = {w["metadata"]["name"] for w in
            c.list_all("/apis/kueue.x-k8s.io/v1beta1/workloadpriorityclasses"
                       "?labelSelector=fault-test%3Dyes")}
    return jobs, wpcs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kuotad")
    ap.add_argument("kills", nargs="?", type=int, default=10)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("--drain-timeout", type=float, default=60)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    tag = "kuota-fault-%d-%d" % (os.getpid(), seed)
    tmp = tempfile.mkdtemp(prefix="kuota-fault-")
    out_dir = os.path.join(tmp, "out")
    os.makedirs(out_dir)
    kd = Kuotad(os.path.abspath(args.kuotad), tmp, tag)
    shared = Shared()
    sampler = Sampler(shared, tag)
    failures = []
    lost = set()
    t_begin = time.monotonic()
    log("fault: %d kills, seed %d, scratch %s" % (args.kills, seed, tmp))

    def check_acked(cfg, when):
        with shared.lock:
            want_jobs = list(shared.acked["jobs"])
            want_wpcs = list(shared.acked["wpcs"])
        jobs, wpcs = stored_names(cfg)
        missing = [j for j in want_jobs if j not in jobs] + [w for w in want_wpcs if w not in wpcs]
        if missing:
            failures.append("%s: acknowledged objects missing: %s" % (when, missing[:20]))
            lost.update(missing)
        return jobs

    def up(cfg):
        with shared.lock:
            shared.cfg, shared.generation = cfg, kd.generation

    def down():
        with shared.lock:
            shared.cfg = None

    threads = []
    kills = 0
    try:
        kd.start()
        cfg = kd.wait_ready(30)
        if cfg is None:
            raise RuntimeError("kuotad did not start:\n" + kd.tail())
        setup(cfg)
        up(cfg)
        threads = [threading.Thread(target=writer, daemon=True,
                                    args=(shared, kind, out_dir, random.Random(seed + i)))
                   for i, kind in enumerate(("jobs", "wpcs"))]
        threads.append(threading.Thread(target=sampler.run, daemon=True))
        for t in threads:
            t.start()
        while kills < args.kills:
            if kd.proc is None or kd.proc.poll() is not None or shared.cfg is None:
                kd.start()
                if kills > 0 and rng.random() < 0.2:
                    # A kill during the start (recovery, adoption, listening).
                    time.sleep(rng.uniform(0.0, 0.6))
                    if kd.proc.poll() is None:
                        kd.kill9()
                        kills += 1
                        continue
                cfg = kd.wait_ready(30)
                if cfg is None:
                    raise RuntimeError("kuotad %d did not start again (exit %s):\n%s"
                                       % (kd.generation, kd.proc.poll(), kd.tail()))
                check_acked(cfg, "after restart %d" % kd.generation)
                up(cfg)
            time.sleep(rng.uniform(0.2, 2.0))
            kd.kill9()
            down()
            kills += 1
        t_kills = time.monotonic() - t_begin

        # The end: one more start, the writer stops, every Job ends.
        kd.start()
        cfg = kd.wait_ready(30)
        if cfg is None:
            raise RuntimeError("the last kuotad did not start:\n" + kd.tail())
        up(cfg)
        time.sleep(1)
        shared.stop.set()
        for t in threads:
            t.join(30)
        deadline = time.monotonic() + args.drain_timeout
        while time.monotonic() < deadline:
            jobs = stored_names(cfg)[0]
            if all(cond(j, "Complete") == "True" or cond(j, "Failed") == "True"
                   for j in jobs.values()):
                break
            time.sleep(0.5)
        jobs = check_acked(cfg, "at the end")
        sampler.sample()  # the processes once more, kuotad up
        not_ok = []
        double, not_run = [], []
        for name, j in sorted(jobs.items()):
            st = j.get("status") or {}
            if not (cond(j, "Complete") == "True" and st.get("succeeded") == 1
                    and not st.get("failed")):
                not_ok.append("%s: succeeded=%s failed=%s Complete=%s Failed=%s" % (
                    name, st.get("succeeded"), st.get("failed"), cond(j, "Complete"),
                    cond(j, "Failed")))
        for name in sorted(os.listdir(out_dir)):
            with open(os.path.join(out_dir, name)) as f:
                lines = f.read().split()
            if lines.count("start") > 1:
                double.append("%s ran %d times" % (name, lines.count("start")))
        for name in jobs:
            if not os.path.exists(os.path.join(out_dir, name)):
                not_run.append(name)
        if not_ok:
            failures.append("%d of %d Jobs did not end Complete with succeeded 1, failed 0 "
                            "within %.0f s:\n%s" % (len(not_ok), len(jobs), args.drain_timeout,
                                                    "\n".join(not_ok[:20])))
        if not_run:
            failures.append("Jobs whose command never ran: %s" % not_run[:20])
        if double:
            failures.append("commands run twice:\n" + "\n".join(double))
        rc = kd.stop()
        if rc != 0:
            failures.append("kuotad's clean shutdown: exit %s" % rc)
        down()
        time.sleep(0.3)
        left = scan_processes(tag)
        for pid, (start, job, cmd) in left.items():
            sampler.orphans.setdefault((pid, start), "left after the clean shutdown: pid %d %s%s"
                                       % (pid, cmd[:100], " (Job %s)" % job if job else ""))
    except Exception as e:  # noqa: BLE001 (report, clean up, fail)
        failures.append("%s: %s" % (type(e).__name__, e))
        shared.stop.set()
    finally:
        shared.stop.set()
        kd.kill9()
        for pid in scan_processes(tag):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    with shared.lock:
        n_acked = len(shared.acked["jobs"]) + len(shared.acked["wpcs"])
        n_jobs = len(shared.acked["jobs"])
        unexpected = list(shared.unexpected)
    if unexpected:
        failures.append("creates answered other than 201 (%d):\n%s"
                        % (len(unexpected), "\n".join(unexpected[:10])))
    if sampler.overcommits:
        failures.append("over-commits:\n" + "\n".join(sampler.overcommits[:20]))
    if sampler.orphans:
        failures.append("orphans:\n" + "\n".join(list(sampler.orphans.values())[:20]))
    n_double = len(double) if "double" in locals() else 0
    for f in failures:
        log("FAIL " + f.replace("\n", "\n     | "))
    if failures:
        log("--- kuotad log (last lines)\n" + kd.tail(40))
    elapsed = time.monotonic() - t_begin
    log("     (%d Jobs and %d WorkloadPriorityClasses acknowledged; at most %d Jobs waiting and "
        "%d running at a sample; kill phase %.1f s, total %.1f s)"
        % (n_jobs, n_acked - n_jobs, sampler.max_waiting, sampler.max_running,
           t_kills if "t_kills" in locals() else -1, elapsed))
    log("fault: %d kills, %d acknowledged objects lost (of %d), %d over-commits (%d samples), "
        "%d double starts, %d orphans" % (kills, len(lost), n_acked, len(sampler.overcommits),
                                         sampler.samples, n_double, len(sampler.orphans)))
    if args.keep or failures:
        log("scratch kept: " + tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
