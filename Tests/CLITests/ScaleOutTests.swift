import XCTest
import TestReferences
import Foundation

/// The GNU parallel recipe of docs/batches.md, run locally (-j2 instead of -S hosts), and the
/// progress display.
final class ScaleOutTests: XCTestCase {
    func testGNUParallelRecipeCoversEverythingOnce() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/parallel") else {
            throw missingReference("GNU parallel is not installed (scripts/install-deps --test installs it)")
        }
        let dir = CLI.tempDir()
        var list = ""
        for i in 0..<12 {
            let name = dir + "/photo \(i).jpg"
            try FileManager.default.copyItem(atPath: CLI.testImages + "/scene-640x427.jpg", toPath: name)
            list += name + "\n"
        }
        try list.write(toFile: dir + "/list.txt", atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/parallel")
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        p.arguments = ["--will-cite", "-j2", CLI.binary, "fill", "--size", "32x32", "--files-from", "list.txt",
                       "--out-dir", "thumbs", "--if-newer", "--quiet", "--report", "report-{}.jsonl", "--shard", "{}/3", ":::", "1", "2", "3"]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        XCTAssertEqual(CLI.files(dir + "/thumbs").count, 12)
        var inputs: [String] = []
        for k in 1...3 {
            let report = String(decoding: CLI.bytes(dir + "/report-\(k).jsonl")!, as: UTF8.self)
            let lines = report.split(separator: "\n")
            XCTAssertEqual(lines.count, 4, "shard \(k) has 4 of 12")
            inputs += try lines.map { (try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any])["input"] as! String }
        }
        XCTAssertEqual(Set(inputs).count, 12, "disjoint and complete")
    }

    func testProgressOnRequestAndSummary() throws {
        let out = CLI.tempDir()
        let inputs = (0..<3).map { _ in CLI.testImages + "/scene-640x427.png" }
        let names = ["--name", "{stem}-{w}.png"]
        let r = CLI.run(["fit", "--size", "20x20", "--progress", "always", "--out-dir", out, "--files-from", "-"] + names,
                        stdin: Data((CLI.testImages + "/scene-640x427.png\n" + CLI.testImages + "/two-colour-8x8.png\n").utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("[2/2] 2 ok, 0 failed, 0 skipped"), r.stderr)
        XCTAssertTrue(r.stderr.contains("files/s"))
        XCTAssertTrue(r.stderr.contains("imgscale: 2 ok, 0 failed in "), r.stderr)
        let quiet = CLI.run(["fit", "--size", "20x20", "--out-dir", out + "/q", "-q", inputs[0], CLI.testImages + "/two-colour-8x8.png"])
        XCTAssertEqual(quiet.stderr, "", "no progress off a terminal, no summary with -q")
        XCTAssertEqual(CLI.run(["fit", "--size", "20x20", "--progress", "sometimes", "--out-dir", out, inputs[0]]).status, 2)
    }
}
