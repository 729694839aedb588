import XCTest
import TestReferences
import Foundation

/// `--linear` through the built imgscale: a black-and-white checkerboard shrinks to
/// linear light's mean grey (188), not gamma's 128; an 8-bit image through linear light
/// and back unscaled is itself; 16-bit output works the same way; and the camera photos
/// stay close to libvips 8.18's `thumbnail(linear=True)` (pyvips-binary), whose resize
/// kernel differs from Pillow's even in gamma space.
final class LinearTests: XCTestCase {
    func testCheckerboardRampAndSixteenBits() throws {
        let dir = CLI.tempDir()
        try python("""
            import os, subprocess
            import numpy as np
            from PIL import Image
            exe = os.environ['IMGSCALE']
            y, x = np.mgrid[0:64, 0:64]
            Image.fromarray((((x + y) % 2) * 255).astype(np.uint8)).convert('RGB').save('checker.png')
            Image.fromarray(np.arange(256, dtype=np.uint8).reshape(4, 64)).convert('RGB').save('ramp.png')
            for f, low in (('box', 188), ('bilinear', 187), ('lanczos', 187)):
                subprocess.run([exe, 'fit', '--size', '8x8', '--linear', '--filter', f, 'checker.png', '-o', f'c-{f}.png'], check=True)
                a = np.asarray(Image.open(f'c-{f}.png'))
                assert a.min() >= low and a.max() <= 188, (f, a.min(), a.max())
            subprocess.run([exe, 'fit', '--size', '8x8', 'checker.png', '-o', 'gamma.png'], check=True)
            assert np.asarray(Image.open('gamma.png')).max() <= 128
            subprocess.run([exe, 'fit', '--size', '64x4', '--linear', 'ramp.png', '-o', 'ramp-out.png'], check=True)
            assert np.array_equal(np.asarray(Image.open('ramp-out.png')), np.asarray(Image.open('ramp.png')))
            subprocess.run([exe, 'fit', '--size', '8x8', '--linear', '--depth', '16', '--filter', 'box', 'checker.png', '-o', 'c16.png'], check=True)
            import imagecodecs
            w = imagecodecs.png_decode(open('c16.png', 'rb').read())
            # Linear 0.5 in sRGB is 0.7354 of 65535.
            assert w.dtype == np.uint16 and abs(int(w.min()) - 48194) <= 40 and abs(int(w.max()) - 48194) <= 40, (w.min(), w.max())
            """, in: dir)
        let plan = CLI.run(["plan", "fill", "--size", "32x32", "--linear", dir + "/checker.png", "-o", dir + "/p.jpg"])
        XCTAssertTrue(plan.stdout.contains("sRGB to linear light (16-bit)") && plan.stdout.contains("linear light to sRGB (8-bit)"), plan.stdout)
    }

    /// An 8-bit image's rows go into the box reduction one at a time, taken to linear
    /// light on the way; a 16-bit file is reduced whole after its own decode. The same
    /// image as 8-bit and as 16-bit (v x 257) PNG must give the same bytes, alpha or not,
    /// over sizes that leave partial blocks.
    func testStreamedReductionEqualsWholeImage() throws {
        let dir = CLI.tempDir()
        try python("""
            import os, subprocess
            import numpy as np
            import imagecodecs
            exe = os.environ['IMGSCALE']
            rng = np.random.default_rng(7)
            for ch, mode in ((3, 'rgb'), (4, 'rgba'), (2, 'la')):
                a = rng.integers(0, 256, (203, 301, ch), dtype=np.uint8)
                if ch in (2, 4):
                    a[..., -1] = np.where(rng.random((203, 301)) < 0.2, 0, a[..., -1])
                open(f'{mode}8.png', 'wb').write(imagecodecs.png_encode(a))
                open(f'{mode}16.png', 'wb').write(imagecodecs.png_encode(a.astype(np.uint16) * 257))
                for op, size in (('fit', '37x'), ('fill', '20x9'), ('fit', '7x7'), ('fill', '150x100')):
                    outs = []
                    for bits in (8, 16):
                        out = f'{mode}-{bits}.png'
                        subprocess.run([exe, op, '--size', size, '--linear', '--filter', 'lanczos', '--depth', '8',
                                        f'{mode}{bits}.png', '-o', out], check=True)
                        outs.append(open(out, 'rb').read())
                    assert outs[0] == outs[1], (mode, op, size)
                plan = subprocess.run([exe, 'plan', 'fit', '--size', '37x', '--linear', f'{mode}8.png', '-o', 'x.png'],
                                      check=True, capture_output=True, text=True).stdout
                assert 'box average 4x4 blocks of 0,0,301,203' in plan, plan
            """, in: dir)
    }

    /// No shrink-on-load in linear light (a JPEG's result equals its full decode's, at
    /// every filter); then libvips 8.18, in the same geometry and in its own. Quality, not safety: the
    /// sanitizer passes skip it (full-size 12 MP decodes take minutes there).
    func testCameraPhotosAgainstLibvipsLinear() throws {
        let photos = CLI.testdata + "/photos"
        guard FileManager.default.fileExists(atPath: photos) else {
            throw missingReference("\(photos) is missing; no camera photos to hold to libvips")
        }
        guard ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] != "1" else {
            print("SKIPPED under the sanitizers: a quality comparison of full-size decodes")
            return
        }
        let dir = CLI.tempDir()
        try python("""
            import os, subprocess
            import numpy as np
            from PIL import Image
            try:
                import pyvips
            except ImportError:
                raise SystemExit('No module named pyvips')
            exe = os.environ['IMGSCALE']
            photos = '\(photos)'
            for p in sorted(f for f in os.listdir(photos) if f.endswith('.jpg')):
                path = os.path.join(photos, p)
                # Stored, not deflated: the same pixels and profile, a second less per photo.
                subprocess.run([exe, 'convert', '--no-auto-orient', '--compression', '0', path, '-o', 'full.png'], check=True)
                for op, size, f in (('fit', '64x', 'bilinear'), ('fill', '128x128', 'hamming'), ('fit', '200x', 'bicubic'), ('fill', '256x256', 'lanczos')):
                    args = [op, '--size', size, '--linear', '--filter', f, '--no-auto-orient']
                    subprocess.run([exe] + args + [path, '-o', 'sol.png'], check=True)
                    subprocess.run([exe] + args + ['full.png', '-o', 'nosol.png'], check=True)
                    a, b = (np.asarray(Image.open(n)) for n in ('sol.png', 'nosol.png'))
                    assert np.array_equal(a, b), (p, op, size, f)
                    plan = subprocess.run([exe, 'plan'] + args + [path, '-o', 'x.png'], check=True, capture_output=True, text=True).stdout
                    assert 'decode: 1/1' in plan, plan
            # libvips's fit scales both axes alike and invents the rows that rounds the
            # height to (5.4 of them on the wide photo: 1976 / 11.52 = 171.5 -> 172), where
            # imgscale maps the 172 rows onto the 1976 exactly, as Pillow and ImageMagick
            # do: size='force' asks libvips for that geometry. Its fill crops whole output
            # pixels after resizing (0.67 of one off centre for 64x48 of the rotated
            # photo), so the same geometry is its thumbnail of imgscale's centred crop.
            worst, default = 99, 99
            for p in sorted(f for f in os.listdir(photos) if f.endswith('.jpg')):
                path = os.path.join(photos, p)
                upright = pyvips.Image.new_from_file(path).autorot()
                for op, size in (('fit', '400x'), ('fill', '300x300'), ('fit', '1000x'), ('fill', '64x48'), ('fit', '32x'), ('fill', '200x100')):
                    subprocess.run([exe, op, '--size', size, '--linear', '--filter', 'lanczos', path, '-o', 'ours.png'], check=True)
                    ours = np.asarray(Image.open('ours.png').convert('RGB')).astype(float)
                    h, w = ours.shape[:2]
                    def psnr(v):
                        ref = np.ndarray(buffer=v.write_to_memory(), dtype=np.uint8, shape=[v.height, v.width, v.bands]).astype(float)[..., :3]
                        assert ref.shape == ours.shape, (p, op, ours.shape, ref.shape)
                        return 10 * np.log10(255 ** 2 / ((ours - ref) ** 2).mean())
                    if op == 'fit':
                        same = psnr(pyvips.Image.thumbnail(path, w, height=h, size='force', linear=True))
                        own = psnr(pyvips.Image.thumbnail(path, w, height=h * 10, linear=True))
                    else:
                        s = min(upright.width / w, upright.height / h)
                        box = [round((upright.width - w * s) / 2), round((upright.height - h * s) / 2), round(w * s), round(h * s)]
                        same = psnr(upright.crop(*box).thumbnail_image(w, height=h, size='force', linear=True))
                        own = psnr(pyvips.Image.thumbnail(path, w, height=h, crop='centre', linear=True))
                    print(p, op, size, round(same, 1), round(own, 1))
                    worst, default = min(worst, same), min(default, own)
                    if (op, size) in (('fit', '400x'), ('fill', '300x300')):
                        assert own >= 42, (p, op, size, own)
            # Measured 46.6-56.1 dB in the same geometry (the fills' box reaches past the
            # crop, as Pillow's does); in libvips's own 42.4-55.9 for 400x and 300x300.
            assert worst >= 45, worst
            """, in: dir)
    }
}
