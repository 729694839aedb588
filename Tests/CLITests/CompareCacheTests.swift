import XCTest
import Foundation

/// `compare DIR DIR --cache FILE`: a rerun skips the pairs that passed as `unchanged`
/// (a touched file is hashed and still vouched for), compares again what changed (an
/// image, the limits, the rules), never reads or writes through a link, and ignores a
/// corrupt cache with one warning.
final class CompareCacheTests: XCTestCase {
    func testRerunsSkipWhatDidNotChange() throws {
        let dir = CLI.tempDir(), g = dir + "/goldens", a = dir + "/actual", cache = dir + "/cache.txt"
        let scene = CLI.testImages + "/scene-640x427.png", strokes = CLI.testImages + "/strokes-130x90.png"
        XCTAssertEqual(CLI.run(["fill", "--size", "64x48", scene, "-o", dir + "/s.png"]).status, 0)
        XCTAssertEqual(CLI.run(["fill", "--size", "64x48", strokes, "-o", dir + "/t.png"]).status, 0)
        let fm = FileManager.default
        for d in [g, a] { try fm.createDirectory(atPath: d, withIntermediateDirectories: true) }
        for i in 0..<20 {
            try fm.copyItem(atPath: dir + "/s.png", toPath: g + "/p\(i).png")
            try fm.copyItem(atPath: dir + "/s.png", toPath: a + "/p\(i).png")
        }
        func run(_ extra: [String] = []) -> (Int32, String) {
            let r = CLI.run(["compare", g, a, "--cache", cache] + extra)
            return (r.status, r.stderr)
        }
        XCTAssertEqual(run().1, "imgscale: compared 20: 20 match, 0 differ, 0 missing, 0 extra, 0 unreadable\n")
        XCTAssertEqual(run().1, "imgscale: compared 20: 0 match, 0 differ, 0 missing, 0 extra, 0 unreadable, 20 unchanged (--cache)\n")
        // A touched file has another stamp, but the same bytes: hashed, and still unchanged.
        XCTAssertEqual(utimes(a + "/p1.png", nil), 0)
        // A copied-over equal file too; a changed one is compared again.
        try fm.removeItem(atPath: g + "/p2.png")
        try fm.copyItem(atPath: dir + "/s.png", toPath: g + "/p2.png")
        try fm.removeItem(atPath: a + "/p3.png")
        try fm.copyItem(atPath: dir + "/t.png", toPath: a + "/p3.png")
        let changed = CLI.run(["compare", g, a, "--cache", cache, "--json"])
        XCTAssertEqual(changed.status, 1)
        XCTAssertEqual(changed.stdout.components(separatedBy: #""result":"unchanged""#).count - 1, 19, changed.stdout)
        XCTAssertTrue(changed.stdout.contains(#""actual":"\#(a)/p3.png","result":"differ""#), changed.stdout)
        // Other limits judge anew; so do rules.
        XCTAssertTrue(run(["--tolerance", "1"]).1.contains("19 match, 1 differ"))
        try #"{"version": 1, "rules": [{"match": "p1*", "tolerance": 2}]}"#.write(toFile: g + "/imgscale-goldens.json", atomically: true, encoding: .utf8)
        // The rule's 11 images (p1, p10-p19) are judged again; p3 still differs.
        let ruled = run(["--tolerance", "1"]).1
        XCTAssertTrue(ruled.contains("11 match, 1 differ, 0 missing, 0 extra, 0 unreadable, 8 unchanged"), ruled)
        try fm.removeItem(atPath: g + "/imgscale-goldens.json")
        // A corrupt cache: one warning, every pair compared, the cache replaced.
        try "imgscale-compare-cache 1\nnot a line\n".write(toFile: cache, atomically: true, encoding: .utf8)
        let corrupt = run()
        XCTAssertEqual(corrupt.1.components(separatedBy: "warning: --cache").count - 1, 1, corrupt.1)
        XCTAssertTrue(corrupt.1.contains("is damaged; comparing every pair, then replacing it"), corrupt.1)
        XCTAssertTrue(run().1.contains("19 unchanged"))
        // A link: never followed, never replaced.
        let victim = dir + "/victim.txt", link = dir + "/link.txt"
        try "keep me\n".write(toFile: victim, atomically: true, encoding: .utf8)
        XCTAssertEqual(symlink(victim, link), 0)
        let linked = CLI.run(["compare", g, a, "--cache", link])
        XCTAssertEqual(linked.stderr.components(separatedBy: "warning:").count - 1, 1, linked.stderr)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "keep me\n")
        XCTAssertEqual(try fm.destinationOfSymbolicLink(atPath: link), victim)
        // Pairs and the server keep no cache.
        XCTAssertEqual(CLI.run(["compare", g + "/p0.png", a + "/p0.png", "--cache", cache]).status, 2)
        XCTAssertEqual(CLI.run(["compare", "--server", "--cache", cache], stdin: Data()).status, 2)
        XCTAssertEqual(CLI.run(["compare", g, a, "--cache", g + "/c.txt"]).status, 2)
    }
}
