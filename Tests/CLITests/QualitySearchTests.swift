import XCTest
import TestReferences
import Foundation

/// `--target-ssim` and `--max-bytes` through the built imgscale: the score the report gives
/// is scikit-image's `structural_similarity` (Gaussian, σ 1.5, population covariance) of
/// the BT.601 luma of the written file against the same resize written losslessly, within
/// 1e-4; the quality is the lowest that reaches the target (one below scores less) or the
/// highest that fits (one above does not); what cannot be searched is a usage error.
final class QualitySearchTests: XCTestCase {
    func testScoresEqualScikitImageAndTheQualityIsTheBoundary() throws {
        let dir = CLI.tempDir()
        try python("""
            import os, subprocess, json
            \(SkimageSSIM.prelude)
            exe = os.environ['IMGSCALE']
            y, x = np.mgrid[0:300, 0:400]
            rng = np.random.default_rng(3)
            rgb = np.stack([(x * 255 // 399), (y * 255 // 299), ((x // 20 + y // 20) % 2) * 200 + rng.integers(0, 50, (300, 400))], 2)
            Image.fromarray(rgb.clip(0, 255).astype(np.uint8)).save('photo.png')
            alpha = ((np.hypot(x - 200, y - 150) < 120) * 255).astype(np.uint8)
            Image.fromarray(np.dstack([rgb.clip(0, 255).astype(np.uint8), alpha])).save('alpha.png')
            def run(args):
                r = subprocess.run([exe] + args + ['--report', '-'], capture_output=True, text=True)
                assert r.returncode == 0, r.stderr
                return json.loads(r.stdout.splitlines()[0])
            for src, ext, target in (('photo.png', 'jpg', 0.95), ('photo.png', 'webp', 0.97), ('alpha.png', 'webp', 0.96), ('photo.png', 'jpg', 0.99)):
                subprocess.run([exe, 'fit', '--size', '320x', src, '-o', 'ref.png'], check=True)
                rep = run(['fit', '--size', '320x', '--target-ssim', str(target), src, '-o', 'out.' + ext])
                q, score = rep['quality'], rep['ssim']
                ours = ssim('ref.png', 'out.' + ext)
                assert abs(ours - score) < 1e-4, (src, ext, score, ours)
                assert score >= target, (src, ext, score, target)
                if q > 1:
                    subprocess.run([exe, 'fit', '--size', '320x', '--quality', str(q - 1), src, '-o', 'below.' + ext], check=True)
                    assert ssim('ref.png', 'below.' + ext) < target, (src, ext, q)
                print(src, ext, target, q, score)
            rep = run(['fit', '--size', '320x', '--max-bytes', '9000', 'photo.png', '-o', 'fit.jpg'])
            q = rep['quality']
            assert rep['bytes'] <= 9000 and os.path.getsize('fit.jpg') == rep['bytes'] and 'ssim' not in rep, rep
            subprocess.run([exe, 'fit', '--size', '320x', '--quality', str(q + 1), 'photo.png', '-o', 'above.jpg'], check=True)
            assert os.path.getsize('above.jpg') > 9000, (q, os.path.getsize('above.jpg'))
            r = subprocess.run([exe, 'fit', '--size', '320x', '--max-bytes', '300', 'photo.png', '-o', 'tiny.jpg'], capture_output=True, text=True)
            assert r.returncode == 1 and 'even quality 1 takes' in r.stderr and not os.path.exists('tiny.jpg'), r.stderr
            """, in: dir)
    }

    func testWhatCannotBeSearchedIsAUsageError() throws {
        let dir = CLI.tempDir()
        let input = CLI.testImages + "/scene-640x427.jpg"
        for (args, message) in [(["--target-ssim", "0.98", "-o", dir + "/a.png"], "which PNG has none of"),
                                (["--target-ssim", "0.98", "--quality", "80", "-o", dir + "/a.jpg"], "drop --quality"),
                                (["--max-bytes", "50K", "--lossless", "-o", dir + "/a.webp"], "drop --lossless"),
                                (["--target-ssim", "1.5", "-o", dir + "/a.jpg"], "above 0 and at most 1"),
                                (["--max-bytes", "0", "-o", dir + "/a.jpg"], "above 0")] {
            let r = CLI.run(["fit", "--size", "64x"] + args + [input])
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        let plan = CLI.run(["plan", "fit", "--size", "640x", "--target-ssim", "0.98", input, "-o", dir + "/p.jpg"])
        XCTAssertTrue(plan.stdout.contains("held path"), plan.stdout)
    }
}
