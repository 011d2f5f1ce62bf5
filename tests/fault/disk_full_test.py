#!/usr/bin/env python3
"""Fault test (issue 10): the disk holding kuotad's data directory fills up.

The data directory is a small tmpfs mounted for the test (root only: the test
says so and fails when it cannot mount). A writer creates
WorkloadPriorityClasses carrying a large annotation until kuotad refuses one,
and checks:

  * the refusal is 507 InsufficientStorage (or 500) with a message that says
    the disk is full, never a dropped connection: kuotad stays up and keeps
    answering reads while the disk is full;
  * nothing acknowledged is lost: every create answered 201 is listed while
    the disk is full, after space returns, and after a SIGKILL and restart;
  * kuotad recovers by itself when space returns (the tmpfs is grown with
    `mount -o remount,size=`): writes succeed again without a restart;
  * its log shows no crash or sanitizer report.

Prints one summary line:
  disk full: N acknowledged before the disk filled, 0 lost, refused with CODE (MESSAGE), writes resumed after space returned

Usage: disk_full_test.py PATH/TO/kuotad
"""
import http.client
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kuota_client import KubeClient, Kubeconfig, KubeconfigError  # noqa: E402

WPC = "/apis/kueue.x-k8s.io/v1beta1/workloadpriorityclasses"
SMALL = "4m"     # the tmpfs while filling
LARGE = "64m"    # after space returns
PAYLOAD = 100_000  # bytes of annotation per object
NET_ERRORS = (OSError, http.client.HTTPException)

failures = []


def check(ok, name, detail=""):
    print(("ok   " if ok else "FAIL ") + name + (("\n     | " + detail) if detail and not ok else ""))
    if not ok:
        failures.append(name)
    return ok


def wpc(name, payload=0):
    obj = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
           "metadata": {"name": name}, "value": 100}
    if payload:
        obj["metadata"]["annotations"] = {"kuota.dev/fill": "x" * payload}
    return obj


class Kuotad:
    def __init__(self, binary, tmp, data):
        self.binary, self.tmp, self.data = binary, tmp, data
        self.kubeconfig = os.path.join(tmp, "kubeconfig")
        self.log_path = os.path.join(tmp, "kuotad.log")
        self.proc = None

    def start(self):
        if os.path.exists(self.kubeconfig):
            os.unlink(self.kubeconfig)
        with open(self.log_path, "a") as out:
            self.proc = subprocess.Popen(
                [self.binary, "--data-dir", self.data, "--port", "0",
                 "--kubeconfig-out", self.kubeconfig, "--gpus", "0", "--no-cgroups"],
                stdout=out, stderr=subprocess.STDOUT)

    def client(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return None
            try:
                c = KubeClient(Kubeconfig(self.kubeconfig), timeout=10)
                if c.get("/healthz").status == 200:
                    return c
            except (FileNotFoundError, KubeconfigError) + NET_ERRORS:
                pass
            time.sleep(0.05)
        return None

    def log(self, n=30):
        with open(self.log_path, errors="replace") as f:
            return "".join(f.readlines()[-n:])


def listed(client):
    return {item["metadata"]["name"] for item in client.list_all(WPC)}


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    binary = os.path.abspath(sys.argv[1])
    if os.geteuid() != 0:
        print("FAIL disk_full_test.py mounts a tmpfs for kuotad's data directory: run it as root")
        return 1
    tmp = tempfile.mkdtemp(prefix="kuota-diskfull-")
    data = os.path.join(tmp, "data")
    os.mkdir(data)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + SMALL, "tmpfs", data],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        print("FAIL mount a %s tmpfs at %s: %s" % (SMALL, data, mounted.stderr.strip()))
        shutil.rmtree(tmp, ignore_errors=True)
        return 1
    kuotad = Kuotad(binary, tmp, data)
    try:
        return run(kuotad, data)
    finally:
        if kuotad.proc and kuotad.proc.poll() is None:
            kuotad.proc.kill()
            kuotad.proc.wait()
        subprocess.run(["umount", data], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def run(kuotad, data):
    kuotad.start()
    c = kuotad.client()
    if not check(c is not None, "kuotad starts on a %s tmpfs" % SMALL, kuotad.log()):
        return 1

    # Fill the disk.
    acked, refusal = [], None
    for i in range(400):  # 40 MB at most: far past a 4 MB tmpfs
        name = "fill-%03d" % i
        try:
            r = c.post(WPC, wpc(name, PAYLOAD))
        except NET_ERRORS as e:
            check(False, "a create on a full disk gets an answer", "%s: %r" % (name, e))
            break
        if r.status == 201:
            acked.append(name)
            continue
        refusal = r
        break
    check(refusal is not None, "the disk fills and a create is refused",
          "%d objects acknowledged, none refused" % len(acked))
    if refusal is None:
        return 1
    msg = refusal.message()
    check(refusal.status in (507, 500), "the refusal is 507 (or 500)",
          "%d %s" % (refusal.status, msg))
    check("space" in msg or "full" in msg, "its message says the disk is full", msg)
    check(len(acked) > 0, "objects were acknowledged before the disk filled")

    # Full, kuotad still answers; a few more tries change nothing acknowledged.
    for i in range(5):
        try:
            r = c.post(WPC, wpc("more-%d" % i, PAYLOAD))
            if r.status == 201:
                acked.append("more-%d" % i)
        except NET_ERRORS as e:
            check(False, "kuotad answers while the disk is full", repr(e))
    check(kuotad.proc.poll() is None, "kuotad is still running with the disk full", kuotad.log())
    if kuotad.proc.poll() is not None:
        return 1
    have = listed(c)
    lost = [n for n in acked if n not in have]
    check(not lost, "every acknowledged object is listed while the disk is full",
          "lost: %s" % lost[:10])

    # Space returns: writes resume without a restart.
    grown = subprocess.run(["mount", "-o", "remount,size=" + LARGE, data],
                           capture_output=True, text=True)
    check(grown.returncode == 0, "the tmpfs grows to " + LARGE, grown.stderr)
    resumed, last = False, None
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            last = c.post(WPC, wpc("after", PAYLOAD))
            if last.status in (201, 409):
                resumed = True
                acked.append("after")
                break
        except NET_ERRORS as e:
            last = e
        time.sleep(0.2)
    check(resumed, "writes resume when space returns (no restart)",
          "%s" % (last.message() if hasattr(last, "message") else repr(last)))

    # And survive a crash.
    kuotad.proc.send_signal(signal.SIGKILL)
    kuotad.proc.wait()
    kuotad.start()
    c = kuotad.client()
    if not check(c is not None, "kuotad restarts on the same data directory", kuotad.log()):
        return 1
    have = listed(c)
    lost_after = [n for n in acked if n not in have]
    check(not lost_after, "every acknowledged object is there after SIGKILL and restart",
          "lost: %s" % lost_after[:10])
    kuotad.proc.send_signal(signal.SIGTERM)
    try:
        kuotad.proc.wait(30)
    except subprocess.TimeoutExpired:
        check(False, "kuotad stops on SIGTERM")
    with open(kuotad.log_path, errors="replace") as f:
        log = f.read()
    bad = [l for l in log.splitlines()
           if "AddressSanitizer" in l or "runtime error:" in l or "terminate called" in l]
    check(not bad, "kuotad's log shows no crash or sanitizer report", "\n".join(bad[:5]))

    print("disk full: %d acknowledged before the disk filled, %d lost, refused with %d (%s), "
          "writes %s after space returned"
          % (len([n for n in acked if n.startswith("fill-")]), len(set(lost) | set(lost_after)),
             refusal.status, msg[:160], "resumed" if resumed else "did NOT resume"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
