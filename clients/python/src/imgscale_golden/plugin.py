"""pytest plugin: the ``golden`` fixture asserts an image against ``goldens/<test id>.png``.

    def test_home(golden):
        golden(render_home())                 # a path, PNG bytes, or a PIL image
        golden("out/menu.png", name="menu", threshold=0.1, max_pixels_differ="0.5%")

``<test id>`` is the test's node id with ``.py`` dropped and ``::`` made ``/``
(``tests/test_ui.py::test_home[dark]`` is ``goldens/tests/test_ui/test_home[dark].png``);
``name`` adds ``-name``. Options: ``--update-goldens=missing|failed|all`` records goldens
that are missing, that failed, or all; ``--goldens DIR`` (default ``goldens`` under the
rootdir), ``--goldens-template '{dir}/{platform}/{path}'``, ``--golden-platform NAME``,
``--golden-fallback``, ``--imgscale PATH``. A failure's message names the diff image,
which is also attached to the report (a ``user_properties`` entry, in JUnit XML too).
"""
import os
import re
import shutil
import tempfile

import pytest

from . import Comparer, golden_path


def pytest_addoption(parser):
    g = parser.getgroup("imgscale-golden")
    g.addoption("--update-goldens", choices=["missing", "failed", "all"], default=None,
                help="record goldens: missing ones, failed ones, or all")
    g.addoption("--goldens", default=None, help="the goldens directory (default: goldens under the rootdir)")
    g.addoption("--goldens-template", default=None, help="a platform's golden: '{dir}/{platform}/{path}'")
    g.addoption("--golden-platform", default=None, help="the platform in --goldens-template (default: this one)")
    g.addoption("--golden-fallback", action="store_true", help="use the plain golden where the platform's is missing")
    g.addoption("--imgscale", default=None, help="the imgscale binary (default: $IMGSCALE, then PATH)")


class _Session:
    def __init__(self, config):
        self.config = config
        self.comparer = None
        self.scratch = tempfile.mkdtemp(prefix="imgscale-golden-")

    def get(self):
        if self.comparer is None:
            o = self.config.getoption
            self.comparer = Comparer(binary=o("--imgscale"))
        return self.comparer

    def close(self):
        if self.comparer is not None:
            self.comparer.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


def pytest_configure(config):
    config._imgscale_golden = _Session(config)


def pytest_unconfigure(config):
    s = getattr(config, "_imgscale_golden", None)
    if s is not None:
        s.close()


def _test_id(nodeid):
    path, _, rest = nodeid.partition("::")
    if path.endswith(".py"):
        path = path[:-3]
    ident = path + ("/" + rest.replace("::", "/") if rest else "")
    return re.sub(r"[^A-Za-z0-9._\-/\[\]=,+]", "_", ident)


def _as_file(image, scratch, stem):
    """A path to the image: as given, or written to the scratch directory."""
    if isinstance(image, (str, os.PathLike)):
        return os.fspath(image)
    out = os.path.join(scratch, re.sub(r"[^A-Za-z0-9._-]", "_", stem) + ".png")
    if isinstance(image, (bytes, bytearray, memoryview)):
        with open(out, "wb") as f:
            f.write(bytes(image))
        return out
    save = getattr(image, "save", None)
    if save is not None:      # a PIL image, when Pillow is there
        save(out, format="PNG")
        return out
    raise TypeError("golden() takes a path, PNG bytes or a PIL image, not %s" % type(image).__name__)


@pytest.fixture
def golden(request):
    """``golden(image, name=None, **limits)``: asserts ``image`` against its golden."""
    config = request.config
    session = config._imgscale_golden
    o = config.getoption
    update = o("--update-goldens")
    root = o("--goldens") or os.path.join(str(config.rootpath), "goldens")
    template, platform, fallback = o("--goldens-template"), o("--golden-platform"), o("--golden-fallback")
    ident = _test_id(request.node.nodeid)

    def check(image, name=None, **limits):
        stem = ident + ("-" + name if name else "")
        plain = os.path.join(root, stem + ".png")
        path = golden_path(plain, template, platform)
        actual = _as_file(image, session.scratch, stem.replace("/", "__"))
        if not os.path.exists(path) and fallback and template and os.path.exists(plain):
            path = plain
        if not os.path.exists(path):
            if update in ("missing", "all"):
                _record(actual, path)
                return None
            pytest.fail("no golden at %s; record it with --update-goldens=missing" % path, pytrace=False)
        if update == "all":
            _record(actual, path)
            return None
        diff = os.path.join(session.scratch, stem.replace("/", "__") + "-diff.png")
        result = session.get().compare(path, actual, diff=diff, **limits)
        if result.ok:
            return result
        if update == "failed":
            _record(actual, path)
            return result
        if result.diff:
            request.node.user_properties.append(("imgscale_diff", result.diff))
            kept = _keep(config, result.diff, stem)
            request.node.user_properties.append(("imgscale_diff_kept", kept))
            result.diff = kept
        pytest.fail(result.message, pytrace=False)

    return check


def _record(actual, path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp-imgscale"
    shutil.copyfile(actual, tmp)
    os.replace(tmp, path)


def _keep(config, diff, stem):
    """The diff, kept past the session under .imgscale-golden/ beside the goldens."""
    out = os.path.join(str(config.rootpath), ".imgscale-golden", stem + "-diff.png")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    shutil.copyfile(diff, out)
    return out


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    for key, value in item.user_properties:
        if key == "imgscale_diff_kept" and report.when == "call":
            report.sections.append(("imgscale diff", value))
