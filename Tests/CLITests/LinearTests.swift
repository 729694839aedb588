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

    /// Shrink-on-load in linear light (at most 1/4, twice the filter's room) against a
    /// full-size decode in linear light; then libvips. Quality, not safety: the
    /// sanitizer passes skip it (full-size 12 MP decodes take minutes there).
    func testCameraPhotosAgainstLibvipsLinear() throws {
        let photos = CLI.testdata + "/photos"
        guard FileManager.default.fileExists(atPath: photos) else {
            print("SKIPPED: \(photos) is missing")
            return
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
            worst = 99
            for p in sorted(f for f in os.listdir(photos) if f.endswith('.jpg')):
                path = os.path.join(photos, p)
                subprocess.run([exe, 'convert', '--no-auto-orient', path, '-o', 'full.png'], check=True)
                for op, size, f in (('fit', '64x', 'bilinear'), ('fill', '128x128', 'hamming'), ('fit', '200x', 'bicubic'), ('fill', '256x256', 'lanczos')):
                    args = [op, '--size', size, '--linear', '--filter', f, '--no-auto-orient']
                    subprocess.run([exe] + args + [path, '-o', 'sol.png'], check=True)
                    subprocess.run([exe] + args + ['full.png', '-o', 'nosol.png'], check=True)
                    a, b = (np.asarray(Image.open(n)).astype(float) for n in ('sol.png', 'nosol.png'))
                    mse = ((a - b) ** 2).mean()
                    assert mse == 0 or 10 * np.log10(255 ** 2 / mse) >= 40, (p, op, size, f, 10 * np.log10(255 ** 2 / mse))
            for p in sorted(f for f in os.listdir(photos) if f.endswith('.jpg')):
                path = os.path.join(photos, p)
                for op, size in (('fit', '400x'), ('fill', '300x300')):
                    subprocess.run([exe, op, '--size', size, '--linear', '--filter', 'lanczos', path, '-o', 'ours.png'], check=True)
                    ours = np.asarray(Image.open('ours.png').convert('RGB')).astype(float)
                    h, w = ours.shape[:2]
                    v = pyvips.Image.thumbnail(path, w, height=h * 10, linear=True) if op == 'fit' else \\
                        pyvips.Image.thumbnail(path, w, height=h, crop='centre', linear=True)
                    ref = np.ndarray(buffer=v.write_to_memory(), dtype=np.uint8, shape=[v.height, v.width, v.bands]).astype(float)[..., :3]
                    assert ref.shape == ours.shape, (p, op, ours.shape, ref.shape)
                    psnr = 10 * np.log10(255 ** 2 / ((ours - ref) ** 2).mean())
                    print(p, op, round(psnr, 1))
                    worst = min(worst, psnr)
            # Measured 41.8-54.4 dB; gamma-space lanczos against libvips's gamma-space
            # thumbnail is itself 42.5 dB on the wide photo (its shrink-then-reduce).
            assert worst >= 41, worst
            """, in: dir)
    }
}
