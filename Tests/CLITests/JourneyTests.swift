import XCTest

/// Whole jobs as users type them, at their defaults, through the installed binary: every
/// output checked by an outside reader (Pillow), the exit status, the one-line errors and,
/// where the budget is the point, the peak RSS measured by scripts/peak-rss.
final class JourneyTests: XCTestCase {
    /// The peak RSS in MiB and the stderr without its peak-rss line; fails when the line is missing.
    private func peak(_ r: CLI.Result, file: StaticString = #filePath, line: UInt = #line) -> (mib: Double, stderr: String) {
        var lines = r.stderr.split(separator: "\n").map(String.init)
        guard let last = lines.popLast(), last.hasPrefix("peak-rss: "),
              let kib = last.split(separator: " ").first(where: { $0.hasPrefix("kib=") }).flatMap({ Double($0.dropFirst(4)) }) else {
            XCTFail("no peak-rss line: \(r.stderr)", file: file, line: line)
            return (.infinity, r.stderr)
        }
        return (kib / 1024, lines.joined(separator: "\n"))
    }

    /// Each file's format and size as Pillow reads it, by name.
    private func pillow(_ dir: String) -> [String: String] {
        let r = CLI.sh("""
            python3 - '\(dir)' <<'EOF'
            import os, sys
            from PIL import Image
            d = sys.argv[1]
            for n in sorted(f for f in os.listdir(d) if not f.startswith(".")):
                try:
                    with Image.open(os.path.join(d, n)) as im:
                        im.load()
                        print(n, im.format, "%dx%d" % im.size)
                except Exception as e:
                    print(n, "unreadable", type(e).__name__)
            EOF
            """)
        var out: [String: String] = [:]
        for l in r.stdout.split(separator: "\n") {
            let parts = l.split(separator: " ", maxSplits: 1).map(String.init)
            if parts.count == 2 { out[parts[0]] = parts[1] }
        }
        return out
    }

    /// The srcset of a 12 MP photo at defaults: 4 widths x 2 scales x WebP, AVIF and JPEG.
    /// All at once it would need about 739 MiB (the AVIF encoder alone works in about
    /// 340 MiB at 3840 wide), so the plan runs it in rounds within the 512 MiB budget;
    /// it failed every output before (the worker's address-space limit).
    func testSrcsetOfACameraPhotoAtDefaults() throws {
        try XCTSkipIf(HostileInputTests.sanitized, "SKIPPED under sanitizers: their shadow memory is not the budget's, and 24 AVIF and WebP encodes take minutes")
        let photo = try CLI.sharedDir("photos") + "/street-4032x3024.jpg"
        let dir = CLI.tempDir()
        let args = ["fit", "--size", "320x", "--size", "640x", "--size", "1280x", "--size", "1920x", "--scale", "1", "--scale", "2",
                    "--no-upscale", "--format", "webp", "--format", "avif", "--format", "jpeg", photo, "--out-dir", dir + "/web",
                    "--name", "{stem}-{width}w{at}.{ext}", "--if-changed", "--report", dir + "/report.jsonl"]
        let plan = CLI.run(["plan"] + args)
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(plan.stdout.contains("schedule: "), plan.stdout)
        let quoted = args.map { "'" + $0 + "'" }.joined(separator: " ")
        let r = CLI.sh("python3 '\(CLI.root)/scripts/peak-rss' \"$IMGSCALE\" \(quoted)")
        let (mib, stderr) = peak(r)
        XCTAssertEqual(r.status, 0, stderr)
        // The budget, and the process's own base beside it.
        let (base, _) = peak(CLI.sh("python3 '\(CLI.root)/scripts/peak-rss' \"$IMGSCALE\" --version"))
        XCTAssertGreaterThan(base, 1, "the base was measured")
        XCTAssertLessThan(mib, 512 + base, "peak RSS")
        let made = pillow(dir + "/web")
        XCTAssertEqual(made.count, 24, "\(made)")
        for w in [320, 640, 1280, 1920] {
            for (at, scale) in [("", 1), ("@2x", 2)] {
                let width = w * scale, height = width * 3 / 4
                XCTAssertEqual(made["street-4032x3024-\(width)w\(at).jpg"], "JPEG \(width)x\(height)")
                XCTAssertEqual(made["street-4032x3024-\(width)w\(at).webp"], "WEBP \(width)x\(height)")
                XCTAssertNotNil(made["street-4032x3024-\(width)w\(at).avif"])
            }
        }
        let report = try String(contentsOfFile: dir + "/report.jsonl", encoding: .utf8)
        XCTAssertEqual(report.split(separator: "\n").filter { $0.contains("\"status\":\"ok\"") }.count, 24, report)
    }

    /// Each encoder's estimate foretells its peak RSS at 1.0-1.5x (scripts/encoder-memory,
    /// whose full table docs/security.md quotes), on a sample: two widths at two threads.
    func testEncoderEstimatesForetellTheirPeak() throws {
        try XCTSkipIf(HostileInputTests.sanitized, "SKIPPED under sanitizers: their allocator's memory is not the estimate's")
        let photo = try CLI.sharedDir("photos") + "/street-4032x3024.jpg"
        let r = CLI.sh("python3 '\(CLI.root)/scripts/encoder-memory' --binary \"$IMGSCALE\" --photo '\(photo)' --widths 320,1280 --threads 2")
        XCTAssertEqual(r.status, 0, r.stderr)
        let rows = r.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(rows.count, 18, r.stdout)
        for row in rows {
            guard row.count == 8, let ratio = Double(row[7]) else { XCTFail("row \(row)"); continue }
            XCTAssertGreaterThanOrEqual(ratio, 1.0, "\(row[0]) at \(row[1]) wide: estimate under the peak (\(row))")
            XCTAssertLessThanOrEqual(ratio, 1.5, "\(row[0]) at \(row[1]) wide: estimate over 1.5x the peak (\(row))")
        }
    }

    /// A narrow source among wide ones under --no-upscale with {width} in the name: the
    /// widths above it give one file, written once and said once (under -v and in the
    /// report), never a usage error; the other inputs are written as asked.
    func testNarrowSourceInABatchGivesEachFileOnce() throws {
        let dir = CLI.tempDir()
        try FileManager.default.copyItem(atPath: CLI.testImages + "/scene-640x427.jpg", toPath: dir + "/scene.jpg")
        try FileManager.default.copyItem(atPath: CLI.testImages + "/gradient-rgb-64x48.png", toPath: dir + "/small.png")
        let r = CLI.run(["fit", "--size", "32x", "--size", "320x", "--size", "800x", "--no-upscale", "--format", "webp", "--format", "jpeg",
                         "small.png", "scene.jpg", "--out-dir", "out", "--name", "{stem}-{width}w.{ext}", "--report", "r.jsonl", "-v"], cwd: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(CLI.files(dir + "/out"), ["scene-320w.jpg", "scene-320w.webp", "scene-32w.jpg", "scene-32w.webp",
                                                 "scene-640w.jpg", "scene-640w.webp", "small-32w.jpg", "small-32w.webp",
                                                 "small-64w.jpg", "small-64w.webp"])
        let notes = r.stderr.split(separator: "\n").filter { $0.contains("give the same") }
        XCTAssertEqual(notes, ["imgscale: small.png: --size 320x and --size 800x give the same 64x48 picture (no upscaling past the source): written once"],
                       r.stderr)
        let report = try String(contentsOfFile: dir + "/r.jsonl", encoding: .utf8)
        XCTAssertEqual(report.split(separator: "\n").filter { $0.contains("\"note\":\"--size 320x and --size 800x give the same") }.count, 2, report)
        XCTAssertEqual(pillow(dir + "/out")["small-64w.jpg"], "JPEG 64x48")
    }

    /// The first recording of a golden suite makes the goldens directory.
    func testFirstGoldenRecordingMakesTheDirectory() throws {
        let dir = CLI.tempDir()
        let r1 = CLI.run(["fill", "--size", "48x32", CLI.testImages + "/scene-640x427.jpg", CLI.testImages + "/strokes-130x90.png",
                          "--out-dir", dir + "/out", "--format", "png"])
        XCTAssertEqual(r1.status, 0, r1.stderr)
        let record = CLI.run(["compare", dir + "/goldens/ui", dir + "/out", "--update", "missing"])
        XCTAssertEqual(record.status, 0, record.stderr)
        XCTAssertEqual(CLI.files(dir + "/goldens/ui"), ["scene-640x427.png", "strokes-130x90.png"])
        let check = CLI.run(["compare", dir + "/goldens/ui", dir + "/out"])
        XCTAssertEqual(check.status, 0, check.stderr + check.stdout)
        // Without --update, a missing goldens directory is still the usage error it was.
        XCTAssertEqual(CLI.run(["compare", dir + "/nothing", dir + "/out"]).status, 2)
    }

    /// Limits past any image, and names past any path, are usage errors that make nothing.
    func testOutOfRangeValuesAreUsageErrors() {
        let dir = CLI.tempDir()
        let a = CLI.testImages + "/scene-640x427.png"
        for v in ["1e300", "9223372036854775807", "99999999999999999999", "101%", "-1", "1.5"] {
            let r = CLI.run(["compare", a, a, "--max-pixels-differ", v])
            XCTAssertEqual(r.status, 2, "\(v): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--max-pixels-differ must be"), r.stderr)
        }
        XCTAssertEqual(CLI.run(["compare", a, a, "--max-pixels-differ", "281474976710656"]).status, 0)
        let deep = String(repeating: "d/", count: 2100) + "{name}"
        let r = CLI.run(["fill", "--size", "8x8", a, "--out-dir", dir + "/out", "--name", deep])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("a path has at most 4095"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out"), "no directory made")
    }
}
