# Golden tests of thumbnails with pytest: pip install ./clients/python, then
#   pytest --update-goldens=missing   # the first run records goldens/...
#   pytest                            # later runs compare with them
import os
import subprocess

IMGSCALE = os.environ.get("IMGSCALE", "imgscale")
PICTURE = os.environ.get("PICTURE", "TestImages/scene-640x427.jpg")


def thumbnail(tmp_path, size):
    out = tmp_path / ("thumb-%s.png" % size)
    subprocess.run([IMGSCALE, "fill", "--size", size, PICTURE, "-o", str(out)], check=True)
    return out


def test_square(golden, tmp_path):
    golden(thumbnail(tmp_path, "64x64"))


def test_wide(golden, tmp_path):
    # Limits as a rules file names them: 1 level of tolerance, 0.5% of the pixels.
    golden(thumbnail(tmp_path, "96x54"), tolerance=1, max_pixels_differ="0.5%")


def test_comparer_directly(tmp_path):
    from imgscale_golden import Comparer
    a, b = thumbnail(tmp_path, "32x32"), thumbnail(tmp_path, "32x32")
    with Comparer() as c:
        result = c.compare(a, b)
    assert result.ok, result.message
