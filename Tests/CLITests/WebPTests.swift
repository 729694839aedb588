import XCTest
import TestReferences
import Foundation
import ImageScaler

/// WebP through the built imgscale: decodes equal dwebp's exactly (files made by cwebp
/// here, and the shared corpus), lossless round trips are exact, lossy ones keep
/// 30 dB, metadata and orientation behave as for JPEG, damage is refused or tolerated.
final class WebPTests: XCTestCase {
    static let formats = CLI.testdata + "/formats"

    private func tool(_ name: String) throws -> String {
        for dir in ["/usr/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
        }
        throw missingReference("\(name) is not installed (scripts/install-deps --test installs the webp package)")
    }

    private func decodeEqualsDwebp(_ webp: String, in dir: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let dwebp = try tool("dwebp")
        let ref = dir + "/ref.png", ours = dir + "/ours.png"
        XCTAssertEqual(CLI.sh("\(dwebp) -quiet '\(webp)' -o '\(ref)'").status, 0, file: file, line: line)
        let r = CLI.run(["convert", "--no-auto-orient", webp, "-o", ours])
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        let c = CLI.run(["compare", ref, ours])
        XCTAssertEqual(c.status, 0, "\(webp): \(c.stdout)", file: file, line: line)
    }

    func testDecodesEqualDwebpOnFilesMadeByCwebp() throws {
        let cwebp = try tool("cwebp")
        let dir = CLI.tempDir()
        let scene = CLI.testImages + "/scene-640x427.jpg"
        let disc = CLI.testImages + "/alpha-disc-100x100.png"
        XCTAssertEqual(CLI.run(["convert", scene, "-o", dir + "/scene.png"]).status, 0)
        let cases: [(String, String)] = [("-q 75", dir + "/scene.png"), ("-lossless", dir + "/scene.png"),
                                         ("-q 60 -alpha_q 80", disc), ("-lossless -exact", disc), ("-q 90 -sharp_yuv", dir + "/scene.png")]
        for (i, (options, input)) in cases.enumerated() {
            let webp = dir + "/\(i).webp"
            XCTAssertEqual(CLI.sh("\(cwebp) -quiet \(options) '\(input)' -o '\(webp)'").status, 0)
            try decodeEqualsDwebp(webp, in: dir)
        }
    }

    func testSharedCorpusDecodesEqualTheReferences() throws {
        guard FileManager.default.fileExists(atPath: Self.formats) else {
            throw missingReference("\(Self.formats) is missing; the cwebp-made files above still ran")
        }
        let dir = CLI.tempDir()
        let names = CLI.files(Self.formats).filter { $0.hasPrefix("webp-") }
        XCTAssertEqual(names.count, 7)
        for name in names {
            let stem = (name as NSString).deletingPathExtension
            let out = dir + "/\(stem).png"
            let r = CLI.run(["convert", "--no-auto-orient", Self.formats + "/" + name, "-o", out])
            XCTAssertEqual(r.status, 0, r.stderr)
            let c = CLI.run(["compare", Self.formats + "/ref/\(stem).png", out])
            XCTAssertEqual(c.status, 0, "\(name): \(c.stdout)")
        }
        // The animation: frame count in info, the first frame decoded.
        let info = CLI.run(["info", Self.formats + "/webp-anim-3frames-160x120.webp"])
        XCTAssertTrue(info.stdout.contains("3 frames"), info.stdout)
        // EXIF orientation 6 turns it upright; the profile is carried into the output.
        XCTAssertEqual(CLI.run(["convert", Self.formats + "/webp-exif-orient6-480x360.webp", "-o", dir + "/up.png"]).status, 0)
        XCTAssertEqual(CLI.size(dir + "/up.png"), "360x480")
        XCTAssertEqual(CLI.run(["fill", "--size", "100x100", Self.formats + "/webp-icc-p3-480x360.webp", "-o", dir + "/p3.webp"]).status, 0)
        XCTAssertTrue(CLI.run(["info", dir + "/p3.webp"]).stdout.contains("metadata: icc"))
        // Broken: refused with one line and no output; --fail-on none decodes what is there.
        let broken = Self.formats + "/broken-truncated.webp"
        let r = CLI.run(["fill", "--size", "64x64", broken, "-o", dir + "/b.png"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("invalid WebP"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/b.png"))
        let tolerant = CLI.run(["fill", "--size", "64x64", "--fail-on", "none", broken, "-o", dir + "/b.png"])
        XCTAssertEqual(tolerant.status, 0, tolerant.stderr)
        XCTAssertTrue(tolerant.stderr.contains("warning: damaged WebP decoded anyway"), tolerant.stderr)
    }

    /// A lossless palette index past the palette's end is transparent black in libwebp
    /// (libwebp-test-data's bad_palette_index.webp). Whether that alpha is seen follows the
    /// header's alpha bit, as in libwebp's own features and in its conformance sums, which
    /// hold both decodes: with the bit set, imgscale's RGBA equals `dwebp -pam` byte for
    /// byte; with it clear (that file's case), the image has no alpha, and imgscale's RGB
    /// equals `dwebp -ppm` (opaque black), as Pillow, libvips and browsers show it too.
    func testOutOfRangePaletteIndexIsLibwebpsDecodeForTheAlphaBit() throws {
        let dwebp = try tool("dwebp")
        let dir = CLI.tempDir()
        // A VP8L bitstream by hand: a one-colour palette, then 16x4 indices packed eight to
        // a byte (0x55: every other one is 1, past the palette); each prefix code has one
        // symbol, so no pixel takes a bit.
        try python("""
        import struct
        class Bits:
            def __init__(s): s.v, s.n = 0, 0
            def put(s, value, count): s.v |= (value & ((1 << count) - 1)) << s.n; s.n += count
        def one_symbol(b, sym):
            b.put(1, 1); b.put(0, 1)
            if sym < 2: b.put(0, 1); b.put(sym, 1)
            else: b.put(1, 1); b.put(sym, 8)
        def vp8l(alpha_bit):
            b = Bits()
            b.put(0x2f, 8); b.put(15, 14); b.put(3, 14); b.put(alpha_bit, 1); b.put(0, 3)
            b.put(1, 1); b.put(3, 2); b.put(0, 8)
            b.put(0, 1)
            for s in (0x40, 0x20, 0x80, 0xff, 0): one_symbol(b, s)
            b.put(0, 1); b.put(0, 1); b.put(0, 1)
            for s in (0x55, 0, 0, 0, 0): one_symbol(b, s)
            data = b.v.to_bytes((b.n + 7) // 8, 'little')
            data += b'\\0' * (len(data) % 2)
            chunk = b'VP8L' + struct.pack('<I', len(data)) + data
            return b'RIFF' + struct.pack('<I', 4 + len(chunk)) + b'WEBP' + chunk
        open('bit1.webp', 'wb').write(vp8l(1))
        open('bit0.webp', 'wb').write(vp8l(0))
        """, in: dir)
        for (name, ext, dwebpFormat) in [("bit1", "pam", "-pam"), ("bit0", "ppm", "-ppm")] {
            XCTAssertEqual(CLI.sh("\(dwebp) -quiet \(dwebpFormat) '\(dir)/\(name).webp' -o '\(dir)/\(name)-ref.\(ext)'").status, 0)
            let r = CLI.run(["convert", dir + "/\(name).webp", "-o", dir + "/\(name).\(ext)"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let ours = try XCTUnwrap(CLI.bytes(dir + "/\(name).\(ext)")), ref = try XCTUnwrap(CLI.bytes(dir + "/\(name)-ref.\(ext)"))
            XCTAssertEqual(ours, ref, name)
            // The first pixel's index is 1, past the palette: transparent black, or black
            // where the image has no alpha; the second is the palette's colour.
            let pixels = [UInt8](ours.suffix(16 * 4 * (ext == "pam" ? 4 : 3)))
            XCTAssertEqual(Array(pixels.prefix(ext == "pam" ? 8 : 6)),
                           ext == "pam" ? [0, 0, 0, 0, 0x20, 0x40, 0x80, 0xff] : [0, 0, 0, 0x20, 0x40, 0x80], name)
        }
    }

    func testWritesWebPThatDwebpReads() throws {
        let dwebp = try tool("dwebp")
        let dir = CLI.tempDir()
        let disc = CLI.testImages + "/alpha-disc-100x100.png"
        // Lossless is exact, alpha included; gray becomes RGB.
        XCTAssertEqual(CLI.run(["convert", "--lossless", disc, "-o", dir + "/disc.webp"]).status, 0)
        XCTAssertEqual(CLI.sh("\(dwebp) -quiet '\(dir)/disc.webp' -o '\(dir)/disc.png'").status, 0)
        XCTAssertEqual(CLI.run(["compare", disc, dir + "/disc.png"]).status, 0)
        // Lossy at the default quality keeps 30 dB on a photo-like scene.
        let scene = CLI.testImages + "/scene-640x427.jpg"
        XCTAssertEqual(CLI.run(["convert", scene, "-o", dir + "/scene.webp"]).status, 0)
        let c = CLI.run(["compare", "--min-psnr", "30", scene, dir + "/scene.webp"])
        XCTAssertEqual(c.status, 0, c.stdout)
        // Quality and effort change the file; the same options give the same bytes.
        XCTAssertEqual(CLI.run(["convert", "--quality", "40", "--effort", "6", scene, "-o", dir + "/small.webp"]).status, 0)
        XCTAssertLessThan(CLI.bytes(dir + "/small.webp")!.count, CLI.bytes(dir + "/scene.webp")!.count)
        XCTAssertEqual(CLI.run(["convert", scene, "-o", dir + "/again.webp"]).status, 0)
        XCTAssertEqual(CLI.bytes(dir + "/again.webp"), CLI.bytes(dir + "/scene.webp"))
        // --format webp renames; thumbnails straight to WebP; --keep-metadata carries EXIF.
        let r = CLI.run(["fill", "--size", "64x64", "--format", "webp", "--keep-metadata", scene, "--out-dir", dir + "/t"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(CLI.files(dir + "/t"), ["scene-640x427.webp"])
        // An option for another format warns.
        let w = CLI.run(["convert", "--progressive", scene, "-o", dir + "/w.webp"])
        XCTAssertTrue(w.stderr.contains("--progressive applies to JPEG output only"), w.stderr)
    }

    func testShrinkOnLoadKeepsFortyDecibels() throws {
        let dir = CLI.tempDir()
        let photo = CLI.testdata + "/photos/phone-3264x2448.jpg"
        // Under the sanitizers the synthetic scene stands in for the 8-megapixel photo: this
        // checks the scaler's quality (arithmetic), and the plain run keeps the photo.
        let source = FileManager.default.fileExists(atPath: photo) && !Sweep.sanitized ? photo : CLI.testImages + "/scene-640x427.jpg"
        XCTAssertEqual(CLI.run(["convert", "--quality", "90", source, "-o", dir + "/big.webp"]).status, 0)
        XCTAssertEqual(CLI.run(["convert", dir + "/big.webp", "-o", dir + "/full.png"]).status, 0)
        for size in ["256x256", "120x80"] {
            for filter in ["bilinear", "lanczos"] {
                XCTAssertEqual(CLI.run(["fill", "--size", size, "--filter", filter, dir + "/big.webp", "-o", dir + "/a.png"]).status, 0)
                XCTAssertEqual(CLI.run(["fill", "--size", size, "--filter", filter, dir + "/full.png", "-o", dir + "/b.png"]).status, 0)
                let c = CLI.run(["compare", "--min-psnr", "40", dir + "/b.png", dir + "/a.png"])
                XCTAssertEqual(c.status, 0, "\(size) \(filter): \(c.stdout)")
            }
        }
    }
}
