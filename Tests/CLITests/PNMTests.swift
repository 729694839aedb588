import XCTest
import TestReferences
import Foundation
import ImageScaler

/// netpbm's formats through the CLI: every kind (plain and raw PBM, PGM and PPM, PAM
/// gray, gray+alpha, RGB and RGBA) at 1, 8, 16 bits and odd maxvals decodes as netpbm's
/// own `pamdepth 255` scales it; what imgscale writes reads back in netpbm; djpeg's
/// output pipes straight in; hostile headers are refused from the header.
final class PNMTests: XCTestCase {
    /// Crafts the inputs and, with netpbm, each one's 8-bit reference raster (`.ref`).
    private func craft(_ dir: String) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/pamdepth") else {
            throw missingReference("netpbm (pamdepth, pamtopam, pamtopng) is not installed")
        }
        try python("""
        import random, struct, subprocess
        random.seed(7)
        W, H = 37, 23
        def values(depth, maxval): return [random.randrange(maxval + 1) for _ in range(W * H * depth)]
        def body(vals, maxval): return b''.join(struct.pack('>H', v) for v in vals) if maxval > 255 else bytes(vals)
        def raw(magic, depth, maxval):
            return f'P{magic}\\n# made by PNMTests\\n{W} {H}\\n{maxval}\\n'.encode() + body(values(depth, maxval), maxval)
        def plain(magic, depth, maxval):
            vals = values(depth, maxval)
            lines = [' '.join(map(str, vals[i:i + 17])) for i in range(0, len(vals), 17)]
            return (f'P{magic}\\n{W} # the width\\n{H}\\n{maxval}\\n' + '\\n'.join(lines) + '\\n').encode()
        def pam(depth, maxval, tupltype):
            head = f'P7\\nWIDTH {W}\\nHEIGHT {H}\\nDEPTH {depth}\\nMAXVAL {maxval}\\n# a comment\\nTUPLTYPE {tupltype}\\nENDHDR\\n'
            return head.encode() + body(values(depth, maxval), maxval)
        def bits(plain_form):
            rows = [[random.randrange(2) for _ in range(W)] for _ in range(H)]
            if plain_form:
                # Plain PBM's digits may run together.
                return f'P1\\n{W} {H}\\n'.encode() + b'\\n'.join(''.join(map(str, r)).encode() for r in rows) + b'\\n'
            packed = b''.join(bytes(int(''.join(map(str, r[i:i + 8])).ljust(8, '0'), 2) for i in range(0, W, 8)) for r in rows)
            return f'P4\\n{W} {H}\\n'.encode() + packed
        cases = {
            'p1.pbm': bits(True), 'p4.pbm': bits(False),
            'p2-255.pgm': plain(2, 1, 255), 'p2-300.pgm': plain(2, 1, 300), 'p3-255.ppm': plain(3, 3, 255),
            'p3-65535.ppm': plain(3, 3, 65535),
            'p5-255.pgm': raw(5, 1, 255), 'p5-100.pgm': raw(5, 1, 100), 'p5-1000.pgm': raw(5, 1, 1000),
            'p5-65535.pgm': raw(5, 1, 65535), 'p6-255.ppm': raw(6, 3, 255), 'p6-7.ppm': raw(6, 3, 7),
            'p6-65535.ppm': raw(6, 3, 65535),
            'p7-gray.pam': pam(1, 255, 'GRAYSCALE'), 'p7-ga.pam': pam(2, 255, 'GRAYSCALE_ALPHA'),
            'p7-rgb-16.pam': pam(3, 65535, 'RGB'), 'p7-rgba.pam': pam(4, 255, 'RGB_ALPHA'),
            'p7-rgba-16.pam': pam(4, 65535, 'RGB_ALPHA'), 'p7-ga-1000.pam': pam(2, 1000, 'GRAYSCALE_ALPHA'),
        }
        for name, data in cases.items():
            open(name, 'wb').write(data)
            # netpbm's reading, scaled to 8 bits by netpbm, as a PAM whose raster is the reference.
            ref = subprocess.run(f'pamdepth 255 {name} | pamtopam', shell=True, capture_output=True, check=True).stdout
            open(name + '.ref', 'wb').write(ref[ref.index(b'ENDHDR\\n') + 7:])
        """, in: dir)
    }

    func testEveryKindDecodesAsNetpbmScalesIt() throws {
        let dir = CLI.tempDir()
        try craft(dir)
        let names = CLI.files(dir).filter { !$0.hasSuffix(".ref") }
        XCTAssertEqual(names.count, 19)
        for name in names {
            let r = CLI.run(["convert", dir + "/" + name, "-o", dir + "/" + name + ".png"])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            let ours = try ImageCodec.decode(try ImageFile.read(dir + "/" + name + ".png")).0
            let reference = try XCTUnwrap(CLI.bytes(dir + "/" + name + ".ref"))
            XCTAssertEqual(ours.pixels, [UInt8](reference), name)
        }
        let info = CLI.run(["info", dir + "/p7-rgba-16.pam", dir + "/p4.pbm"])
        XCTAssertEqual(info.stdout, "\(dir)/p7-rgba-16.pam: PNM 37x23, 4 channels (rgba), 16-bit\n\(dir)/p4.pbm: PNM 37x23, 1 channel (gray), 1-bit\n")
    }

    func testWrittenFilesReadBackInNetpbmAndDjpegPipesIn() throws {
        let dir = CLI.tempDir()
        // A .pam is PAM whatever the channels (an RGB one too), a .ppm netpbm's PPM.
        let sources = [("gray-alpha-31x29.png", "pam", "P7"), ("gradient-rgb-64x48.png", "ppm", "P6"), ("alpha-disc-100x100.png", "pam", "P7"),
                       ("scene-640x427.png", "ppm", "P6"), ("gradient-rgb-64x48.png", "pam", "P7")]
        for (source, ext, magic) in sources {
            let out = dir + "/" + source + "." + ext
            let r = CLI.run(["convert", CLI.testImages + "/" + source, "-o", out])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(CLI.bytes(out)?.prefix(2), Data(magic.utf8), "\(source) as .\(ext)")
            let back = CLI.sh("pamtopng '\(out)' > '\(out).png'")
            guard back.status == 0 else { throw missingReference("netpbm's pamtopng failed: \(back.stderr)") }
            let original = try ImageCodec.decode(try ImageFile.read(CLI.testImages + "/" + source)).0
            XCTAssertEqual(try ImageCodec.decode(try ImageFile.read(out + ".png")).0.pixels, original.pixels, source)
        }
        // djpeg's PPM on stdin gives the thumbnail of the same pixels as a PNG.
        let jpeg = CLI.testImages + "/scene-640x427.jpg"
        let piped = CLI.sh("djpeg '\(jpeg)' | \"$IMGSCALE\" fill --size 256x256 - -o '\(dir)/piped.png'")
        guard !piped.stderr.contains("djpeg: not found") else { throw missingReference("djpeg is not installed") }
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(CLI.sh("djpeg '\(jpeg)' > '\(dir)/s.ppm'").status, 0)
        XCTAssertEqual(CLI.run(["convert", dir + "/s.ppm", "-o", dir + "/s.png"]).status, 0)
        XCTAssertEqual(CLI.run(["fill", "--size", "256x256", dir + "/s.png", "-o", dir + "/direct.png"]).status, 0)
        XCTAssertEqual(CLI.bytes(dir + "/piped.png"), CLI.bytes(dir + "/direct.png"))
    }

    func testHostileHeadersAreRefusedFromTheHeader() throws {
        let dir = CLI.tempDir()
        func write(_ name: String, _ bytes: [UInt8]) { _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(bytes)) }
        let raster = [UInt8](repeating: 7, count: 30 * 20 * 3)
        write("huge.ppm", Array("P6\n100000 100000\n255\n".utf8) + raster)
        write("maxval0.pgm", Array("P5\n2 2\n0\n".utf8) + [0, 0, 0, 0])
        write("maxval65536.pgm", Array("P5\n2 2\n65536\n".utf8) + [0, 0, 0, 0])
        write("digits.ppm", Array("P6\n".utf8) + [UInt8](repeating: UInt8(ascii: "9"), count: 1 << 20))
        write("comment.ppm", Array("P6\n#".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 8 << 20))
        write("depth5.pam", Array("P7\nWIDTH 2\nHEIGHT 2\nDEPTH 5\nMAXVAL 255\nENDHDR\n".utf8) + [UInt8](repeating: 0, count: 20))
        write("noend.pam", Array("P7\nWIDTH 2\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\n".utf8))
        write("twice.pam", Array("P7\nWIDTH 2\nWIDTH 3\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\nENDHDR\n".utf8))
        write("cut.ppm", Array("P6\n30 20\n255\n".utf8) + raster.prefix(raster.count / 2))
        write("above.pgm", Array("P5\n4 1\n100\n".utf8) + [1, 200, 3, 4])
        let expected = [
            "huge.ppm": "image is 100000x100000 = 10000000000 pixels, over the limit of 268402689 (raise it with --max-pixels)",
            "maxval0.pgm": "invalid PNM: maxval 0 is outside 1-65535",
            "maxval65536.pgm": "invalid PNM: maxval 65536 is outside 1-65535",
            "digits.ppm": "invalid PNM: the width is not a number below 2^31",
            "comment.ppm": "invalid PNM: the header ends before its width",
            "depth5.pam": "invalid PNM: PAM depth 5; imgscale reads 1 to 4 (gray, gray+alpha, RGB, RGBA)",
            "noend.pam": "invalid PNM: the PAM header has no ENDHDR",
            "twice.pam": "invalid PNM: the PAM header gives WIDTH twice",
            "cut.ppm": "invalid PNM: truncated raster: the data ends in row 10 of 20 (--fail-on none decodes what is there)",
            "above.pgm": "invalid PNM: a sample in row 0 is above the maxval 100 (--fail-on truncated decodes what is there)",
        ]
        for (name, message) in expected.sorted(by: { $0.key < $1.key }) {
            let start = Date()
            let r = CLI.sh("python3 '\(CLI.root)/scripts/peak-rss' \"$IMGSCALE\" fill --size 8x8 '\(dir)/\(name)' -o '\(dir)/o.png'")
            let lines = r.stderr.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.first, "imgscale: \(dir)/\(name): \(message)", name)
            let kib = lines.last.flatMap { $0.split(separator: " ").first { $0.hasPrefix("kib=") } }.flatMap { Double($0.dropFirst(4)) }
            if ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] == nil {
                XCTAssertLessThan(try XCTUnwrap(kib, r.stderr) / 1024, 64, "\(name): peak RSS")
                XCTAssertLessThan(Date().timeIntervalSince(start), 2, name)
            }
        }
        let lenient = CLI.run(["convert", "--fail-on", "none", dir + "/cut.ppm", "-o", dir + "/cut.png"])
        XCTAssertEqual(lenient.status, 0, lenient.stderr)
        XCTAssertTrue(lenient.stderr.contains("warning: damaged PNM decoded anyway (fail-on none): truncated raster: the data ends in row 10 of 20; 10 of 20 rows decoded, the rest left black"), lenient.stderr)
        let cut = try ImageCodec.decode(try ImageFile.read(dir + "/cut.png")).0
        XCTAssertEqual(Array(cut.pixels.prefix(raster.count / 2)), Array(raster.prefix(raster.count / 2)))
        XCTAssertEqual(Set(cut.pixels.suffix(raster.count / 2)), [0])
    }
}
