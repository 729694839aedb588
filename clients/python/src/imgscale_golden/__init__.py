"""Golden-image comparisons through one long-lived ``imgscale compare --server``.

    from imgscale_golden import Comparer
    with Comparer() as c:
        r = c.compare("goldens/home.png", "out/home.png", threshold=0.1)
        assert r.ok, r.message

The binary is ``imgscale`` on PATH, or ``$IMGSCALE``, or the ``binary`` given. Limits are
the keys of a rules file (``tolerance``, ``threshold``, ``max_pixels_differ``,
``min_ssim``, ``max_delta_e``, ...), with underscores or dashes.
"""
import atexit
import json
import os
import shutil
import subprocess
import threading

__all__ = ["Comparer", "Result", "ComparerError", "compare", "platform_name", "golden_path"]


class ComparerError(RuntimeError):
    """The server could not be started, or died twice on one request."""


class Result:
    """One comparison's answer: ``verdict`` (match, differ, missing, error), the numbers
    as the server's JSON gives them (``data``), the diff image's path when one was
    written, and a one-line ``message``."""

    def __init__(self, data, expected, actual, diff=None):
        self.data = data
        self.expected = expected
        self.actual = actual
        self.diff = diff if diff and os.path.exists(diff) else None
        self.verdict = data.get("result", "error")
        self.golden = data.get("golden")

    @property
    def ok(self):
        return self.verdict == "match"

    @property
    def message(self):
        d = self.data
        if self.verdict == "match":
            return "%s matches %s" % (self.actual, self.expected)
        if self.verdict == "error":
            return "%s: %s" % (self.actual, d.get("error", "error"))
        parts = ["%s differs from %s" % (self.actual, self.expected)]
        if "differing_pixels" in d and "compared_pixels" in d:
            parts.append("%s of %s pixels differ" % (d["differing_pixels"], d["compared_pixels"]))
        if d.get("max_difference") is not None:
            parts.append("max difference %s" % d["max_difference"])
        failed = [x for x in d.get("decided_by", []) if not x.get("held", True)]
        if failed:
            parts.append("; ".join("%s %s over %s" % (x["limit"], x["value"], x["bound"]) for x in failed))
        if self.diff:
            parts.append("diff: %s" % self.diff)
        return ", ".join(parts)

    def __repr__(self):
        return "Result(%r, %r, %r)" % (self.verdict, self.expected, self.actual)


def _binary(given=None):
    path = given or os.environ.get("IMGSCALE") or shutil.which("imgscale")
    if not path:
        raise ComparerError("imgscale is not on PATH; install it, or set IMGSCALE or Comparer(binary=...)")
    return path


def platform_name():
    """The platform a golden is recorded for: linux, darwin, win32 (as sys.platform, the
    same name imgscale compare --platform defaults to)."""
    import sys
    return "linux" if sys.platform.startswith("linux") else sys.platform


def golden_path(path, template=None, platform=None):
    """The platform's golden for the plain golden ``path`` through a template such as
    ``{dir}/{platform}/{path}`` ({dir}: the golden's directory, {path}: its name)."""
    if not template:
        return path
    d, name = os.path.split(path)
    return template.replace("{dir}", d or ".").replace("{platform}", platform or platform_name()).replace("{path}", name)


class Comparer:
    """One ``imgscale compare --server`` for many comparisons. Thread-safe: requests are
    sent and answered one at a time under a lock. A server that dies is started again
    once for the request it died on; a second death raises ComparerError naming the pair.
    Closed at exit, or by ``close()`` or ``with``."""

    def __init__(self, binary=None, args=(), goldens_template=None, platform=None, fallback=False):
        self._binary = _binary(binary)
        self._args = list(args)
        if goldens_template:
            self._args += ["--goldens-template", goldens_template]
        if platform:
            self._args += ["--platform", platform]
        if fallback:
            self._args += ["--fallback"]
        self._lock = threading.Lock()
        self._proc = None
        self.restarts = 0
        atexit.register(self.close)

    def _start(self):
        try:
            self._proc = subprocess.Popen([self._binary, "compare", "--server"] + self._args, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as e:
            raise ComparerError("cannot start %s: %s" % (self._binary, e))

    def _ask(self, line):
        if self._proc is not None and self._proc.poll() is not None:
            # Found dead between requests: started again, and counted.
            self._proc = None
            self.restarts += 1
        if self._proc is None:
            self._start()
        p = self._proc
        try:
            p.stdin.write(line)
            p.stdin.flush()
            answer = p.stdout.readline()
        except (BrokenPipeError, OSError):
            answer = b""
        if not answer:
            p.kill()
            p.wait()
            err = p.stderr.read().decode(errors="replace").strip()
            self._proc = None
            return None, err
        return json.loads(answer), None

    def compare(self, expected, actual, diff=None, **limits):
        """Compares ``actual`` with the golden ``expected``; a Result."""
        request = {"expected": os.fspath(expected), "actual": os.fspath(actual)}
        if diff is not None:
            request["diff"] = os.fspath(diff)
        if limits:
            request["options"] = {k.replace("-", "_"): v for k, v in limits.items()}
        line = (json.dumps(request) + "\n").encode()
        with self._lock:
            data, err = self._ask(line)
            if data is None:
                # Started again once: a crash that was the server's, not the pair's, passes.
                self.restarts += 1
                data, err2 = self._ask(line)
                if data is None:
                    raise ComparerError("imgscale compare --server died twice comparing %s with %s%s"
                                        % (actual, expected, (": " + (err2 or err)) if (err2 or err) else ""))
        return Result(data, os.fspath(expected), os.fspath(actual), request.get("diff"))

    def close(self):
        with self._lock:
            p, self._proc = self._proc, None
        if p is not None and p.poll() is None:
            try:
                p.stdin.close()
            except OSError:
                pass
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if p is not None:
            for f in (p.stdout, p.stderr):
                f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_shared = None
_shared_lock = threading.Lock()


def compare(expected, actual, diff=None, **limits):
    """``Comparer().compare`` through one Comparer shared by the process."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Comparer()
    return _shared.compare(expected, actual, diff=diff, **limits)
