import XCTest
import TestReferences
import Foundation

/// Review and update through the built imgscale: `--update prune` removes the goldens
/// with no actual image (and the folders they leave empty), each said, and nothing else;
/// JUnit failures carry their summary line and their images as `[[ATTACHMENT|path]]`,
/// parsed back here; `--keep-near-miss F` writes the diff of a pass that used more than
/// F of its allowance.
final class CompareReviewTests: XCTestCase {
    private func suite() throws -> String {
        let dir = CLI.tempDir()
        try python("""
            import os
            import numpy as np
            from PIL import Image
            for d in ('exp/old', 'exp/keep', 'act/keep'):
                os.makedirs(d, exist_ok=True)
            a = np.full((10, 10, 3), 100, np.uint8)
            Image.fromarray(a).save('exp/keep/same.png'); Image.fromarray(a).save('act/keep/same.png')
            b = a.copy(); b[0, :9] = 110
            Image.fromarray(a).save('exp/keep/near.png'); Image.fromarray(b).save('act/keep/near.png')
            c = a.copy(); c[:5] = 0
            Image.fromarray(a).save('exp/keep/broken.png'); Image.fromarray(c).save('act/keep/broken.png')
            Image.fromarray(a).save('exp/old/gone.png'); Image.fromarray(a).save('exp/gone2.png')
            """, in: dir)
        return dir
    }

    func testPruneRemovesOnlyGoldensWithNoActualImage() throws {
        let dir = try suite()
        let r = CLI.run(["compare", "--update", "prune", "--max-pixels-differ", "10", dir + "/exp", dir + "/act"])
        XCTAssertEqual(r.status, 1, r.stderr)  // broken still fails
        XCTAssertTrue(r.stderr.contains("pruned \(dir)/exp/old/gone.png (no actual image)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("pruned \(dir)/exp/gone2.png (no actual image)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("2 pruned"), r.stderr)
        let fm = FileManager.default
        XCTAssertFalse(fm.fileExists(atPath: dir + "/exp/old"), "the emptied folder goes too")
        XCTAssertTrue(fm.fileExists(atPath: dir + "/exp/keep/same.png") && fm.fileExists(atPath: dir + "/exp/keep/broken.png"))
        XCTAssertEqual(CLI.run(["compare", "--update", "prune", dir + "/exp/keep/same.png", dir + "/act/keep/same.png"]).status, 2)
    }

    func testJUnitAttachmentsAndNearMisses() throws {
        let dir = try suite()
        let junit = dir + "/junit.xml", diffs = dir + "/diffs"
        let r = CLI.run(["compare", "--junit", junit, "--diff", diffs, "--max-pixels-differ", "10", "--keep-near-miss", "0.8", dir + "/exp/keep", dir + "/act/keep"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stdout.contains("near.png: match: 9 pixels differ (limit 10), max difference 10, mean 0.675, PSNR 38.59 dB (near miss: 90% of its allowance)"), r.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: diffs + "/near.png.diff.png"), "the near miss's diff")
        XCTAssertFalse(FileManager.default.fileExists(atPath: diffs + "/same.png.diff.png"))
        try python("""
            import xml.etree.ElementTree as ET, os
            root = ET.parse('\(junit)').getroot()
            cases = {c.get('name'): c for c in root.iter('testcase')}
            broken = cases['broken.png']
            failure = broken.find('failure')
            assert failure is not None and failure.get('message').startswith('broken.png: differ: 50 pixels differ (limit 10)'), failure.attrib
            attached = [l[len('[[ATTACHMENT|'):-2] for l in broken.find('system-out').text.splitlines()]
            assert [os.path.basename(p) for p in attached] == ['broken.png', 'broken.png', 'broken.png.diff.png'], attached
            assert all(os.path.isabs(p) and os.path.exists(p) for p in attached), attached
            assert cases['same.png'].find('failure') is None and cases['same.png'].find('system-out') is None
            """, in: dir)
        XCTAssertEqual(CLI.run(["compare", "--keep-near-miss", "0.5", dir + "/exp/keep", dir + "/act/keep"]).status, 2, "needs --diff")
        XCTAssertEqual(CLI.run(["compare", "--keep-near-miss", "1.5", "--diff", diffs, dir + "/exp/keep", dir + "/act/keep"]).status, 2)
    }
}
