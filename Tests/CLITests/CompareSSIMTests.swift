import XCTest
import TestReferences
import Foundation

/// `compare --metric ssim` and `--min-ssim` through the built imgscale: the score is
/// scikit-image's `structural_similarity` (Gaussian σ 1.5, population covariance, range
/// 255) of the BT.601 luma of premultiplied RGB on white, within 1e-4; the JSON's
/// `ssim_worse` box holds a damaged patch; ignored pixels score as equal; `--min-ssim`
/// decides the verdict in pair and directory mode; bad limits are usage errors; an SSIM
/// over the memory budget is refused.
final class CompareSSIMTests: XCTestCase {
    func testScoresEqualScikitImageAndDecide() throws {
        let dir = CLI.tempDir()
        try python("""
            import os, subprocess, json
            \(SkimageSSIM.prelude)
            exe = os.environ['IMGSCALE']
            rng = np.random.default_rng(4)
            y, x = np.mgrid[0:120, 0:160]
            base = np.dstack([x * 255 // 159, y * 255 // 119, (x * y) % 256]).astype(np.uint8)
            noisy = np.clip(base.astype(int) + rng.integers(-12, 13, base.shape), 0, 255).astype(np.uint8)
            damaged = base.copy()
            damaged[40:60, 90:120] = 255 - damaged[40:60, 90:120]
            alpha = np.dstack([base, ((x + y) % 256).astype(np.uint8)])
            alpha2 = np.dstack([noisy, ((x + y) % 256).astype(np.uint8)])
            os.makedirs('e'); os.makedirs('a')
            for name, im in (('base', base), ('noisy', noisy), ('damaged', damaged)):
                Image.fromarray(im).save(name + '.png')
            Image.fromarray(alpha, 'RGBA').save('alpha.png'); Image.fromarray(alpha2, 'RGBA').save('alpha2.png')
            def run(*args):
                r = subprocess.run([exe, 'compare', '--json', *args], capture_output=True, text=True)
                return r.returncode, json.loads(r.stdout.splitlines()[0])
            for a, b in (('base.png', 'noisy.png'), ('base.png', 'damaged.png'), ('alpha.png', 'alpha2.png'), ('base.png', 'base.png')):
                code, j = run('--metric', 'ssim', a, b)
                assert abs(j['ssim'] - ssim(a, b)) < 1e-4, (a, b, j['ssim'], ssim(a, b))
            # The damaged patch (x 90-119, y 40-59) lies in the box where the local SSIM fell;
            # the window reaches 5 pixels past it.
            code, j = run('--metric', 'ssim', 'base.png', 'damaged.png')
            w = j['ssim_worse']
            assert 85 <= w['x'] <= 90 and 119 <= w['x'] + w['width'] - 1 <= 124 and 35 <= w['y'] <= 40 and 59 <= w['y'] + w['height'] - 1 <= 64, w
            assert w['mean'] < 0.95 and code == 1
            # Ignored, the patch counts as equal: the score is 1.
            code, j = run('--metric', 'ssim', '--ignore', '90,40,30,20', 'base.png', 'damaged.png')
            assert j['ssim'] == 1 and j['ssim_worse'] is None and code == 0, j
            # --min-ssim decides alone; with --min-psnr both must hold.
            s = ssim('base.png', 'noisy.png')
            assert run('--min-ssim', str(s - 0.001), 'base.png', 'noisy.png')[0] == 0
            code, j = run('--min-ssim', str(s + 0.001), 'base.png', 'noisy.png')
            assert code == 1 and j['result'] == 'differ' and abs(j['limits']['min_ssim'] - (s + 0.001)) < 1e-9, j
            assert run('--min-ssim', str(s - 0.001), '--min-psnr', '99', 'base.png', 'noisy.png')[0] == 1
            # Directory mode: each pair's JSON has its score.
            for n in ('base', 'noisy'):
                Image.open('base.png').save(f'e/{n}.png'); Image.open(f'{n}.png').save(f'a/{n}.png')
            r = subprocess.run([exe, 'compare', '--json', '--metric', 'ssim', 'e', 'a'], capture_output=True, text=True)
            scores = {json.loads(l)['actual'].split('/')[-1]: json.loads(l)['ssim'] for l in r.stdout.splitlines()}
            assert scores['base.png'] == 1 and abs(scores['noisy.png'] - s) < 1e-4 and r.returncode == 1, (scores, r.returncode)
            """, in: dir)
        for bad in ["0", "1.5", "-1"] {
            let r = CLI.run(["compare", "--min-ssim", bad, dir + "/base.png", dir + "/noisy.png"])
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains("--min-ssim must be"), r.stderr)
        }
        // Its map is made row by row: beside the two images, a 160x120 pair needs a few
        // rows, within 1 MiB (planes of doubles, 96 bytes a pixel, did not fit).
        let small = CLI.run(["compare", "--metric", "ssim", "--max-memory", "1M", dir + "/base.png", dir + "/noisy.png"])
        XCTAssertEqual(small.status, 1, small.stderr)
        XCTAssertTrue(small.stdout.contains(", SSIM 0."), small.stdout)
        let line = CLI.run(["compare", "--metric", "ssim", dir + "/base.png", dir + "/noisy.png"])
        XCTAssertTrue(line.stdout.contains(", SSIM 0."), line.stdout)
    }
}
