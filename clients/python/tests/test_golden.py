"""The Comparer and the pytest plugin, run as a user's suite would run them."""
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest

from imgscale_golden import Comparer, ComparerError
from conftest import PLUGIN

SUITE = """
import os
IMAGES = {images!r}
def test_home(golden):
    golden(os.path.join(IMAGES, {name!r}))
"""


def run(pytester, images, name, *args):
    pytester.makepyfile(test_ui=SUITE.format(images=str(images), name=name))
    return pytester.runpytest(*PLUGIN, *args)


def test_missing_golden_fails_and_says_how_to_record_it(pytester, images, imgscale, monkeypatch):
    monkeypatch.setenv("IMGSCALE", imgscale)
    r = run(pytester, images, "scene.png")
    r.assert_outcomes(failed=1)
    r.stdout.fnmatch_lines(["*no golden at */goldens/test_ui/test_home.png; record it with --update-goldens=missing*"])


def test_update_records_then_matches(pytester, images, imgscale, monkeypatch):
    monkeypatch.setenv("IMGSCALE", imgscale)
    run(pytester, images, "scene.png", "--update-goldens=missing").assert_outcomes(passed=1)
    assert (pytester.path / "goldens" / "test_ui" / "test_home.png").exists()
    run(pytester, images, "scene-copy.png").assert_outcomes(passed=1)


def test_failure_names_the_numbers_and_attaches_the_diff(pytester, images, imgscale, monkeypatch):
    monkeypatch.setenv("IMGSCALE", imgscale)
    run(pytester, images, "scene.png", "--update-goldens=missing").assert_outcomes(passed=1)
    r = run(pytester, images, "strokes.png", "--junitxml=report.xml")
    r.assert_outcomes(failed=1)
    r.stdout.fnmatch_lines(["*strokes.png differs from *test_home.png, * of 4096 pixels differ*diff: *test_home-diff.png*"])
    props = {p.get("name"): p.get("value") for p in ET.parse(pytester.path / "report.xml").iter("property")}
    assert os.path.exists(props["imgscale_diff_kept"]), props
    # --update-goldens=failed takes the new picture; then it matches.
    run(pytester, images, "strokes.png", "--update-goldens=failed").assert_outcomes(passed=1)
    run(pytester, images, "strokes.png").assert_outcomes(passed=1)


def test_bytes_and_pil_images(pytester, images, imgscale, monkeypatch):
    monkeypatch.setenv("IMGSCALE", imgscale)
    pytester.makepyfile(test_kinds="""
import os
def test_bytes(golden):
    golden(open(os.path.join({images!r}, "scene.png"), "rb").read())
def test_pil(golden):
    Image = __import__("pytest").importorskip("PIL.Image")
    golden(Image.open(os.path.join({images!r}, "scene.png")), name="pil", tolerance=1)
""".format(images=str(images)))
    r = pytester.runpytest(*PLUGIN, "--update-goldens=missing")
    assert r.ret == 0
    r = pytester.runpytest(*PLUGIN)
    assert r.ret == 0, r.stdout.str()


def test_server_killed_mid_suite_is_started_again_once(images, imgscale, tmp_path):
    a, b = str(images / "scene.png"), str(images / "scene-copy.png")
    with Comparer(binary=imgscale) as c:
        assert c.compare(a, b).ok
        c._proc.kill()          # the server dies between two requests
        c._proc.wait()
        assert c.compare(a, b).ok
        assert c.restarts == 1
    # A server that dies on every start: one restart, then an error naming the pair.
    dying = tmp_path / "dying-imgscale"
    dying.write_text("#!/bin/sh\necho 'simulated crash' >&2\nexit 134\n")
    dying.chmod(0o755)
    with Comparer(binary=str(dying)) as c:
        with pytest.raises(ComparerError, match=r"died twice comparing .*scene-copy.png with .*scene.png: simulated crash"):
            c.compare(a, b)
        assert c.restarts == 1


def test_thousand_comparisons_against_subprocess(images, imgscale):
    a, b = str(images / "scene.png"), str(images / "scene-copy.png")
    with Comparer(binary=imgscale) as c:
        c.compare(a, b)
        t = time.perf_counter()
        for _ in range(1000):
            assert c.compare(a, b).ok
        server = (time.perf_counter() - t) / 1000
    runs = 200
    t = time.perf_counter()
    for _ in range(runs):
        assert subprocess.run([imgscale, "compare", a, b], capture_output=True).returncode == 0
    alone = (time.perf_counter() - t) / runs
    ratio = server / alone
    sys.stderr.write("imgscale_golden: 1000 comparisons through one Comparer at %.3f ms each; `imgscale compare` "
                     "as a subprocess %.3f ms (%d runs): %.3fx\n" % (server * 1000, alone * 1000, runs, ratio))
    assert ratio <= 0.2


def test_platform_template_through_the_server_and_the_plugin(pytester, images, imgscale, tmp_path, monkeypatch):
    import shutil
    from imgscale_golden import golden_path
    g = tmp_path / "g"
    (g / "darwin").mkdir(parents=True)
    shutil.copyfile(images / "scene.png", g / "home.png")
    shutil.copyfile(images / "strokes.png", g / "darwin" / "home.png")
    t = "{dir}/{platform}/{path}"
    with Comparer(binary=imgscale, goldens_template=t, platform="darwin") as c:
        r = c.compare(g / "home.png", images / "scene.png")
        assert (r.verdict, r.golden) == ("differ", "platform"), r.data
    with Comparer(binary=imgscale, goldens_template=t, platform="linux", fallback=True) as c:
        r = c.compare(g / "home.png", images / "scene.png")
        assert (r.verdict, r.golden) == ("match", "fallback"), r.data
    with Comparer(binary=imgscale, goldens_template=t, platform="linux") as c:
        assert c.compare(g / "home.png", images / "scene.png").verdict == "missing"
    assert golden_path("goldens/home.png", t, "darwin") == "goldens/darwin/home.png"
    # The plugin records and checks the platform's own golden.
    monkeypatch.setenv("IMGSCALE", imgscale)
    args = ("--goldens-template", t, "--golden-platform", "darwin")
    run(pytester, images, "scene.png", "--update-goldens=missing", *args).assert_outcomes(passed=1)
    assert (pytester.path / "goldens" / "test_ui" / "darwin" / "test_home.png").exists()
    run(pytester, images, "scene.png", *args).assert_outcomes(passed=1)
    run(pytester, images, "scene.png", "--goldens-template", t, "--golden-platform", "linux").assert_outcomes(failed=1)
    run(pytester, images, "scene.png", "--goldens-template", t, "--golden-platform", "linux", "--golden-fallback").assert_outcomes(failed=1)


def test_one_comparer_shared_by_threads(images, imgscale):
    import threading
    a, b, c = str(images / "scene.png"), str(images / "scene-copy.png"), str(images / "strokes.png")
    verdicts, errors = [], []
    with Comparer(binary=imgscale) as comparer:
        def work(k):
            try:
                for i in range(50):
                    other = c if (k + i) % 5 == 0 else b
                    r = comparer.compare(a, other)
                    verdicts.append((other == c, r.verdict, r.actual == other))
            except Exception as e:      # pragma: no cover - reported below
                errors.append(e)
        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors
    assert len(verdicts) == 400
    # Each answer is its own request's: the differing pairs differ, the others match.
    assert all((v == "differ") == differs and same for differs, v, same in verdicts)
