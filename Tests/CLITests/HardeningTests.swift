import XCTest
import TestReferences
import Foundation
import ImageScaler

/// Hostile and broken inputs through the CLI: each exits 1 with one line
/// `imgscale: <path>: <reason>`, leaves no output, and the rest of a batch still works.
final class HardeningTests: XCTestCase {
    func write(_ bytes: [UInt8], _ path: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }

    /// Runs one conversion and checks the failure contract.
    func expectFailure(_ input: String, _ reason: String? = nil, args: [String] = ["fill", "--size", "16x16"],
                       file: StaticString = #filePath, line: UInt = #line) {
        let out = CLI.tempDir()
        let r = CLI.run(args + [input, "-o", out + "/out.png"])
        XCTAssertEqual(r.status, 1, "\(input): \(r.stderr)", file: file, line: line)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, r.stderr, file: file, line: line)
        XCTAssertTrue(r.stderr.hasPrefix("imgscale: \(input): "), r.stderr, file: file, line: line)
        if let reason { XCTAssertTrue(r.stderr.contains(reason), "\(r.stderr) lacks \(reason)", file: file, line: line) }
        XCTAssertEqual(CLI.files(out), [], "no output, no debris", file: file, line: line)
    }

    func testTruncatedAtEveryChunkAndMarker() throws {
        let dir = CLI.tempDir()
        let png = try ImageFile.read(CLI.testImages + "/scene-640x427.png")
        for cut in Crafted.pngCuts(png) {
            write(Array(png[0..<cut]), dir + "/cut-\(cut).png")
            expectFailure(dir + "/cut-\(cut).png")
        }
        let jpeg = try ImageFile.read(CLI.testImages + "/scene-640x427.jpg")
        for cut in Crafted.jpegCuts(jpeg) {
            write(Array(jpeg[0..<cut]), dir + "/cut-\(cut).jpg")
            expectFailure(dir + "/cut-\(cut).jpg")
        }
    }

    /// A JPEG large enough that a 1/8 decode takes two threads (the second starting in
    /// the middle of the data), damaged in either half: the one-line failure, nothing
    /// written, and with --fail-on none libjpeg's lenient thumbnail and a warning.
    func testDamagedLargeJPEGsOnTheTwoThreadPath() throws {
        let dir = CLI.tempDir()
        let big = dir + "/big.jpg"
        // Noise: it compresses poorly, so the data is large.
        var pixels = [UInt8](repeating: 0, count: 3200 * 600 * 3)
        var seed: UInt32 = 7
        for i in pixels.indices {
            seed = seed &* 1664525 &+ 1013904223
            pixels[i] = UInt8(seed >> 24)
        }
        let jpeg = try ImageCodec.encode(try PixelBuffer(width: 3200, height: 600, channels: 3, pixels: pixels), as: .jpeg,
                                         options: EncodeOptions())
        write(jpeg, big)
        XCTAssertGreaterThan(jpeg.count, 1 << 19, "large enough to split")
        let args = ["fit", "--size", "160x"]
        let first = CLI.run(args + [big, "-o", dir + "/a.png", "-v"]), again = CLI.run(args + [big, "-o", dir + "/b.png"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains("1/8"), first.stderr)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(CLI.bytes(dir + "/a.png"), CLI.bytes(dir + "/b.png"), "the same bytes on every run")
        let scan = try XCTUnwrap((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        for (name, at) in [("front", scan + (jpeg.count - scan) / 5), ("back", scan + (jpeg.count - scan) * 4 / 5)] {
            let bad = dir + "/bad-\(name).jpg"
            // Stuffed FF bytes: all ones, which no Huffman code is.
            var damaged = jpeg
            let from = (at..<jpeg.count).first { jpeg[$0 - 1] != 0xFF }!
            for i in stride(from: from, to: from + 200, by: 2) {
                damaged[i] = 0xFF
                damaged[i + 1] = 0x00
            }
            write(damaged, bad)
            let out = CLI.tempDir()
            expectFailure(bad, "Corrupt JPEG data", args: args)
            let lenient = CLI.run(args + ["--fail-on", "none", bad, "-o", out + "/t.png"])
            XCTAssertEqual(lenient.status, 0, lenient.stderr)
            XCTAssertTrue(lenient.stderr.contains("warning: damaged JPEG decoded anyway"), lenient.stderr)
            XCTAssertEqual(CLI.size(out + "/t.png"), CLI.size(dir + "/a.png"))
            let cut = dir + "/cut-\(name).jpg"
            write(Array(jpeg[0..<at]), cut)
            expectFailure(cut, "JPEG", args: args)
        }
    }

    /// A camera-style JPEG (4:2:2, a restart marker every MCU row) damaged mid-scan, where
    /// imgscale's entropy decoder hands the rest to libjpeg: the one-line failure with
    /// libjpeg's words and nothing written; with --fail-on none, djpeg's own concealment,
    /// byte for byte, at full size.
    func testDamageMidScanIsLibjpegsAtFullSize() throws {
        let dir = CLI.tempDir()
        let jpeg = try ImageFile.read(CLI.testImages + "/restart-422-row-640x427.jpg")
        let scan = try XCTUnwrap((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        var ones = jpeg
        let from = try XCTUnwrap((scan + (jpeg.count - scan) / 2..<jpeg.count).first { jpeg[$0 - 1] != 0xFF && jpeg[$0] != 0xFF })
        for i in stride(from: from, to: from + 40, by: 2) {
            ones[i] = 0xFF
            ones[i + 1] = 0x00
        }
        for (name, bytes, reason) in [("ones", ones, "Corrupt JPEG data"), ("cut", Array(jpeg[0..<from]), "JPEG")] {
            let bad = dir + "/\(name).jpg"
            write(bytes, bad)
            expectFailure(bad, reason, args: ["convert"])
            let out = CLI.tempDir()
            let lenient = CLI.run(["convert", "--fail-on", "none", bad, "-o", out + "/t.png"])
            XCTAssertEqual(lenient.status, 0, lenient.stderr)
            // djpeg exits 2 after warnings.
            let djpeg = CLI.sh("djpeg '\(bad)' > '\(out)/ref.ppm'")
            guard djpeg.status == 0 || djpeg.status == 2, let ppm = CLI.bytes(out + "/ref.ppm"), let png = CLI.bytes(out + "/t.png") else {
                throw missingReference("djpeg is not installed (scripts/install-deps --test installs it)")
            }
            let ours = try ImageCodec.decode(Array(png)).0
            // djpeg's P6: "P6\n640 427\n255\n" then RGB.
            let header = Array("P6\n640 427\n255\n".utf8)
            XCTAssertEqual(Array(ppm.prefix(header.count)), header, name)
            XCTAssertEqual(ours.pixels, Array(ppm.dropFirst(header.count)), "\(name): djpeg's concealment")
        }
    }

    func testCorruptData() throws {
        let dir = CLI.tempDir()
        write([], dir + "/empty.png")
        expectFailure(dir + "/empty.png", "empty file")
        write(Array("not an image at all\n".utf8), dir + "/text.png")
        expectFailure(dir + "/text.png", "(unrecognised signature)")
        write(Crafted.png(width: 8, height: 8, rows: 8, badIHDR: true), dir + "/ihdr-crc.png")
        expectFailure(dir + "/ihdr-crc.png", "IHDR: CRC error")
        write(Crafted.png(width: 8, height: 8, rows: 8, badIDAT: true), dir + "/idat-crc.png")
        expectFailure(dir + "/idat-crc.png", "IDAT: CRC error")
        write(Crafted.png(width: 0, height: 8, rows: 0), dir + "/zero.png")
        expectFailure(dir + "/zero.png", "invalid PNG")
        var seed: UInt32 = 99
        for (sig, name) in [(Crafted.signature, "noise.png"), ([0xFF, 0xD8, 0xFF, 0xE0] as [UInt8], "noise.jpg")] {
            var bytes = sig
            for _ in 0..<5000 { seed = seed &* 1664525 &+ 1013904223; bytes.append(UInt8(seed >> 24)) }
            write(bytes, dir + "/" + name)
            expectFailure(dir + "/" + name)
        }
        // A PNG named .jpg simply works: content decides.
        try FileManager.default.copyItem(atPath: CLI.testImages + "/scene-640x427.png", toPath: dir + "/really.jpg")
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", dir + "/really.jpg", "-o", dir + "/ok.png"]).status, 0)
    }

    func testCorruptArithmeticAndTwelveBitJPEG() throws {
        let jpegDir = try CLI.sharedDir("jpeg")
        expectFailure(jpegDir + "/monkey12.jpg", "12-bit JPEG is not supported")
        // Arithmetic-coded data carries no checksum, so flipped bits decode silently (djpeg
        // too); garbage that breaks the structure must be refused, never crash.
        var ari = try ImageFile.read(jpegDir + "/testimgari.jpg")
        let dir = CLI.tempDir()
        var seed: UInt32 = 1
        for i in ari.count / 2..<ari.count / 2 + 2000 { seed = seed &* 1664525 &+ 1013904223; ari[i] = UInt8(seed >> 24) }
        write(ari, dir + "/ari-corrupt.jpg")
        expectFailure(dir + "/ari-corrupt.jpg", "invalid JPEG")
    }

    func testFilesystemFailures() throws {
        let dir = CLI.tempDir()
        expectFailure(dir, "is a directory")
        expectFailure(dir + "/missing.png", "No such file or directory")
        // An output directory that is a file.
        write([1], dir + "/plainfile")
        let r = CLI.run(["fill", "--size", "8x8", "--out-dir", dir + "/plainfile", CLI.testImages + "/scene-640x427.png"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("not a directory"), r.stderr)
    }

    /// Permission checks do not apply to root, so these run as nobody through setpriv.
    func testPermissionsAsAnUnprivilegedUser() throws {
        guard getuid() == 0 else { throw XCTSkip("SKIPPED: needs root to switch to nobody with setpriv") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { throw missingReference("setpriv (util-linux) is missing") }
        let dir = "/tmp/imgscale-perm-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir + "/locked", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLI.testImages + "/scene-640x427.png", toPath: dir + "/secret.png")
        try FileManager.default.copyItem(atPath: CLI.testImages + "/scene-640x427.png", toPath: dir + "/open.png")
        chmod(dir, 0o777)
        chmod(dir + "/secret.png", 0o000)
        chmod(dir + "/open.png", 0o644)
        chmod(dir + "/locked", 0o555)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func asNobody(_ args: [String]) -> CLI.Result {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            p.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", CLI.binary] + args
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try! p.run()
            let data = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return CLI.Result(status: p.terminationStatus, stdout: "", stderr: String(decoding: data, as: UTF8.self))
        }
        let unreadable = asNobody(["fill", "--size", "8x8", dir + "/secret.png", "-o", dir + "/out.png"])
        XCTAssertEqual(unreadable.status, 1)
        XCTAssertEqual(unreadable.stderr, "imgscale: \(dir)/secret.png: Permission denied\n")
        let unwritable = asNobody(["fill", "--size", "8x8", dir + "/open.png", "-o", dir + "/locked/out.png"])
        XCTAssertEqual(unwritable.status, 1)
        XCTAssertTrue(unwritable.stderr.contains("Permission denied"), unwritable.stderr)
        XCTAssertEqual(CLI.files(dir + "/locked"), [])
    }

    /// A full disk, simulated with a file-size limit: the big output fails cleanly, the
    /// small one in the same batch succeeds, and nothing partial is left.
    func testFullDiskLeavesNoPartialFile() throws {
        if ProcessInfo.processInfo.environment["IMGSCALE_UNDER_TSAN"] != nil {
            // Its runtime maps terabytes of shadow memory, which fails under `ulimit -f`.
            throw XCTSkip("SKIPPED: ThreadSanitizer's runtime cannot start under ulimit -f")
        }
        let dir = CLI.tempDir()
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        // ulimit -f counts 1024-byte blocks in bash: 64 KiB fits the tiny image only.
        p.arguments = ["-c", "ulimit -f 64; exec \"$0\" \"$@\"", CLI.binary, "convert", "--compression", "0",
                       "--out-dir", out, "--name", "{stem}.png", CLI.testImages + "/scene-640x427.png", CLI.testImages + "/two-colour-8x8.png"]
        let err = Pipe()
        p.standardError = err
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 1, text)
        XCTAssertTrue(text.contains("imgscale: \(CLI.testImages)/scene-640x427.png: cannot write"), text)
        XCTAssertTrue(text.contains("File too large"), text)
        XCTAssertEqual(CLI.files(out), ["two-colour-8x8.png"])
    }

    func testPixelLimitsFromTheHeaderFailFast() throws {
        let dir = CLI.tempDir()
        // 20000 x 20000 = 400 M pixels claimed by a 100-byte file: over the default limit.
        write(Crafted.png(width: 20000, height: 20000, rows: 1), dir + "/bomb.png")
        let start = Date()
        expectFailure(dir + "/bomb.png", "image is 20000x20000 = 400000000 pixels, over the limit of 268402689")
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
        // Under the limit but truncated: fails as truncated, quickly, without touching
        // gigabytes (the whole-image path allocates lazily-committed memory).
        write(Crafted.png(width: 16000, height: 16000, rows: 3), dir + "/short.png")
        // A convert streams its rows to the encoder; a crop of it all holds the picture.
        for (args, reason) in [(["fill", "--size", "16x16"], "invalid PNG"), (["convert"], "invalid PNG"),
                               (["crop", "--rect", "0,0,16000,15999"], "over the memory budget of 512 MiB"),
                               (["crop", "--rect", "0,0,16000,15999", "--max-memory", "1G"], "invalid PNG")] {
            let t0 = Date()
            expectFailure(dir + "/short.png", reason, args: args)
            XCTAssertLessThan(Date().timeIntervalSince(t0), 5)
        }
        expectFailure(CLI.testImages + "/scene-640x427.png", "over the limit of 1000", args: ["fill", "--size", "8x8", "--max-pixels", "1000"])
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", "--max-pixels", "0", CLI.testImages + "/scene-640x427.png", "-o", dir + "/ok.png"]).status, 0)
        // The output is held to the limit too.
        // An upscaling fit is refused per input, before decoding.
        expectFailure(CLI.testImages + "/scene-640x427.png", "output would be 100000x66719", args: ["fit", "--size", "100000x100000"])
    }

    func testThousandsOfProgressiveScansAreRefused() throws {
        // A valid progression of 1,891 scans (scripts/make-many-scans.c); each scan is a
        // pass over the image, so such files are refused rather than decoded slowly.
        let t0 = Date()
        expectFailure(CLI.testImages + "/regressions/jpeg-many-scans.jpg", "more than 500 progressive scans")
        XCTAssertLessThan(Date().timeIntervalSince(t0), 5)
    }
}
