import XCTest
import Foundation

final class BatchTests: XCTestCase {
    /// A folder of good and broken inputs, some with awkward names.
    func makeInputs() -> String {
        let dir = CLI.tempDir() + "/in"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let scene = CLI.testImages + "/scene-640x427.jpg"
        for name in ["a.jpg", "b c.jpg", "ünï'code$.jpg"] {
            try! FileManager.default.copyItem(atPath: scene, toPath: dir + "/" + name)
        }
        try! FileManager.default.copyItem(atPath: CLI.testImages + "/alpha-disc-100x100.png", toPath: dir + "/d.png")
        _ = FileManager.default.createFile(atPath: dir + "/empty.png", contents: Data())
        _ = FileManager.default.createFile(atPath: dir + "/text.png", contents: "not an image".data(using: .utf8))
        let full = CLI.bytes(scene)!
        _ = FileManager.default.createFile(atPath: dir + "/truncated.jpg", contents: full.prefix(3000))
        return dir
    }

    func inputs(_ dir: String) -> [String] { CLI.files(dir).map { dir + "/" + $0 } }

    func testMixedBatchKeepsGoing() {
        let dir = makeInputs()
        let out = CLI.tempDir() + "/new/out"
        let r = CLI.run(["fill", "--size", "32x32", "--out-dir", out, "-j2"] + inputs(dir))
        XCTAssertEqual(r.status, 1)
        let errors = r.stderr.split(separator: "\n").filter { !$0.contains(" ok, ") }
        XCTAssertEqual(errors.count, 3, r.stderr)
        for bad in ["empty.png", "text.png", "truncated.jpg"] {
            XCTAssertTrue(errors.contains { $0.hasPrefix("imgscale: \(dir)/\(bad): ") }, bad)
        }
        XCTAssertTrue(r.stderr.contains("imgscale: 4 ok, 3 failed"), r.stderr)
        XCTAssertEqual(CLI.files(out), ["a.jpg", "b c.jpg", "d.png", "ünï'code$.jpg"])
        XCTAssertEqual(CLI.size(out + "/b c.jpg"), "32x32")
    }

    func testNameTemplateAndFormat() {
        let dir = makeInputs()
        let out = CLI.tempDir()
        let r = CLI.run(["fit", "--size", "50x40", "--out-dir", out, "--name", "{stem}_{w}x{h}.png", dir + "/a.jpg", dir + "/d.png", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        XCTAssertEqual(CLI.files(out), ["a_50x40.png", "d_50x40.png"])
        XCTAssertTrue(CLI.run(["info", out + "/a_50x40.png"]).stdout.contains("PNG 50x33"))
        // {dir} is the input's directory as given: relative ones are mirrored inside
        // --out-dir, an absolute one would leave it and is refused before any work.
        let f = CLI.run(["convert", "--out-dir", out, "--format", "jpeg", "--name", "{dir}/{name}", "in/d.png"], cwd: dir + "/..")
        XCTAssertEqual(f.status, 0, f.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/in/d.jpg"))
        let absolute = CLI.run(["convert", "--out-dir", out, "--format", "jpeg", "--name", "{dir}/{name}", dir + "/d.png"])
        XCTAssertEqual(absolute.status, 2)
        XCTAssertTrue(absolute.stderr.contains("'\(dir)/d.png' would be written to '\(dir)/d.jpg', outside --out-dir"), absolute.stderr)
    }

    func testCollisionsFailTheirOutputsAndOverwritesAreUsageErrors() {
        let dir = makeInputs()
        let out = CLI.tempDir()
        // Two inputs naming one file: each fails with one line, and neither is written.
        let clash = CLI.run(["fill", "--size", "8x8", "--out-dir", out, "--name", "same.png", dir + "/a.jpg", dir + "/d.png"])
        XCTAssertEqual(clash.status, 1, clash.stderr)
        XCTAssertEqual(clash.stderr.components(separatedBy: "would both write").count - 1, 2, clash.stderr)
        XCTAssertEqual(CLI.files(out), [])
        // --out-dir pointing at the inputs' own folder would overwrite them.
        let before = CLI.bytes(dir + "/a.jpg")
        let over = CLI.run(["fill", "--size", "8x8", "--out-dir", dir, dir + "/a.jpg"])
        XCTAssertEqual(over.status, 2)
        XCTAssertTrue(over.stderr.contains("is the input"))
        XCTAssertEqual(CLI.bytes(dir + "/a.jpg"), before)
        // -o naming the input, by any spelling, is refused too.
        let same = CLI.run(["fill", "--size", "8x8", dir + "/a.jpg", "-o", dir + "/../in/./a.jpg"])
        XCTAssertEqual(same.status, 2)
        XCTAssertTrue(same.stderr.contains("is the input"), same.stderr)
        XCTAssertEqual(CLI.bytes(dir + "/a.jpg"), before)
    }

    func testFilesFromAndNull() {
        let dir = makeInputs()
        let out = CLI.tempDir()
        let list = [dir + "/a.jpg", dir + "/b c.jpg"].joined(separator: "\n") + "\n"
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", "--out-dir", out, "--files-from", "-"], stdin: list.data(using: .utf8)).status, 0)
        XCTAssertEqual(CLI.files(out), ["a.jpg", "b c.jpg"])
        let out2 = CLI.tempDir()
        let nul = [dir + "/b c.jpg", dir + "/ünï'code$.jpg"].joined(separator: "\0") + "\0"
        _ = FileManager.default.createFile(atPath: out2 + "/list", contents: nul.data(using: .utf8))
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", "--out-dir", out2 + "/o", "--files-from", out2 + "/list", "--null"]).status, 0)
        XCTAssertEqual(CLI.files(out2 + "/o"), ["b c.jpg", "ünï'code$.jpg"])
    }

    func testIfNewerSkipsUpToDateOutputs() throws {
        let dir = makeInputs()
        let out = CLI.tempDir()
        let args = ["fill", "--size", "8x8", "--out-dir", out, "--if-newer", dir + "/a.jpg", dir + "/d.png"]
        XCTAssertEqual(CLI.run(args).status, 0)
        let stamp = try FileManager.default.attributesOfItem(atPath: out + "/a.jpg")[.modificationDate] as! Date
        Thread.sleep(forTimeInterval: 0.05)
        let second = CLI.run(args + ["--report", "-"])
        XCTAssertEqual(second.status, 0)
        XCTAssertEqual(second.stdout.components(separatedBy: "\"status\":\"skipped\"").count - 1, 2)
        XCTAssertTrue(second.stderr.contains("2 skipped"))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: out + "/a.jpg")[.modificationDate] as? Date, stamp)
        // Touching the input makes it newer: rebuilt.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(10)], ofItemAtPath: dir + "/a.jpg")
        XCTAssertTrue(CLI.run(args + ["--report", "-"]).stdout.contains("\"input\":\"\(dir)/a.jpg\",\"output\":\"\(out)/a.jpg\",\"status\":\"ok\""))
    }

    func testReportLines() throws {
        let dir = makeInputs()
        let out = CLI.tempDir()
        let r = CLI.run(["fill", "--size", "16x8", "--out-dir", out, "--report", out + "/report.jsonl", dir + "/a.jpg", dir + "/empty.png"])
        XCTAssertEqual(r.status, 1)
        let lines = String(decoding: CLI.bytes(out + "/report.jsonl")!, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        let ok = objects.first { $0["input"] as? String == dir + "/a.jpg" }!
        XCTAssertEqual(ok["status"] as? String, "ok")
        XCTAssertEqual(ok["width"] as? Int, 16)
        XCTAssertEqual(ok["height"] as? Int, 8)
        XCTAssertNotNil(ok["ms"] as? Int)
        let failed = objects.first { $0["input"] as? String == dir + "/empty.png" }!
        XCTAssertEqual(failed["status"] as? String, "failed")
        XCTAssertEqual(failed["error"] as? String, "empty file")
    }

    func testShardsAreDisjointAndCoverEverything() {
        let dir = makeInputs()
        let all = inputs(dir).filter { !$0.hasSuffix("empty.png") && !$0.hasSuffix("text.png") && !$0.hasSuffix("truncated.jpg") }
        var seen: [String] = []
        for k in 1...3 {
            let out = CLI.tempDir()
            XCTAssertEqual(CLI.run(["fill", "--size", "8x8", "--out-dir", out, "--shard", "\(k)/3"] + all).status, 0)
            seen += CLI.files(out)
        }
        XCTAssertEqual(seen.sorted(), all.map { String($0.split(separator: "/").last!) }.sorted())
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", "--out-dir", CLI.tempDir(), "--shard", "4/3"] + all).status, 2)
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", "--out-dir", CLI.tempDir(), "--shard", "0/3"] + all).status, 2)
    }

    func testDeterministicAcrossJobCounts() {
        let dir = makeInputs()
        let one = CLI.tempDir(), two = CLI.tempDir()
        _ = CLI.run(["fill", "--size", "37x23", "--out-dir", one, "-j", "1"] + inputs(dir))
        _ = CLI.run(["fill", "--size", "37x23", "--out-dir", two, "-j", "2"] + inputs(dir))
        XCTAssertEqual(CLI.files(one), CLI.files(two))
        XCTAssertEqual(CLI.files(one).count, 4)
        for name in CLI.files(one) {
            XCTAssertEqual(CLI.bytes(one + "/" + name), CLI.bytes(two + "/" + name), name)
        }
    }

    func testNoTemporaryFilesAndKillLeavesOnlyCompleteImages() throws {
        let dir = CLI.tempDir()
        let big = CLI.testImages + "/scene-640x427.png"
        var inputs: [String] = []
        for i in 0..<60 {
            let path = dir + "/img\(i).png"
            try FileManager.default.copyItem(atPath: big, toPath: path)
            inputs.append(path)
        }
        // The 11th input is a FIFO nobody writes: its worker waits there until the kill,
        // so the batch cannot end first however fast the machine.
        let held = dir + "/held.png"
        XCTAssertEqual(mkfifo(held, 0o600), 0)
        inputs.insert(held, at: 10)
        let out = CLI.tempDir()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["fit", "--size", "600x600", "--compression", "9", "--out-dir", out, "-j2"] + inputs
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Let some outputs land, then kill -9 mid-batch.
        let deadline = Date().addingTimeInterval(20)
        while CLI.files(out).count < 5 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let written = CLI.files(out)
        XCTAssertGreaterThan(written.count, 0)
        XCTAssertLessThan(written.count, 60, "killed before the end")
        XCTAssertFalse(written.contains("held.png"), "the held input made an output")
        for name in written {
            XCTAssertTrue(name.hasPrefix("img") && name.hasSuffix(".png"), "debris: \(name)")
            XCTAssertEqual(CLI.size(out + "/" + name), "600x400", "\(name) is complete")
        }
    }
}
