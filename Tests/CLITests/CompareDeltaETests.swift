import XCTest
import TestReferences
import Foundation

/// `compare --max-delta-e` through the built imgscale: which pixels differ by more than E
/// in CIEDE2000 is what colour-science's `delta_E(..., 'CIE 2000')` of the sRGB colours
/// (D65) says, to 1e-3; the rule combines with `--max-pixels-differ`; every verdict names
/// the limits that decided it, on the line and in the JSON; and the rules exclude each other.
final class CompareDeltaETests: XCTestCase {
    func testAgreesWithColourScience() throws {
        let dir = CLI.tempDir()
        try python("""
            import os, subprocess, json, warnings
            warnings.filterwarnings('ignore')
            import numpy as np
            from PIL import Image
            import colour
            exe = os.environ['IMGSCALE']
            rng = np.random.default_rng(21)
            n = 400
            a = rng.integers(0, 256, (n, 3))
            # Near colours mostly (the range a golden suite cares for), some far, some grey.
            b = np.clip(a + rng.integers(-6, 7, (n, 3)), 0, 255)
            b[:40] = rng.integers(0, 256, (40, 3))
            a[40:60] = a[40:60, :1]; b[40:60] = np.clip(a[40:60] + rng.integers(-3, 4, (20, 1)), 0, 255)
            Image.fromarray(a.reshape(20, 20, 3).astype(np.uint8)).save('e.png')
            Image.fromarray(b.reshape(20, 20, 3).astype(np.uint8)).save('a.png')
            def lab(rgb):
                return colour.XYZ_to_Lab(colour.sRGB_to_XYZ(rgb / 255.0), colour.CCS_ILLUMINANTS['CIE 1931 2 Degree Standard Observer']['D65'])
            de = colour.delta_E(lab(a), lab(b), method='CIE 2000')
            def count(e):
                r = subprocess.run([exe, 'compare', '--json', '--max-delta-e', repr(e), 'e.png', 'a.png'], capture_output=True, text=True)
                return json.loads(r.stdout.splitlines()[0])['differing_pixels']
            # Just above and just below each of 60 pairs' differences: imgscale's count
            # changes there as colour-science's does, so each agrees within 1e-3.
            for d in sweep_sample(sorted(de[de > 0.01])[::6], 5):
                for e in (d - 1e-3, d + 1e-3):
                    assert count(e) == int((de > e).sum()), (d, e, count(e), int((de > e).sum()))
            """, in: dir)
    }

    func testVerdictNamesTheLimitsThatDecided() throws {
        let dir = CLI.tempDir()
        try python("""
            import os
            import numpy as np
            from PIL import Image
            a = np.full((40, 50, 3), 128, np.uint8)
            b = a.copy()
            b[:4, :10] = (128, 140, 128)   # 40 pixels a few ΔE off
            b[10, :5] = (128, 129, 128)    # 5 pixels under ΔE 1
            Image.fromarray(a).save('e.png'); Image.fromarray(b).save('a.png')
            """, in: dir)
        let e = dir + "/e.png", a = dir + "/a.png"
        let fails = CLI.run(["compare", "--max-delta-e", "2", e, a])
        XCTAssertEqual(fails.status, 1, fails.stderr)
        XCTAssertTrue(fails.stdout.hasPrefix("differ: 40 pixels differ by more than ΔE 2.0 (limit 0), max difference 12"), fails.stdout)
        let allowed = CLI.run(["compare", "--max-delta-e", "2", "--max-pixels-differ", "2%", e, a])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertTrue(allowed.stdout.hasPrefix("match: 40 pixels differ by more than ΔE 2.0 (limit 2% = 40)"), allowed.stdout)
        let json = CLI.run(["compare", "--json", "--max-delta-e", "2", "--max-pixels-differ", "39", e, a])
        XCTAssertTrue(json.stdout.contains("\"decided_by\":[{\"limit\":\"max_pixels_differ\",\"value\":40,\"bound\":39,\"held\":false}]"), json.stdout)
        XCTAssertTrue(json.stdout.contains("\"rule\":\"delta_e\",\"max_delta_e\":2.0"), json.stdout)
        let tolerance = CLI.run(["compare", "--tolerance", "5", e, a])
        XCTAssertTrue(tolerance.stdout.hasPrefix("differ: 40 pixels differ by more than 5 levels (limit 0)"), tolerance.stdout)
        let psnr = CLI.run(["compare", "--min-psnr", "30", "--min-ssim", "0.9999", e, a])
        XCTAssertEqual(psnr.status, 1)
        XCTAssertTrue(psnr.stdout.hasPrefix("differ: PSNR 48.30 dB reaches the limit 30.00 dB and SSIM 0.9994 is below the limit 0.9999; 45 pixels,"),
                      psnr.stdout)
        for bad in [["--max-delta-e", "2", "--tolerance", "1"], ["--max-delta-e", "2", "--threshold", "0.1"], ["--max-delta-e", "-1"], ["--max-delta-e", "nan"]] {
            let r = CLI.run(["compare"] + bad + [e, a])
            XCTAssertEqual(r.status, 2, bad.joined(separator: " "))
        }
    }
}
