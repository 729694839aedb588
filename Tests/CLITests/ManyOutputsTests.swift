import XCTest
import TestReferences
import Foundation
import ImageScaler

/// Repeated --size: one output per size from one read of the input, each byte for byte
/// what a run with that size alone makes, at any thread count; reports in input and
/// size order; the decode counts the issue promises, as `-v` reports them.
final class ManyOutputsTests: XCTestCase {
    /// A detailed synthetic master: gradients, a hard-edged disc and fine stripes, so
    /// every filter tap and every shared window edge shows in the bytes.
    static func master(width: Int, height: Int, alpha: Bool) -> PixelBuffer {
        let channels = alpha ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * channels
                let dx = x - width / 2, dy = y - height / 2
                let inDisc = dx * dx + dy * dy < (min(width, height) / 3) * (min(width, height) / 3)
                pixels[i] = UInt8(x * 255 / max(width - 1, 1))
                pixels[i + 1] = inDisc ? 30 : UInt8(y * 255 / max(height - 1, 1))
                pixels[i + 2] = (x / 3 + y / 5) % 2 == 0 ? 220 : 40
                if alpha { pixels[i + 3] = inDisc ? 255 : UInt8((x + y) % 256) }
            }
        }
        return try! PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    static func write(_ image: PixelBuffer, _ path: String, as format: ImageFormat) throws {
        var options = EncodeOptions()
        options.quality = 92
        try ImageFile.write(try ImageCodec.encode(image, as: format, options: options), to: path)
    }

    /// Every output of one multi-size run equals its own single-size run; `extra` are
    /// options for both. One input runs with two threads; two inputs at -j2 with one each.
    private func assertSameAsSeparateRuns(_ command: String, sizes: [String], input: String, extra: [String] = [],
                                          oneThread: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = CLI.tempDir()
        var args = [command] + sizes.flatMap { ["--size", $0] } + extra
        args += [input, "--out-dir", dir + "/many", "--name", "{w}x{h}.png"]
        let many = CLI.run(args)
        XCTAssertEqual(many.status, 0, many.stderr, file: file, line: line)
        // The same again beside a copy of the input at -j2: each image then gets one thread.
        let copy = dir + "/copy-" + (input as NSString).lastPathComponent
        if oneThread {
            try FileManager.default.copyItem(atPath: input, toPath: copy)
            let pair = CLI.run(args.dropLast(5) + [input, copy, "-j2", "--out-dir", dir + "/pair", "--name", "{stem}-{w}x{h}.png"])
            XCTAssertEqual(pair.status, 0, pair.stderr, file: file, line: line)
        }
        for size in sizes {
            let one = CLI.run([command, "--size", size] + extra + [input, "-o", dir + "/one.png"])
            XCTAssertEqual(one.status, 0, one.stderr, file: file, line: line)
            let expected = CLI.bytes(dir + "/one.png")
            // {w}x{h} spells the size as given: `320x` has no {h}.
            let name = size + ".png"
            XCTAssertNotNil(expected, file: file, line: line)
            XCTAssertEqual(CLI.bytes(dir + "/many/" + name), expected, "\(size) differs from its own run", file: file, line: line)
            guard oneThread else { continue }
            let stem = ((input as NSString).lastPathComponent as NSString).deletingPathExtension
            XCTAssertEqual(CLI.bytes(dir + "/pair/\(stem)-" + name), expected, "\(size) at one thread", file: file, line: line)
            XCTAssertEqual(CLI.bytes(dir + "/pair/copy-\(stem)-" + name), expected, "\(size) at one thread", file: file, line: line)
        }
    }

    func testIconSetFromPNGMatchesSeparateRuns() throws {
        let dir = CLI.tempDir()
        for alpha in [false, true] {
            let master = dir + "/master-\(alpha).png"
            try Self.write(Self.master(width: 600, height: 600, alpha: alpha), master, as: .png)
            try assertSameAsSeparateRuns("fill", sizes: Sweep.sample(["512x512", "180x180", "120x120", "64x64", "29x29", "20x20"], every: 2), input: master)
            try assertSameAsSeparateRuns("fill", sizes: ["300x100", "50x50"], input: master, extra: ["--filter", "lanczos", "--flatten"])
        }
    }

    func testSrcsetFromJPEGMatchesSeparateRunsAndDecodesOncePerScale() throws {
        let dir = CLI.tempDir()
        let jpeg = dir + "/photo.jpg"
        try Self.write(Self.master(width: 2000, height: 1500, alpha: false), jpeg, as: .jpeg)
        let sizes = ["1000x", "800x", "320x", "160x"]
        try assertSameAsSeparateRuns("fit", sizes: Sweep.sample(sizes, every: 2), input: jpeg)
        try assertSameAsSeparateRuns("fill", sizes: Sweep.sample(["900x600", "400x400", "200x100"], every: 2), input: jpeg, extra: ["--gravity", "north"])
        // 1000 and 800 leave no 2x room at 1/2 (2000 < 2 * 2 * 800): full scale, one decode;
        // 320 decodes at 1/2 (2000 >= 2 * 2 * 320) and 160 at 1/4.
        let r = CLI.run(["fit", "-v"] + sizes.flatMap { ["--size", $0] } + [jpeg, "--out-dir", dir + "/v", "--name", "{w}.jpg"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("3 decodes for 4 outputs: 1/1 for 1000x750 800x600, 1/2 for 320x240, 1/4 for 160x120"), r.stderr)
        let png = dir + "/photo.png"
        try Self.write(Self.master(width: 2000, height: 1500, alpha: false), png, as: .png)
        let p = CLI.run(["fit", "-v"] + sizes.flatMap { ["--size", $0] } + [png, "--out-dir", dir + "/p", "--name", "{w}.png"])
        XCTAssertTrue(p.stderr.contains("1 decode for 4 outputs"), p.stderr)
    }

    func testRealPhotosMatchSeparateRuns() throws {
        let photos = try CLI.sharedDir("photos")
        // Two threads only: the synthetic cases cover one, and a 12 MP decode is slow
        // under the sanitizers.
        try assertSameAsSeparateRuns("fit", sizes: Sweep.sample(["320x", "640x", "1280x", "1920x"], every: 2), input: photos + "/street-4032x3024.jpg",
                                     oneThread: false)
        // EXIF orientation 6: the plans are made upright and decoded stored.
        try assertSameAsSeparateRuns("fill", sizes: ["256x256", "100x300"], input: photos + "/rotated-2048x1536.jpg",
                                     extra: ["--filter", "bicubic"], oneThread: false)
    }

    func testReportIsInInputThenSizeOrderAtAnyJobs() throws {
        let dir = CLI.tempDir()
        var inputs: [String] = []
        // Largest first is how -j2 schedules; the report must not show it.
        for (i, side) in [120, 400, 60, 300].enumerated() {
            let path = dir + "/in\(i).png"
            try Self.write(Self.master(width: side, height: side, alpha: false), path, as: .png)
            inputs.append(path)
        }
        let sizes = ["64x64", "32x16", "16x16"]
        var reports: [[String]] = []
        for jobs in ["1", "2", "3"] {
            let r = CLI.run(["fill", "-j", jobs, "--report", "-"] + sizes.flatMap { ["--size", $0] } + inputs
                            + ["--out-dir", dir + "/out\(jobs)", "--name", "{stem}-{w}x{h}.png"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let lines = r.stdout.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.count, 12)
            let outputs = try lines.map { line -> String in
                let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return ((json["output"] as? String).map { ($0 as NSString).lastPathComponent })!
            }
            XCTAssertEqual(outputs, (0..<4).flatMap { i in ["in\(i)-64x64.png", "in\(i)-32x16.png", "in\(i)-16x16.png"] })
            reports.append(lines.map { $0.replacingOccurrences(of: #""ms":\d+"#, with: "", options: .regularExpression)
                                         .replacingOccurrences(of: "out\(jobs)", with: "out") })
        }
        XCTAssertEqual(reports[0], reports[1])
        XCTAssertEqual(reports[0], reports[2])
        // --if-newer: the skipped outputs still report their size; a missing one is made.
        try FileManager.default.removeItem(atPath: dir + "/out1/in2-32x16.png")
        let again = CLI.run(["fill", "--if-newer", "--report", "-"] + sizes.flatMap { ["--size", $0] } + inputs
                            + ["--out-dir", dir + "/out1", "--name", "{stem}-{w}x{h}.png"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let rows = again.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(rows.count, 12)
        XCTAssertTrue(rows[7].contains(#""status":"ok""#) && rows[7].contains("in2-32x16.png"), rows[7])
        XCTAssertTrue(rows[6].contains(#""status":"skipped""#) && rows[6].contains(#""width":64,"height":64"#), rows[6])
        XCTAssertTrue(rows[4].contains(#""status":"skipped""#) && rows[4].contains(#""width":32,"height":16"#), rows[4])
        XCTAssertTrue(again.stderr.contains("1 ok, 0 failed, 11 skipped"), again.stderr)
    }

    /// 512 outputs of one photo at 1, 2 and 8 threads: each side by side round holds at
    /// most `RenderSchedule.lanesPerRound` lanes (a round of all 512 waited forever for
    /// threads Dispatch would not give), the plan says so, and the bytes are the same at
    /// every thread count. 130 under a sanitizer: still three rounds.
    func testFiveHundredTwelveOutputsAtAnyThreadCount() throws {
        let count = Sweep.sanitized ? 130 : 512
        let sizes = (1...count).flatMap { ["--size", "\($0 + 10)x\($0 + 10)"] }
        let dir = CLI.tempDir()
        let input = CLI.testImages + "/scene-640x427.jpg"
        var made: [[String: Data]] = []
        for threads in ["1", "2", "8"] {
            let out = dir + "/t" + threads
            let r = CLI.run(["fill"] + sizes + [input, "--out-dir", out, "--name", "{w}.png", "--threads", threads, "-q"])
            XCTAssertEqual(r.status, 0, "\(threads) threads: \(r.stderr)")
            let files = CLI.files(out)
            XCTAssertEqual(files.count, count, "\(threads) threads")
            made.append(Dictionary(uniqueKeysWithValues: files.map { ($0, CLI.bytes(out + "/" + $0) ?? Data()) }))
        }
        XCTAssertEqual(made[0], made[1], "2 threads: other bytes than 1")
        XCTAssertEqual(made[0], made[2], "8 threads: other bytes than 1")
        let rounds = (count + RenderSchedule.lanesPerRound - 1) / RenderSchedule.lanesPerRound
        let plan = CLI.run(["plan", "fill"] + sizes + [input, "--out-dir", dir + "/p", "--name", "{w}.png", "--threads", "2", "--max-memory", "0"])
        XCTAssertTrue(plan.stdout.contains("schedule: \(rounds) rounds of at most 64 outputs side by side, each decoding again"), String(plan.stdout.prefix(3000)))
    }

    func testUsageErrorsAndFailures() throws {
        let dir = CLI.tempDir()
        let master = dir + "/m.png"
        try Self.write(Self.master(width: 100, height: 100, alpha: false), master, as: .png)
        let cases: [([String], String)] = [
            (["fill", "--size", "64x64", "--size", "32x32", master, "--out-dir", dir + "/a"], "put {w} or {h} in it"),
            (["fill", "--size", "64x64", "--size", "32x32", master, "-o", dir + "/a.png"], "-o writes one file"),
            (["fill", "--size", "64x64", "--size", "64x32", master, "--out-dir", dir + "/a", "--name", "{w}.png"],
             "--size 64x64 and --size 64x32 of"),
            (["fill", "--size", "64x64", "--size", "64x", master, "--out-dir", dir + "/a", "--name", "{w}{h}.png"], "--size"),
            (["fill", "--size", "64x64", "--size", "70000x10", master, "--out-dir", dir + "/a", "--name", "{w}.jpg"],
             "too large for JPEG"),
        ]
        for (args, message) in cases {
            let r = CLI.run(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/a"), "nothing written after a usage error")
        // A broken input fails every output and writes none; the good input beside it is done.
        let broken = dir + "/broken.png"
        let bytes = try XCTUnwrap(CLI.bytes(master))
        XCTAssertTrue(FileManager.default.createFile(atPath: broken, contents: bytes.prefix(bytes.count / 2)))
        let r = CLI.run(["fill", "--size", "64x64", "--size", "32x32", master, broken, "--out-dir", dir + "/b", "--name", "{stem}-{w}.png"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(CLI.files(dir + "/b"), ["m-32.png", "m-64.png"])
        XCTAssertEqual(r.stderr.components(separatedBy: "broken.png:").count, 2, "one line for the broken input: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("2 ok, 2 failed"), r.stderr)
    }

    func testConvertScalesWithOneSidedSizes() throws {
        let dir = CLI.tempDir()
        let master = dir + "/m.png"
        try Self.write(Self.master(width: 300, height: 200, alpha: false), master, as: .png)
        let r = CLI.run(["convert", "--size", "150x", "--size", "x50", "--size", "600x", "--no-upscale", master,
                         "--out-dir", dir + "/c", "--name", "{stem}-{w}-{h}.jpg"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(CLI.size(dir + "/c/m-150-.jpg"), "150x100")
        XCTAssertEqual(CLI.size(dir + "/c/m--50.jpg"), "75x50")
        XCTAssertEqual(CLI.size(dir + "/c/m-600-.jpg"), "300x200", "--no-upscale keeps the size")
        XCTAssertEqual(CLI.run(["fit", "--size", "150x", master, "-o", dir + "/fit.jpg"]).status, 0)
        XCTAssertEqual(CLI.bytes(dir + "/fit.jpg"), CLI.bytes(dir + "/c/m-150-.jpg"), "convert --size is fit")
    }
}

/// The Makefile of docs/batches.md, run by make as a user would, with the built imgscale on PATH.
final class ReadmeMakefileTests: XCTestCase {
    func testMakefileRulesMakeTheIconSetAndSrcset() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/make") else {
            throw missingReference("make is not installed; the Makefile of docs/batches.md was not run")
        }
        let readme = try String(contentsOfFile: CLI.root + "/docs/batches.md", encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "```make\n"))
        let end = try XCTUnwrap(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let dir = CLI.tempDir()
        try String(readme[start.upperBound..<end.lowerBound]).write(toFile: dir + "/Makefile", atomically: true, encoding: .utf8)
        try ManyOutputsTests.write(ManyOutputsTests.master(width: 1200, height: 1200, alpha: true), dir + "/master.png", as: .png)
        try FileManager.default.createDirectory(atPath: dir + "/photos", withIntermediateDirectories: true)
        try ManyOutputsTests.write(ManyOutputsTests.master(width: 1600, height: 1000, alpha: false), dir + "/photos/beach.jpg", as: .jpeg)
        let bin = (CLI.binary as NSString).deletingLastPathComponent
        let r = CLI.sh("PATH=\(bin):$PATH make -s AppIcon/icon-1024.png web/beach-320w.jpg", cwd: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let icons = CLI.files(dir + "/AppIcon")
        XCTAssertEqual(icons.count, 13, "\(icons)")
        XCTAssertEqual(CLI.size(dir + "/AppIcon/icon-20.png"), "20x20")
        XCTAssertEqual(try ImageCodec.info(try ImageFile.read(dir + "/AppIcon/icon-1024.png")).channels, 3, "--flatten: opaque")
        XCTAssertEqual(CLI.files(dir + "/web"), ["beach-1280w.jpg", "beach-1920w.jpg", "beach-320w.jpg", "beach-640w.jpg"])
        XCTAssertEqual(CLI.size(dir + "/web/beach-640w.jpg"), "640x400")
        XCTAssertEqual(CLI.size(dir + "/web/beach-1920w.jpg"), "1600x1000", "--no-upscale")
        // Up to date: make runs nothing the second time.
        let again = CLI.sh("PATH=\(bin):$PATH make AppIcon/icon-1024.png web/beach-320w.jpg", cwd: dir)
        XCTAssertTrue(again.stdout.contains("is up to date"), again.stdout)
    }
}
