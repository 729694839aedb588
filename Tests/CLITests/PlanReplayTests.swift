import XCTest
import TestReferences
import Foundation

/// `imgscale plan ... --json > p.json; imgscale run p.json` makes the bytes the planned
/// command makes, for every golden case, every written format, an animation, an SVG, a
/// 16-bit output and a JPEG recompressed into JPEG XL; and a plan that was changed, whose
/// input changed, or that reaches outside the working directory or past a limit is
/// refused in one line with nothing written.
final class PlanReplayTests: XCTestCase {
    /// Plans `args` in a fresh directory, replays the plan there, and runs the command
    /// itself in another: every file made must be the same, byte for byte.
    private func replay(_ args: [String], setUp: (String) throws -> Void = { _ in }, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let planned = CLI.tempDir(), direct = CLI.tempDir()
        try setUp(planned)
        try setUp(direct)
        let plan = CLI.run(["plan"] + args + ["--json"], cwd: planned)
        XCTAssertEqual(plan.status, 0, "\(args): \(plan.stderr)", file: file, line: line)
        try plan.stdout.write(toFile: planned + "/p.json", atomically: true, encoding: .utf8)
        let made = CLI.run(["run", "-q", "p.json"], cwd: planned)
        XCTAssertEqual(made.status, 0, "\(args): \(made.stderr)", file: file, line: line)
        let ran = CLI.run(args + ["-q"], cwd: direct)
        XCTAssertEqual(ran.status, 0, "\(args): \(ran.stderr)", file: file, line: line)
        let outputs = try outputsIn(direct)
        XCTAssertFalse(outputs.isEmpty, "\(args) made nothing", file: file, line: line)
        XCTAssertEqual(try outputsIn(planned).subtracting(["p.json"]), outputs, "\(args)", file: file, line: line)
        for name in outputs {
            XCTAssertEqual(CLI.bytes(planned + "/" + name), CLI.bytes(direct + "/" + name), "\(args): \(name) differs when replayed", file: file, line: line)
        }
        return plan.stdout
    }

    /// Every regular file below `dir`, by relative path, but what setUp put there.
    private func outputsIn(_ dir: String) throws -> Set<String> {
        let all = FileManager.default.enumerator(atPath: dir)?.compactMap { $0 as? String } ?? []
        return Set(all.filter { name in
            var isDir: ObjCBool = false
            return FileManager.default.fileExists(atPath: dir + "/" + name, isDirectory: &isDir) && !isDir.boolValue && !name.hasPrefix("in.")
        })
    }

    func testEveryGoldenCaseReplaysByteForByte() throws {
        let cases = GoldenTests.cases()
        XCTAssertGreaterThanOrEqual(cases.count, 28)
        // Replaying is byte-identity, which a sanitizer does not change: a third of the cases there.
        for c in Sweep.sample(cases, every: 3) {
            _ = try replay(c.args + [CLI.testImages + "/" + c.input, "-o", c.name + ".png"])
        }
    }

    func testEveryFormatAnimationSVG16BitAndRecompressionReplay() throws {
        let scene = CLI.testImages + "/scene-640x427.jpg"
        let formats = ["png", "jpeg", "webp", "heic", "avif", "gif", "pnm", "pam", "ico", "jxl", "qoi"]
        for format in formats {
            _ = try replay(["fit", "--size", "64x", scene, "--out-dir", "o", "--format", format])
        }
        // A srcset: sizes by scales by formats from one decode, named by template.
        _ = try replay(["fit", "--size", "96x", "--size", "200x", "--scale", "1", "--scale", "2", "--no-upscale", "--format", "webp",
                        "--format", "jpeg", scene, "--out-dir", "web", "--name", "{stem}-{width}w{at}.{ext}"])
        _ = try replay(["fill", "--size", "20x10", "--depth", "16", CLI.testImages + "/gray16-33x17.png", "-o", "wide.png"])
        let recompressed = try replay(["convert", "--lossless", scene, "-o", "same.jxl"])
        XCTAssertTrue(recompressed.contains("\"path_kind\":\"recompress\""), recompressed)
        _ = try replay(["fit", "--size", "48x48", "in.svg", "--format", "png", "--out-dir", "icons"]) { dir in
            try ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="#c33"/></svg>"##
                .write(toFile: dir + "/in.svg", atomically: true, encoding: .utf8)
        }
        let animated = try CLI.sharedDir("formats") + "/gif-anim-3frames-160x120.gif"
        _ = try replay(["convert", "--animated", "--size", "80x", animated, "-o", "anim.webp"])
    }

    func testChangedPlansInputsAndReachesAreRefusedInOneLine() throws {
        let dir = CLI.tempDir()
        let input = dir + "/scene.jpg"
        try FileManager.default.copyItem(atPath: CLI.testImages + "/scene-640x427.jpg", toPath: input)
        let plan = CLI.run(["plan", "fit", "--size", "100x", "scene.jpg", "-o", "out/small.webp", "--json"], cwd: dir)
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(plan.stdout.contains("\"quality 80\""), plan.stdout)
        func refused(_ text: String, _ why: String, line: UInt = #line) throws {
            try text.write(toFile: dir + "/p.json", atomically: true, encoding: .utf8)
            let r = CLI.run(["run", "p.json"], cwd: dir)
            XCTAssertEqual(r.status, 1, r.stderr, line: line)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr, line: line)
            XCTAssertTrue(r.stderr.hasPrefix("imgscale: p.json: ") && r.stderr.contains(why), r.stderr, line: line)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out"), "written despite the refusal", line: line)
        }
        let p = plan.stdout
        try refused(p.replacingOccurrences(of: "\"quality 80\"", with: "\"quality 95\""), "outputs[0].settings[0] differs")
        try refused(p.replacingOccurrences(of: "\"--size=100x\"", with: "\"--size=101x\""), "differs")
        try refused(p.replacingOccurrences(of: "\"imgscale\":\"", with: "\"imgscale\":\"9"), "planned by imgscale 9")
        try refused(p.replacingOccurrences(of: "\"--threads=", with: "\"--max-pixels=0\",\"--threads="), "--max-pixels 0")
        try refused(p.replacingOccurrences(of: "\"--threads=", with: "\"--max-memory=4G\",\"--threads="), "--max-memory 4G")
        try refused(p.replacingOccurrences(of: "\"--threads=", with: "\"--report=r.json\",\"--threads="), "--report belongs to a batch")
        try refused(p.replacingOccurrences(of: "\"--threads=", with: "\"--export-profile=/etc/passwd\",\"--threads="), "--export-profile names a file")
        try refused("{\"width\":1}", "not a plan")
        try refused("[1]", "not a plan")
        try refused("{", "not JSON")
        // The same plan made for an output above the working directory, or through a link out of it.
        try FileManager.default.createSymbolicLink(atPath: dir + "/away", withDestinationPath: NSTemporaryDirectory())
        for output in ["../escaped.webp", "away/escaped-\(getpid()).webp"] {
            let far = CLI.run(["plan", "fit", "--size", "100x", "scene.jpg", "-o", output, "--json"], cwd: dir)
            XCTAssertEqual(far.status, 0, far.stderr)
            try refused(far.stdout, "outside the working directory")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/" + output), output)
        }
        // The input changed after planning: its bytes are not the ones planned.
        let original = try Data(contentsOf: URL(fileURLWithPath: input))
        try (original + Data([0])).write(to: URL(fileURLWithPath: input))
        try refused(p, "the input's bytes are not the ones planned")
        try original.write(to: URL(fileURLWithPath: input))
        try p.write(toFile: dir + "/p.json", atomically: true, encoding: .utf8)
        let ok = CLI.run(["run", "-q", "p.json"], cwd: dir)
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(CLI.size(dir + "/out/small.webp"), "100x67")
    }
}
