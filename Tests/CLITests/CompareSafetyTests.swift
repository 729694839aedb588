import XCTest
import Foundation
import ImageScaler

/// compare's own promises under what a user or an attacker tries: hidden colour, masks,
/// side outputs among the compared files, symlinks in ACTUAL, names in the reports.
final class CompareSafetyTests: XCTestCase {
    private func png(_ path: String, _ width: Int, _ height: Int, channels: Int, _ pixel: [UInt8]) throws {
        let image = try PixelBuffer(width: width, height: height, channels: channels,
                                pixels: Array([[UInt8]](repeating: pixel, count: width * height).joined()))
        try ImageFile.write(try ImageCodec.encode(image, as: .png), to: path)
    }

    func testColourUnderAlphaCountsAsMuchAsItShows() throws {
        let dir = CLI.tempDir()
        try png(dir + "/a.png", 4, 4, channels: 4, [255, 0, 0, 1])
        try png(dir + "/b.png", 4, 4, channels: 4, [0, 0, 255, 1])
        // Premultiplied: round(255 * 1 / 255) = 1 against 0 in R and B; mean (1 + 1) / 4;
        // MSE over RGBA (1 + 1) / 4 = 0.5, PSNR 10 log10(65025 / 0.5) = 51.14.
        let r = CLI.run(["compare", dir + "/a.png", dir + "/b.png"])
        XCTAssertEqual(r.stdout, "differ: 16 pixels, max difference 1, mean 0.500, PSNR 51.14 dB\n")
        XCTAssertEqual(CLI.run(["compare", dir + "/a.png", dir + "/b.png", "--tolerance", "1"]).status, 0)
        XCTAssertEqual(CLI.run(["compare", dir + "/a.png", dir + "/b.png", "--min-psnr", "50"]).status, 0)
        // Opaque pixels keep their stored difference.
        try png(dir + "/c.png", 4, 4, channels: 4, [255, 0, 0, 255])
        try png(dir + "/d.png", 4, 4, channels: 4, [0, 0, 255, 255])
        XCTAssertTrue(CLI.run(["compare", dir + "/c.png", dir + "/d.png"]).stdout.contains("max difference 255"))
    }

    func testMaskOfAnotherSizeAndHugeCountsAreRefused() throws {
        let dir = CLI.tempDir()
        try png(dir + "/a.png", 4, 4, channels: 3, [9, 9, 9])
        try png(dir + "/b.png", 4, 4, channels: 3, [9, 9, 10])
        try png(dir + "/mask.png", 3, 3, channels: 1, [255])
        let masked = CLI.run(["compare", dir + "/a.png", dir + "/b.png", "--mask", dir + "/mask.png"])
        XCTAssertEqual(masked.status, 2)
        XCTAssertTrue(masked.stderr.contains("is 3x3, but the images are 4x4"), masked.stderr)
        // Past any image's pixels (2^48) is a usage error, not a limit that allows all.
        for huge in ["1e300", "9223372036854775808", "1e19"] {
            let r = CLI.run(["compare", dir + "/a.png", dir + "/b.png", "--max-pixels-differ", huge])
            XCTAssertEqual(r.status, 2, huge + r.stderr)
        }
    }

    func testSideOutputsNeverLandAmongTheComparedFiles() throws {
        let dir = CLI.tempDir()
        for d in ["gold", "act"] {
            try FileManager.default.createDirectory(atPath: "\(dir)/\(d)", withIntermediateDirectories: true)
            try png("\(dir)/\(d)/a.png", 2, 2, channels: 3, [1, 2, 3])
        }
        let golden = try Data(contentsOf: URL(fileURLWithPath: dir + "/gold/a.png"))
        for (option, path) in [("--junit", "gold/a.png"), ("--junit", "gold/report.xml"), ("--diff", "act/diffs"),
                               ("--html", "act/report"), ("--html", "gold")] {
            let r = CLI.run(["compare", dir + "/gold", dir + "/act", option, dir + "/" + path])
            XCTAssertEqual(r.status, 2, option + " " + path)
            XCTAssertTrue(r.stderr.contains("inside the compared directory") || r.stderr.contains("is the input"), r.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/gold/a.png")), golden)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/gold/report.xml"))
        let pair = CLI.run(["compare", dir + "/gold/a.png", dir + "/act/a.png", "--junit", dir + "/gold/a.png"])
        XCTAssertEqual(pair.status, 2)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/gold/a.png")), golden)
        // Beside them is fine.
        XCTAssertEqual(CLI.run(["compare", dir + "/gold", dir + "/act", "--junit", dir + "/compare.xml"]).status, 0)
    }

    func testUpdateCopiesOnlyImagesFromInsideActualAndLoopsAreWalkedOnce() throws {
        let dir = CLI.tempDir()
        for d in ["gold", "act"] { try FileManager.default.createDirectory(atPath: "\(dir)/\(d)", withIntermediateDirectories: true) }
        try png(dir + "/act/new.png", 2, 2, channels: 3, [1, 2, 3])
        try png(dir + "/outside.png", 2, 2, channels: 3, [4, 5, 6])
        try "root:x:0:0\n".write(toFile: dir + "/secret", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/act/passwd.png", withDestinationPath: dir + "/secret")
        try FileManager.default.createSymbolicLink(atPath: dir + "/act/stolen.png", withDestinationPath: dir + "/outside.png")
        try FileManager.default.createSymbolicLink(atPath: dir + "/act/loop", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: dir + "/act/loop2", withDestinationPath: ".")
        try FileManager.default.createSymbolicLink(atPath: dir + "/act/loop3", withDestinationPath: ".")
        let r = CLI.run(["compare", dir + "/gold", dir + "/act", "--update", "missing"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/gold/new.png"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/gold/passwd.png"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/gold/stolen.png"))
        // Links inside ACTUAL are not followed: each is one failure line.
        XCTAssertTrue(r.stderr.contains("act/stolen.png: a symbolic link"), r.stderr)
        // The walk saw each real directory once: no loop2/loop3/... phantoms.
        XCTAssertFalse(r.stderr.contains("loop2/"), r.stderr)
        XCTAssertLessThan(r.stderr.split(separator: "\n").count, 12, r.stderr)
    }

    func testSinglePairRecordsAMissingGolden() throws {
        let dir = CLI.tempDir()
        try png(dir + "/out.png", 2, 2, channels: 3, [1, 2, 3])
        let missing = CLI.run(["compare", dir + "/new.png", dir + "/out.png"])
        XCTAssertEqual(missing.status, 1, missing.stderr)
        XCTAssertTrue(missing.stdout.hasPrefix("extra: "), missing.stdout)
        let recorded = CLI.run(["compare", dir + "/new.png", dir + "/out.png", "--update", "missing"])
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        XCTAssertEqual(CLI.run(["compare", dir + "/new.png", dir + "/out.png"]).status, 0)
        // A symlink to a non-image is not copied as a golden.
        try "not an image".write(toFile: dir + "/text", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/fake.png", withDestinationPath: dir + "/text")
        XCTAssertNotEqual(CLI.run(["compare", dir + "/g2.png", dir + "/fake.png", "--update", "missing"]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/g2.png"))
    }

    func testReportNamesNeverCollideAndStayWellFormed() throws {
        let dir = CLI.tempDir()
        let names = ["a b.png", "a_b.png", "widgets/icon.png", "widgets_icon.png", "bidi\u{202E}gnp.png", "x\u{FFFE}\u{2028}.png"]
        for (i, name) in names.enumerated() {
            for d in ["gold", "act"] {
                let path = "\(dir)/\(d)/\(name)"
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try png(path, 2, 2, channels: 3, [UInt8(i), d == "act" ? 1 : 0, 0])
            }
        }
        let r = CLI.run(["compare", dir + "/gold", dir + "/act", "--html", dir + "/report", "--junit", dir + "/junit.xml", "--json"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let html = try String(contentsOfFile: dir + "/report/index.html", encoding: .utf8)
        // Each pair's section shows its own three pictures (in every view); no two share one.
        var assets = Set<String>()
        for section in html.components(separatedBy: "<section ").dropFirst() {
            let srcs = Set(section.components(separatedBy: "src=\"").dropFirst().map { String($0.split(separator: "\"")[0]) })
            XCTAssertEqual(srcs.count, 3, section)
            for src in srcs {
                XCTAssertTrue(assets.insert(src).inserted, "shared asset \(src)")
                XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/report/" + src), src)
            }
        }
        XCTAssertEqual(assets.count, names.count * 3)
        for bad in ["\u{202E}", "\u{2028}", "\u{FFFE}"] {
            XCTAssertFalse(html.contains(bad))
            XCTAssertFalse(r.stdout.contains(bad))
            XCTAssertFalse(r.stderr.contains(bad))
        }
        let junit = try Data(contentsOf: URL(fileURLWithPath: dir + "/junit.xml"))
        XCTAssertFalse(String(decoding: junit, as: UTF8.self).contains("\u{FFFE}"))
        // Well-formed to a strict parser (expat refuses U+FFFE even as a reference).
        let parsed = CLI.sh("python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' '\(dir)/junit.xml'")
        XCTAssertEqual(parsed.status, 0, parsed.stderr)
        for line in r.stdout.split(separator: "\n") {
            XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(line.utf8)), String(line))
        }
    }
}
