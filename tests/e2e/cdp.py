#!/usr/bin/env python3
"""Headless Chromium driven over the Chrome DevTools Protocol, on a pipe
(--remote-debugging-pipe: commands on the browser's fd 3, replies on its fd 4,
each a JSON message ended by a NUL byte), so that no websocket client is needed.

As a module (tests/e2e/ui_test.py):
    with Chromium() as browser:
        browser.open("https://127.0.0.1:8080/ui#token=...")
        browser.evaluate("document.title")
As a command (scripts/ui_screenshot.sh):
    cdp.py screenshot URL OUT.png [WIDTH HEIGHT [READY_JS [SETTLE_S]]]
"""
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class CdpError(RuntimeError):
    pass


class Chromium:
    def __init__(self, width=1400, height=1000, binary=None, log_path=None):
        binary = binary or find_chromium()
        if binary is None:
            raise CdpError("chromium is not installed (Debian: apt-get install chromium)")
        self.profile = tempfile.mkdtemp(prefix="kuota-chromium-")
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        # Out of the way of 3 and 4, which the child's dup2 overwrites.
        child_in = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
        child_out = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
        os.close(to_browser_r)
        os.close(from_browser_w)

        def child_fds():
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        args = [binary, "--headless", "--remote-debugging-pipe", "--ignore-certificate-errors",
                "--user-data-dir=" + self.profile, "--window-size=%d,%d" % (width, height),
                "--no-first-run", "--no-default-browser-check", "--disable-gpu",
                "--disable-dev-shm-usage", "--disable-extensions", "--hide-scrollbars",
                "--mute-audio", "--disable-background-networking",
                # The sandbox refuses root and needs user namespaces that
                # containers often lack; the pages opened here are our own.
                "--no-sandbox", "about:blank"]
        self.log = open(log_path or os.devnull, "ab")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=self.log, pass_fds=(3, 4), preexec_fn=child_fds)
        os.close(child_in)
        os.close(child_out)
        self.write_fd = to_browser_w
        self.read_fd = from_browser_r
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None
        self.on_event = None  # called with each event as it arrives (may post(), not send())
        self.width, self.height = width, height
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                raise CdpError("no reply from chromium in time")
            ready, _, _ = select.select([self.read_fd], [], [], 0.5)
            if not ready:
                if self.proc.poll() is not None:
                    raise CdpError("chromium exited with status %s" % self.proc.returncode)
                continue
            chunk = os.read(self.read_fd, 1 << 20)
            if not chunk:
                raise CdpError("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def post(self, method, params=None, session=True):
        """Sends a command; its reply is not waited for. Returns its id."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        return self.next_id

    def send(self, method, params=None, session=True, timeout=30):
        """Sends a command and returns its result."""
        want = self.post(method, params, session)
        deadline = time.time() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == want:
                if "error" in reply:
                    raise CdpError("%s: %s" % (method, reply["error"].get("message")))
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)
                if self.on_event:
                    self.on_event(reply)

    def open(self, url, timeout=30):
        self.send("Page.navigate", {"url": url})
        self.wait_for("document.readyState === 'complete'", timeout)

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page (JSON-serializable)."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise CdpError("JavaScript error: %s" % details.get("exception", {}).get(
                "description", details.get("text")))
        return result["result"].get("value")

    def wait_for(self, expression, timeout=20):
        """Polls `expression` until it is truthy; returns its value, or None on timeout."""
        deadline = time.time() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.time() > deadline:
                return None
            time.sleep(0.1)

    def console_errors(self):
        out = []
        for e in self.events:
            if e.get("method") == "Runtime.exceptionThrown":
                out.append(e["params"]["exceptionDetails"].get("exception", {}).get(
                    "description", e["params"]["exceptionDetails"].get("text")))
            elif (e.get("method") == "Runtime.consoleAPICalled"
                  and e["params"].get("type") == "error"):
                out.append(" ".join(str(a.get("value", a.get("description", "")))
                                    for a in e["params"].get("args", [])))
        return out

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", {"format": "png", "clip": {
            "x": 0, "y": 0, "width": self.width, "height": self.height, "scale": 1}})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except (CdpError, OSError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.write_fd, self.read_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def main(argv):
    if len(argv) < 4 or argv[1] != "screenshot":
        print(__doc__, file=sys.stderr)
        return 2
    url, out = argv[2], argv[3]
    width = int(argv[4]) if len(argv) > 4 else 1400
    height = int(argv[5]) if len(argv) > 5 else 1000
    ready = argv[6] if len(argv) > 6 else "true"
    settle = float(argv[7]) if len(argv) > 7 else 1.0
    with Chromium(width, height) as browser:
        browser.open(url)
        if not browser.wait_for(ready, 30):
            print("cdp.py: the page was not ready (%s)" % ready, file=sys.stderr)
            return 1
        time.sleep(settle)
        browser.screenshot(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
