import XCTest
import Foundation

/// `imgscale merge-reports` over the reports of a real sharded run, then over reports a
/// crash and a misconfiguration would leave: a line cut inside a UTF-8 sequence, a line
/// that is not a report, an input two shards both did, and a failure.
final class MergeReportsTests: XCTestCase {
    func testShardsAddUp() throws {
        let dir = CLI.tempDir()
        let inputs = ["scene-640x427.jpg", "gradient-rgb-64x48.png", "alpha-disc-100x100.png", "strokes-130x90.png", "two-colour-8x8.png"]
            .map { CLI.testImages + "/" + $0 }
        for k in 1...2 {
            let r = CLI.run(["fill", "--size", "16x16", "--shard", "\(k)/2", "--out-dir", dir + "/out", "--report", dir + "/shard-\(k).jsonl", "-q"] + inputs)
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        let text = CLI.run(["merge-reports", dir + "/shard-1.jsonl", dir + "/shard-2.jsonl"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.stdout, "5 outputs in 2 reports: 5 ok, 0 skipped, 0 failed\n")
        let json = CLI.run(["merge-reports", "--json", dir + "/shard-1.jsonl", dir + "/shard-2.jsonl"])
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(summary["outputs"] as? Int, 5)
        XCTAssertEqual((summary["failures"] as? [Any])?.count, 0)
    }

    func testDamageFailuresAndInputsDoneTwice() throws {
        let dir = CLI.tempDir()
        let one = #"{"input":"a.jpg","output":"o/a.jpg","status":"ok"}"# + "\n"
            + #"{"input":"b.jpg","output":"o/b.jpg","status":"failed","error":"b.jpg: not a JPEG file"}"# + "\n"
        var two = Data((#"{"input":"a.jpg","output":"o/a.jpg","status":"skipped"}"# + "\n[1, 2]\n\n").utf8)
        two.append(Data(#"{"input":"d"#.utf8) + Data([0xC3]))  // killed inside "é"
        FileManager.default.createFile(atPath: dir + "/1.jsonl", contents: Data(one.utf8))
        FileManager.default.createFile(atPath: dir + "/2.jsonl", contents: two)
        let r = CLI.run(["merge-reports", dir + "/1.jsonl", dir + "/2.jsonl"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, """
            2 outputs in 2 reports: 1 ok, 0 skipped, 1 failed, 1 done by more than one shard, 2 damaged lines
            failed: b.jpg: b.jpg: not a JPEG file  (\(dir)/1.jsonl)
            twice: a.jpg -> o/a.jpg

            """)
        XCTAssertTrue(r.stderr.contains("2.jsonl:2: damaged line (not a report object)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("2.jsonl:4: damaged line (not UTF-8)"), r.stderr)
        // Usage: no reports; a report that cannot be read fails, the others still count.
        XCTAssertEqual(CLI.run(["merge-reports"]).status, 2)
        let missing = CLI.run(["merge-reports", dir + "/1.jsonl", dir + "/nope.jsonl"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("nope.jsonl: cannot be read"), missing.stderr)
        XCTAssertTrue(missing.stdout.hasPrefix("2 outputs in 2 reports"), missing.stdout)
    }
}
