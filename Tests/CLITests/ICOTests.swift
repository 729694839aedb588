import XCTest
import TestReferences
import Foundation

/// favicon.ico through the built imgscale: every --size in the one file, each entry the
/// PNG that size alone makes, byte for byte; icotool lists the sizes and Pillow reads
/// each entry with the same pixels; entries over 256 refused; hostile icons refused.
final class ICOTests: XCTestCase {
    /// The directory of an ICO: (width, height, bits, entry bytes).
    private func entries(_ path: String) -> [(Int, Int, Int, Data)] {
        guard let d = CLI.bytes(path), d.count >= 6 else { return [] }
        let b = [UInt8](d)
        func le16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func le32(_ i: Int) -> Int { le16(i) | le16(i + 2) << 16 }
        return (0..<le16(4)).map { i in
            let e = 6 + 16 * i
            let (length, offset) = (le32(e + 8), le32(e + 12))
            return (b[e] == 0 ? 256 : Int(b[e]), b[e + 1] == 0 ? 256 : Int(b[e + 1]), le16(e + 6), Data(b[offset ..< offset + length]))
        }
    }

    func testFaviconHoldsEverySizeEachThePNGThatSizeMakesAlone() throws {
        let dir = CLI.tempDir()
        let master = CLI.testImages + "/alpha-disc-100x100.png"
        let sizes = [16, 32, 48, 256]
        var args = ["fill", master, "-o", dir + "/favicon.ico"]
        for s in sizes { args += ["--size", "\(s)x\(s)"] }
        let r = CLI.run(args)
        XCTAssertEqual(r.status, 0, r.stderr)
        let listed = entries(dir + "/favicon.ico")
        XCTAssertEqual(listed.map(\.0), sizes)
        for (s, entry) in zip(sizes, listed) {
            XCTAssertEqual(CLI.run(["fill", "--size", "\(s)x\(s)", master, "-o", dir + "/\(s).png"]).status, 0)
            XCTAssertEqual(entry.3, CLI.bytes(dir + "/\(s).png"), "\(s)")
            XCTAssertEqual(entry.2, 32, "RGBA entries state 32 bits")
        }
        XCTAssertTrue(CLI.run(["info", dir + "/favicon.ico"]).stdout.contains("ICO 256x256, 4 channels (rgba), 8-bit, 4 images"))

        if FileManager.default.isExecutableFile(atPath: "/usr/bin/icotool") {
            let list = CLI.sh("/usr/bin/icotool -l '\(dir)/favicon.ico'")
            XCTAssertEqual(list.status, 0)
            for s in sizes { XCTAssertTrue(list.stdout.contains("--width=\(s) --height=\(s) --bit-depth=32"), list.stdout) }
        } else {
            throw missingReference("icotool is not installed (scripts/install-deps --test installs icoutils)")
        }
        guard let reply = CLI.python("""
            import sys; from PIL import Image
            ico = Image.open(sys.argv[1]); out = []
            for s in (16, 32, 48, 256):
                e = ico.ico.getimage((s, s)).convert("RGBA"); p = Image.open(sys.argv[2] + "/%d.png" % s).convert("RGBA")
                out.append("%d:%s" % (s, e.tobytes() == p.tobytes()))
            sys.stdout.write(" ".join(out))
            """, [dir + "/favicon.ico", dir]), reply.status == 0 else { throw missingReference("python3 with Pillow") }
        XCTAssertEqual(String(decoding: reply.stdout, as: UTF8.self), "16:True 32:True 48:True 256:True")
    }

    func testOneIconPerInputInAnOutputDirectoryAndTheLimits() throws {
        let dir = CLI.tempDir()
        let r = CLI.run(["fill", "--size", "16x16", "--size", "32x32", CLI.testImages + "/scene-640x427.jpg",
                         CLI.testImages + "/alpha-disc-100x100.png", "--out-dir", dir + "/icons", "--format", "ico"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(CLI.files(dir + "/icons").sorted(), ["alpha-disc-100x100.ico", "scene-640x427.ico"])
        // An opaque photo's entries are RGB PNGs, and the directory says 24 bits.
        XCTAssertEqual(entries(dir + "/icons/scene-640x427.ico").map { "\($0.0)x\($0.1)/\($0.2)" }, ["16x16/24", "32x32/24"])

        let big = CLI.run(["fill", "--size", "16x16", "--size", "512x512", CLI.testImages + "/scene-640x427.jpg", "-o", dir + "/big.ico"])
        XCTAssertEqual(big.status, 2)
        XCTAssertTrue(big.stderr.contains("--size 512x512 is too large for ICO, which allows at most 256 pixels per side"), big.stderr)
        let whole = CLI.run(["convert", CLI.testImages + "/scene-640x427.jpg", "-o", dir + "/whole.ico"])
        XCTAssertEqual(whole.status, 1)
        XCTAssertTrue(whole.stderr.contains("output would be 640x427, but ICO allows at most 256 pixels per side"), whole.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/whole.ico"))
    }

    func testHostileIconsAreRefusedByName() throws {
        let dir = CLI.tempDir()
        XCTAssertEqual(CLI.run(["fill", "--size", "16x16", CLI.testImages + "/two-colour-8x8.png", "-o", dir + "/ok.ico"]).status, 0)
        var good = [UInt8](CLI.bytes(dir + "/ok.ico")!)
        func write(_ name: String, _ bytes: [UInt8]) { _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(bytes)) }
        var outside = good
        outside[18] = 0xFF; outside[19] = 0xFF  // the entry's offset far past the end
        write("outside.ico", outside)
        var bmp = good
        bmp.replaceSubrange(22..<26, with: [40, 0, 0, 0])  // a BITMAPINFOHEADER, not a PNG
        write("bmp.ico", bmp)
        write("short.ico", Array(good.prefix(12)))
        good[4] = 0xFF; good[5] = 0x7F  // 32767 entries claimed
        write("count.ico", good)
        for (name, message) in [("outside", "lie outside the file"), ("bmp", "is a BMP entry; only PNG entries are read"),
                                ("short", "ends inside its directory"), ("count", "the directory lists 32767 images")] {
            let r = CLI.run(["convert", dir + "/\(name).ico", "-o", dir + "/\(name).png"])
            XCTAssertEqual(r.status, 1, name)
            XCTAssertTrue(r.stderr.contains("invalid ICO") && r.stderr.contains(message), "\(name): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/\(name).png"))
        }
    }
}
