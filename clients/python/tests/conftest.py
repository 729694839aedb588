import os
import shutil
import subprocess

import pytest

pytest_plugins = ["pytester"]

def _installed():
    """Whether pytest finds the plugin by its entry point (pip installed it)."""
    try:
        from importlib.metadata import entry_points
        eps = entry_points()
        group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
        return any(e.name == "imgscale_golden" for e in group)
    except Exception:
        return False


# Installed, pytest loads it itself; from the source tree it is named. Each in-process
# run imports its plugins anew: hypothesis's alone took 0.65 s a run, so the suites these
# tests make run without the heavy ones a machine may have.
PLUGIN = ([] if _installed() else ["-p", "imgscale_golden.plugin"]) + ["-p", "no:hypothesispytest", "-p", "no:benchmark"]

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


@pytest.fixture(scope="session")
def imgscale():
    path = os.environ.get("IMGSCALE") or shutil.which("imgscale") or os.path.join(ROOT, ".build", "release", "imgscale")
    assert os.path.exists(path), "imgscale is not built; set IMGSCALE"
    return path


@pytest.fixture(scope="session")
def images(imgscale, tmp_path_factory):
    """Two 64x64 pictures that differ, and a copy of the first."""
    d = tmp_path_factory.mktemp("images")
    for name, src in [("scene", "scene-640x427.png"), ("strokes", "strokes-130x90.png")]:
        subprocess.run([imgscale, "fill", "--size", "64x64", os.path.join(ROOT, "TestImages", src), "-o", str(d / (name + ".png"))], check=True)
    shutil.copyfile(d / "scene.png", d / "scene-copy.png")
    return d
