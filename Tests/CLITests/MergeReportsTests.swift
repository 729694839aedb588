import XCTest
import TestReferences
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

    /// What a hostile report gets: a 3 MB line is one damaged line (read through 1 MiB,
    /// the rest passed over), a FIFO is refused without waiting for a writer, and
    /// --merged never replaces a link.
    func testHostileReports() throws {
        let dir = CLI.tempDir()
        let long = #"{"input":"a.jpg","output":"o/a.jpg","status":"ok"}"# + "\n{\"input\":\"" + String(repeating: "x", count: 3_000_000)
            + "\n" + #"{"input":"b.jpg","output":"o/b.jpg","status":"ok"}"# + "\n"
        try long.write(toFile: dir + "/long.jsonl", atomically: true, encoding: .utf8)
        let r = CLI.run(["merge-reports", dir + "/long.jsonl"])
        XCTAssertEqual(r.stdout, "2 outputs in 1 reports: 2 ok, 0 skipped, 0 failed, 1 damaged lines\n")
        XCTAssertTrue(r.stderr.contains("long.jsonl:2: damaged line"), r.stderr)
        XCTAssertEqual(mkfifo(dir + "/fifo.jsonl", 0o600), 0)
        let fifo = CLI.run(["merge-reports", dir + "/fifo.jsonl"])
        XCTAssertEqual(fifo.status, 1)
        XCTAssertTrue(fifo.stderr.contains("fifo.jsonl: cannot be read: is a FIFO"), fifo.stderr)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.jsonl", withDestinationPath: dir + "/elsewhere.jsonl")
        let link = CLI.run(["merge-reports", "--merged", dir + "/link.jsonl", dir + "/long.jsonl"])
        XCTAssertEqual(link.status, 2)
        XCTAssertTrue(link.stderr.contains("is a symbolic link, not a regular file"), link.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/elsewhere.jsonl"))
    }
}

/// merge-reports' line scanner against Python's json module, the outside reference for
/// which lines are JSON: 3,000 mutations of report lines (cut, bytes flipped, inserted,
/// removed, escapes and nesting) give the same count of damaged lines, and no crash.
final class MergeReportsScannerTests: XCTestCase {
    func testDamagedLinesAgreeWithPythonsJSON() throws {
        let dir = CLI.tempDir()
        let script = #"""
        import json, random, sys
        random.seed(7)
        base = [json.dumps({"input": "photos/é \"q\" \\ %d.jpg" % i, "output": "thumbs/%d.jpg" % i, "status": random.choice(["ok", "failed", "skipped"]),
                            "error": None, "width": 256, "height": 192, "bytes": 1234, "sha256": "ab" * 32, "ms": 1.5e1,
                            "note": {"a": [1, 2.5, -3e-2, True, False, None, "\u2603\U0001F600"]}}, separators=(",", ":"), ensure_ascii=(i % 2 == 0))
                .encode() for i in range(40)]
        alphabet = b'{}[]:,"\\ 0123456789.eE+-tfnulrsa\xc3\xa9\xff\t'
        lines = []
        for i in range(3000):
            b = bytearray(random.choice(base))
            for _ in range(random.randint(0, 3)):
                kind = random.randrange(4)
                at = random.randrange(len(b) + 1)
                if kind == 0: b = b[:at]
                elif kind == 1 and at < len(b): b[at] = random.choice(alphabet)
                elif kind == 2: b[at:at] = bytes([random.choice(alphabet)])
                elif at < len(b): del b[at]
            lines.append(bytes(b).replace(b"\n", b" "))
        open(sys.argv[1], "wb").write(b"\n".join(lines) + b"\n")
        def damaged(line):
            if not line.strip(b" \t\r"): return False
            try:
                d = json.loads(line.decode("utf-8"), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
            except (UnicodeDecodeError, ValueError, RecursionError):
                return True
            return not (isinstance(d, dict) and isinstance(d.get("status"), str))
        print(sum(map(damaged, lines)))
        """#
        guard let reply = CLI.python(script, [dir + "/r.jsonl"]) else { throw missingReference("python3 cannot be started") }
        XCTAssertEqual(reply.status, 0, String(decoding: reply.stderr, as: UTF8.self))
        let expected = try XCTUnwrap(Int(String(decoding: reply.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertGreaterThan(expected, 500, "the mutations damage many lines")
        XCTAssertLessThan(expected, 2900, "and leave many whole")
        let r = CLI.run(["merge-reports", "--json", dir + "/r.jsonl"])
        XCTAssertTrue(r.status == 0 || r.status == 1, "exit \(r.status): \(r.stderr.suffix(300))")
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
        XCTAssertEqual(summary["unreadable_lines"] as? Int, expected)
    }
}
