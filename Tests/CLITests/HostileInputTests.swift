import XCTest
import TestReferences
import Foundation

/// Inputs built to exhaust memory or time, run through the CLI with their peak RSS and
/// wall time measured (scripts/peak-rss, the child's own wait4 figures). Each either
/// finishes within the 512 MiB budget or is refused, before the memory is committed,
/// with a line that says why. The files are made by scripts/make-hostile; under the
/// sanitizers (IMGSCALE_SANITIZED) the RSS and time bounds are not checked.
final class HostileInputTests: XCTestCase {
    struct Measured {
        let status: Int32
        let stderr: String
        let mib: Double
        let seconds: Double
    }

    static let sanitized = ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] != nil

    /// The hostile files, made once per machine (make-hostile skips existing ones).
    static let dir: String = {
        let dir = NSTemporaryDirectory() + "imgscale-hostile"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let r = CLI.sh("python3 '\(CLI.root)/scripts/make-hostile' '\(dir)' ztxt-bomb.png tall-8m.png dc-only.jpg adam7-truncated.png exif-long-6.jpg")
        precondition(r.status == 0, "make-hostile failed: \(r.stderr)")
        return dir
    }()

    func measure(_ args: [String], stdinFrom: String? = nil, cwd: String? = nil,
                 file: StaticString = #filePath, line: UInt = #line) -> Measured {
        let quoted = args.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let input = stdinFrom.map { " < \($0)" } ?? ""
        let r = CLI.sh("python3 '\(CLI.root)/scripts/peak-rss' \"$IMGSCALE\" \(quoted)\(input)", cwd: cwd)
        var lines = r.stderr.split(separator: "\n").map(String.init)
        let last = lines.popLast() ?? ""
        var fields: [String: Double] = [:]
        for part in last.split(separator: " ").dropFirst() {
            let kv = part.split(separator: "=")
            if kv.count == 2 { fields[String(kv[0])] = Double(kv[1]) }
        }
        // A measurement that did not happen fails, and its bounds with it (never -1, which passes them).
        guard last.hasPrefix("peak-rss: "), let kib = fields["kib"], let seconds = fields["seconds"] else {
            XCTFail("no peak-rss line from scripts/peak-rss: \(r.stderr.suffix(500))", file: file, line: line)
            return Measured(status: r.status, stderr: r.stderr, mib: .infinity, seconds: .infinity)
        }
        return Measured(status: r.status, stderr: lines.joined(separator: "\n"), mib: kib / 1024, seconds: seconds)
    }

    func within(_ m: Measured, mib: Double, seconds: Double, file: StaticString = #filePath, line: UInt = #line) {
        guard !HostileInputTests.sanitized else { return }
        XCTAssertLessThan(m.mib, mib, "peak RSS", file: file, line: line)
        XCTAssertLessThan(m.seconds, seconds, "wall time", file: file, line: line)
    }

    func testTextChunkBombIsNeverInflated() {
        let bomb = HostileInputTests.dir + "/ztxt-bomb.png"
        let info = measure(["info", bomb])
        XCTAssertEqual(info.status, 0, info.stderr)
        within(info, mib: 64, seconds: 2)
        let out = CLI.tempDir()
        let fill = measure(["fill", "--size", "16x16", bomb, "-o", out + "/t.png", "--keep-metadata"])
        XCTAssertEqual(fill.status, 0, fill.stderr)
        within(fill, mib: 64, seconds: 2)
    }

    func testLongStripNeedsNoWeightTableOfItsLength() throws {
        // 1 x 8,000,000 -> 1 x 256: a weight table would be 256 x 62,501 taps (64 MB).
        try XCTSkipIf(HostileInputTests.sanitized, "SKIPPED under sanitizers: 8 million rows take minutes there")
        let out = CLI.tempDir()
        let m = measure(["fit", "--size", "256x256", HostileInputTests.dir + "/tall-8m.png", "-o", out + "/t.png"])
        XCTAssertEqual(m.status, 0, m.stderr)
        XCTAssertEqual(CLI.size(out + "/t.png"), "1x256")
        within(m, mib: 40, seconds: 60)
    }

    func testWholeImageBuffersOverTheBudgetAreRefusedFromTheHeader() {
        let out = CLI.tempDir()
        // A progressive 16383^2 JPEG keeps every coefficient (770 MiB); an Adam7 16383^2
        // RGBA PNG needs its whole image (1 GiB) before any row is final.
        for name in ["dc-only.jpg", "adam7-truncated.png"] {
            let m = measure(["fill", "--size", "64x64", HostileInputTests.dir + "/" + name, "-o", out + "/o.png"])
            XCTAssertEqual(m.status, 1, m.stderr)
            XCTAssertTrue(m.stderr.contains("over the memory budget of 512 MiB (raise it with --max-memory)"), m.stderr)
            within(m, mib: 64, seconds: 1)
        }
        let small = measure(["fill", "--size", "64x64", "--max-memory", "64M", CLI.testImages + "/scene-640x427.jpg", "-o", out + "/o.png"])
        XCTAssertEqual(small.status, 0, "a photo thumbnail fits a small budget: \(small.stderr)")
        let tiny = measure(["convert", "--max-memory", "300K", CLI.testImages + "/scene-640x427.png", "-o", out + "/o.png"])
        XCTAssertEqual(tiny.status, 1)
        XCTAssertTrue(tiny.stderr.contains("over the memory budget of 300 KiB"), tiny.stderr)
        XCTAssertEqual(CLI.files(out), ["o.png"])
    }

    func testProgressiveScansAreBoundedByTheBlocksTheyVisit() throws {
        // 442 valid scans over 4096x2048: under the 500-scan limit, but more than 32
        // passes over the image.
        let dir = CLI.tempDir()
        let made = CLI.sh("gcc -O2 -o many '\(CLI.root)/scripts/make-many-scans.c' -ljpeg && ./many scans.jpg 4096 2048 442", cwd: dir)
        if made.status != 0 { throw missingReference("cannot build scripts/make-many-scans.c: \(made.stderr)") }
        let m = measure(["fill", "--size", "64x64", dir + "/scans.jpg", "-o", dir + "/o.png"])
        XCTAssertEqual(m.status, 1, m.stderr)
        XCTAssertTrue(m.stderr.contains("scans add up to more than 32 passes over the image"), m.stderr)
        within(m, mib: 128, seconds: 10)
    }

    /// The newer formats' rows of the table: item-graph cycles, a coded size larger than
    /// its `ispe`, a huge animation canvas or GIF frame, and metadata copied into many
    /// outputs. Each is refused from its header, before its memory is committed, or done
    /// within the budget; and in a batch, the good inputs beside them are still written.
    func testNewerFormatRowsStayWithinTheBudgetAndTheTime() throws {
        let dir = HostileInputTests.dir
        let names = ["heif-iden-self.heic", "heif-grid-self.heic", "heif-grid-1024.heic", "avif-liar-4096.avif",
                     "webp-anim-12500.webp", "gif-frame-65535.gif", "icc-8mb.png", "webp-xmp-8mb.webp"]
        let made = CLI.sh("python3 '\(CLI.root)/scripts/make-hostile' '\(dir)' " + names.joined(separator: " "))
        if made.status != 0 {
            throw missingReference("scripts/make-hostile could not make the HEIF, WebP and GIF rows (it needs heif-enc and Pillow): \(made.stderr)")
        }
        let out = CLI.tempDir()
        let kept = CLI.testImages + "/hostile"
        let icc = stride(from: 40, through: 1200, by: 40).flatMap { ["--size", "\($0)x"] }
        let xmp = stride(from: 100, through: 1300, by: 100).flatMap { ["--size", "\($0)x"] }
        let rows: [(args: [String], status: Int32, says: String, mib: Double)] = [
            (["info", dir + "/heif-iden-self.heic"], 1, "invalid HEIC: item 2: an iden must derive from a coded image", 64),
            (["fill", "--size", "64x64", dir + "/heif-grid-self.heic", "-o", out + "/i.png"], 1, "a grid inside a derivation", 64),
            (["fill", "--size", "64x64", dir + "/heif-grid-1024.heic", "-o", out + "/i.png"], 1, "32x32 tiles of 64x64 do not fit its 64x64 output", 64),
            (["fill", "--size", "64x64", dir + "/avif-liar-4096.avif", "-o", out + "/i.png"], 1,
             "invalid AVIF: item 1 codes a 4096x4096 frame but declares 64x64 (ispe)", 64),
            (["fit", "--size", "64x64", dir + "/webp-anim-12500.webp", "-o", out + "/j.png"], 1, "over the memory budget of 512 MiB", 64),
            (["fit", "--size", "64x64", dir + "/gif-frame-65535.gif", "-o", out + "/k.png"], 1,
             "image is 65535x65535 = 4294836225 pixels, over the limit of 268402689 (raise it with --max-pixels)", 64),
            (["fit"] + icc + ["--max-memory", "64M", dir + "/icc-8mb.png", "--out-dir", out + "/l", "--name", "{w}.avif"], 1,
             "over the memory budget of 64 MiB (raise it with --max-memory)", 64),
            (["fit"] + xmp + ["--keep-metadata", dir + "/webp-xmp-8mb.webp", "--out-dir", out + "/m", "--name", "{w}.webp"], 0, "", 400),
            // The table's exact sizes, which take heif-enc up to 25 s and 3.5 GB to make:
            // kept in TestImages/hostile (scripts/make-hostile made them).
            (["fill", "--size", "64x64", kept + "/avif-liar-16384.avif", "-o", out + "/n.png"], 1,
             "invalid AVIF: item 1 codes a 16384x16384 frame but declares 64x64 (ispe)", 64),
            (["fill", "--size", "64x64", kept + "/avif-grid-liars.avif", "-o", out + "/n.png"], 1,
             "invalid AVIF: item 1 codes a 16384x16384 frame but declares 64x64 (ispe)", 64),
            (["fill", "--size", "64x64", "--max-memory", "64M", kept + "/heic-grid-8192.heic", "-o", out + "/n.png"], 1,
             "invalid HEIC: item 1 codes a 8192x8192 frame but declares 64x64 (ispe)", 64),
            (["fill", "--size", "64x64", kept + "/heic-10bit-7400.heic", "-o", out + "/n.png"], 1,
             "would need about 792.8 MiB, over the memory budget of 512 MiB (raise it with --max-memory)", 64),
        ]
        for row in rows {
            let m = measure(row.args)
            XCTAssertEqual(m.status, row.status, "\(row.args.last!): \(m.stderr)")
            XCTAssertTrue(row.says.isEmpty || m.stderr.contains(row.says), "\(row.args): \(m.stderr)")
            // The 10 s bound of docs/security.md, with room for a loaded machine.
            within(m, mib: row.mib, seconds: 10)
        }
        XCTAssertEqual(CLI.files(out + "/m").count, 13)
        XCTAssertEqual(CLI.files(out + "/l"), [], "a refused input writes none of its outputs")
        // All of them in one batch between good files: each fails alone, the rest are written.
        let good = CLI.testImages + "/scene-640x427.jpg"
        let batch = measure(["fit", "--size", "32x32", good] + names.map { dir + "/" + $0 } + [CLI.testImages + "/two-colour-8x8.png",
                            "--out-dir", out + "/batch", "--name", "{stem}.png"])
        XCTAssertEqual(batch.status, 1, batch.stderr)
        XCTAssertTrue(CLI.files(out + "/batch").contains("scene-640x427.png"), batch.stderr)
        XCTAssertTrue(CLI.files(out + "/batch").contains("two-colour-8x8.png"), batch.stderr)
        within(batch, mib: 600, seconds: 20)
    }

    func testNonImagesOfAnyLengthAreRefusedAtOnce() {
        let dir = CLI.tempDir()
        _ = CLI.sh("truncate -s 3G huge.bin", cwd: dir)
        for (args, stdin) in [(["fill", "--size", "8x8", "/dev/zero", "-o", "o.png"], nil as String?),
                              (["fill", "--size", "8x8", "huge.bin", "-o", "o.png"], nil),
                              (["fill", "--size", "8x8", "-", "-o", "o.png"], "/dev/zero"),
                              (["info", "-"], "/dev/urandom")] {
            let m = measure(args, stdinFrom: stdin, cwd: dir)
            XCTAssertEqual(m.status, 1, "\(args): \(m.stderr)")
            XCTAssertTrue(m.stderr.contains("(unrecognised signature)"), m.stderr)
            within(m, mib: 64, seconds: 1)
        }
        // Endless data behind a valid signature stops at the budget, not at the end.
        let endless = CLI.sh("(printf '\\211PNG\\r\\n\\032\\n'; cat /dev/zero) | \"$IMGSCALE\" fill --size 8x8 --max-memory 32M - -o o.png", cwd: dir)
        XCTAssertEqual(endless.status, 1)
        XCTAssertTrue(endless.stderr.contains("larger than the memory budget of 32 MiB"), endless.stderr)
        XCTAssertEqual(CLI.files(dir), ["huge.bin"])
    }

    func testFifoInputWorksLikeAFile() {
        let dir = CLI.tempDir()
        let r = CLI.sh("mkfifo in.jpg && (cat '\(CLI.testImages)/scene-640x427.jpg' > in.jpg &) && \"$IMGSCALE\" fill --size 32x32 in.jpg -o out.png", cwd: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(CLI.size(dir + "/out.png"), "32x32")
    }

    func testAllocationFailureFailsOneInputNotTheBatch() throws {
        try XCTSkipIf(HostileInputTests.sanitized, "SKIPPED under sanitizers: their shadow memory needs more address space than the ulimit")
        let dir = CLI.tempDir()
        // 8000x8000 gray, stored uncompressed (64 MB): cropping it whole holds about 260 MB
        // (a convert streams it), inside the budget but not inside what a 300 MB
        // address-space limit leaves (the worker process runs its job on its own main
        // thread, without the address space other threads' malloc arenas reserve).
        let big = Crafted.png(width: 8000, height: 8000, rows: 8000)
        _ = FileManager.default.createFile(atPath: dir + "/big.png", contents: Data(big))
        let r = CLI.sh("ulimit -v 300000; \"$IMGSCALE\" crop --rect 0,0,8000,7999 --out-dir out big.png '\(CLI.testImages)/two-colour-8x8.png'", cwd: dir)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("imgscale: big.png: cannot allocate"), r.stderr)
        XCTAssertEqual(CLI.files(dir + "/out"), ["two-colour-8x8.png"])
    }
}
