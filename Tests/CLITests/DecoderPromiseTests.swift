import XCTest
import TestReferences
import Foundation
import ImageScaler

/// The promises of issue 29 on crafted files, through the CLI: each test makes its own
/// input (Python here, nothing large committed) and runs `imgscale` as a user would.
extension XCTestCase {
    /// Runs a Python script in `dir` (python3 with Pillow) that crafts a test's inputs,
    /// skipping when Pillow is missing. The script has `sweep_sample(cases, every)`, which
    /// is Sweep.sample: every case, or under a sanitizer every `every`-th (the plain run
    /// checks them all; the sanitized one looks for memory and thread errors on each path),
    /// `missing(what)`, which is `partlyMissing`: SKIPPED (in part), or in CI a failure, and
    /// `deflated(parts, level, wrap)`, the zlib or gzip stream of `b * n` for each `(b, n)`,
    /// each part deflated once (a full flush starts the compressor afresh, so its bytes
    /// serve every copy): a gigabyte bomb in under a second, where deflating it took 5-8 s.
    /// It runs in the test process's one python3 (`CLI.pythonSession`: Pillow and numpy
    /// imported once, not per script), or in a python3 of its own when that one is gone.
    func python(_ script: String, in dir: String, file: StaticString = #filePath, line: UInt = #line) throws {
        // The environment CLI.sh gives its shells: the binary under test and the C locale.
        let prelude = "import os\nos.chdir('\(dir)')\nos.environ.update(IMGSCALE='\(CLI.binary)', LC_ALL='C')\n"
            + "def sweep_sample(cases, every):\n    cases = list(cases)\n    return cases[::every] if os.environ.get('IMGSCALE_SANITIZED') else cases\n"
            + "def missing(what):\n    if os.environ.get('IMGSCALE_REQUIRE_REFERENCES') == '1':\n"
            + "        raise SystemExit('REQUIRED REFERENCE MISSING (IMGSCALE_REQUIRE_REFERENCES=1): ' + what)\n"
            + "    print('SKIPPED (in part): ' + what)\n"
            + Self.deflated
        let (status, stdout, stderr): (Int32, String, String)
        if let reply = CLI.python(prelude + script, []) {
            (status, stdout, stderr) = (reply.status, String(decoding: reply.stdout, as: UTF8.self), String(decoding: reply.stderr, as: UTF8.self))
        } else {
            let r = CLI.sh("python3 - <<'PY'\n\(prelude)\(script)\nPY")
            (status, stdout, stderr) = (r.status, r.stdout, r.stderr)
        }
        // What the script says of references it lacked in part, as a test of its own would.
        for skipped in stdout.split(separator: "\n") where skipped.hasPrefix("SKIPPED (in part): ") { print(skipped) }
        if stderr.contains("No module named") { throw missingReference("python3 with Pillow is not available: \(stderr)") }
        XCTAssertEqual(status, 0, stderr, file: file, line: line)
    }
}

private extension XCTestCase {
    static let deflated = """
        def deflated(parts, level=9, wrap='zlib'):
            import zlib, struct
            c = zlib.compressobj(level, zlib.DEFLATED, -15)
            step = zlib.crc32 if wrap == 'gzip' else zlib.adler32
            out, check, size = [], (0 if wrap == 'gzip' else 1), 0
            for block, n in parts:
                out.append((c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)) * n)
                for _ in range(n):
                    check = step(block, check)
                size += len(block) * n
            body = b''.join(out) + c.flush()
            if wrap == 'gzip':
                return b'\\x1f\\x8b\\x08\\x00\\x00\\x00\\x00\\x00\\x02\\xff' + body + struct.pack('<II', check, size & 0xffffffff)
            return b'\\x78\\xda' + body + struct.pack('>I', check)

        """
}

final class DecoderPromiseTests: XCTestCase {

    /// `IMGSCALE_JPEG_DECODER=libjpeg`, the switch for the field, leaves every JPEG to
    /// libjpeg alone: `--version` says so, and pixels and messages are what imgscale's own
    /// entropy decoders give (they are held to libjpeg's, so nothing else may change).
    func testTheFieldSwitchLeavesJPEGToLibjpegAlone() throws {
        let dir = CLI.tempDir()
        let jpeg = try XCTUnwrap(CLI.bytes(CLI.testImages + "/scene-640x427.jpg"))
        _ = FileManager.default.createFile(atPath: dir + "/cut.jpg", contents: jpeg.prefix(jpeg.count * 2 / 3))
        let version = CLI.sh("IMGSCALE_JPEG_DECODER=libjpeg \"$IMGSCALE\" --version")
        XCTAssertTrue(version.stdout.contains("(decoding alone: IMGSCALE_JPEG_DECODER=libjpeg)"), version.stdout)
        XCTAssertFalse(CLI.run(["--version"]).stdout.contains("decoding alone"))
        for (name, extra) in [("scene", CLI.testImages + "/scene-640x427.jpg"), ("cut", dir + "/cut.jpg")] {
            for size in ["256x256", "80x80", "640x427"] {
                let args = "fill --size \(size) --fail-on none '\(extra)'"
                let own = CLI.sh("\"$IMGSCALE\" \(args) -o '\(dir)/own.png'")
                let alone = CLI.sh("IMGSCALE_JPEG_DECODER=libjpeg \"$IMGSCALE\" \(args) -o '\(dir)/alone.png'")
                XCTAssertEqual(own.status, 0, own.stderr)
                XCTAssertEqual(own.stderr, alone.stderr, "\(name) \(size)")
                XCTAssertEqual(CLI.bytes(dir + "/own.png"), CLI.bytes(dir + "/alone.png"), "\(name) \(size)")
            }
        }
    }

    /// A Huffman table whose codes reach all ones (libjpeg's jdhuff.c refuses it) is
    /// refused with libjpeg's words by both of imgscale's JPEG decoders, at every scale.
    func testAllOnesHuffmanCodeIsRefusedAsLibjpegDoes() throws {
        let dir = CLI.tempDir()
        try python("""
        import random, subprocess
        from PIL import Image
        random.seed(1)
        Image.frombytes('RGB', (64, 48), bytes(random.randrange(256) for _ in range(64 * 48 * 3))).save('n.ppm')
        subprocess.run(['cjpeg', '-outfile', 'n.jpg', 'n.ppm'], check=True)
        b = bytearray(open('n.jpg', 'rb').read())
        i = 2
        while True:
            m, L = b[i + 1], b[i + 2] << 8 | b[i + 3]
            if m == 0xC4 and b[i + 4] == 0:
                # The standard luma DC table uses all but one 9-bit code: one more fills it.
                assert list(b[i + 5:i + 21]) == [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
                b[i + 13] += 1
                b[i + 21 + 12:i + 21 + 12] = b'\\x00'
                b[i + 2:i + 4] = (L + 1).to_bytes(2, 'big')
                break
            i += 2 + L
        open('allones.jpg', 'wb').write(b)
        """, in: dir)
        XCTAssertNotEqual(CLI.sh("djpeg '\(dir)/allones.jpg' > /dev/null").status, 0)
        for args in [["convert"], ["fit", "--size", "16x16"], ["fit", "--size", "8x8"]] {
            let r = CLI.run(args + [dir + "/allones.jpg", "-o", dir + "/out.png"])
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertTrue(r.stderr.contains("Bogus Huffman table definition"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.png"))
        }
        XCTAssertEqual(CLI.run(["fit", "--size", "8x8", dir + "/n.jpg", "-o", dir + "/ok.png"]).status, 0)
    }
}

/// ICC profiles libpng complains about are carried, or dropped with one warning line;
/// never a failed output, and a malformed one is treated alike by every format.
final class ProfilePromiseTests: XCTestCase {
    func profile(_ path: String) throws -> [UInt8] {
        let r = CLI.sh("python3 -c \"import sys; from PIL import Image; sys.stdout.buffer.write(Image.open('\(path)').info.get('icc_profile') or b'')\" | od -An -v -tu1")
        return r.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { UInt8($0) }
    }

    func testProfilesLibpngComplainsAboutNeverFailAnOutput() throws {
        let dir = CLI.tempDir()
        try python("""
        from PIL import Image, ImageCms
        srgb = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile('sRGB')).tobytes())
        def save(name, icc):
            for ext in ('jpg', 'png'):
                Image.new('RGB', (16, 16), (10, 20, 30)).save('%s.%s' % (name, ext), icc_profile=bytes(icc))
        notd50 = bytearray(srgb)
        notd50[68:80] = bytes.fromhex('0000f35100010000000116cc')   # D65 as the PCS illuminant, as some ProPhoto files
        save('notd50', notd50)
        intent = bytearray(srgb)
        intent[64:68] = (0x10000).to_bytes(4, 'big')               # a rendering intent libpng refuses
        save('intent', intent)
        short = bytearray(srgb)
        short[0:4] = (len(srgb) + 100).to_bytes(4, 'big')          # a header claiming more than it holds
        save('malformed', short)
        """, in: dir)
        for input in ["notd50.jpg", "notd50.png"] {
            for ext in ["png", "jpg", "webp"] {
                let r = CLI.run(["convert", dir + "/" + input, "-o", dir + "/out." + ext])
                XCTAssertEqual(r.status, 0, "\(input) -> \(ext): \(r.stderr)")
                XCTAssertEqual(try profile(dir + "/out." + ext), try profile(dir + "/" + input), "\(input) -> \(ext)")
            }
        }
        let png = CLI.run(["convert", dir + "/intent.jpg", "-o", dir + "/intent.png"])
        XCTAssertEqual(png.status, 0, png.stderr)
        XCTAssertEqual(png.stderr.split(separator: "\n").count, 1, png.stderr)
        XCTAssertTrue(png.stderr.contains("warning: ICC profile not carried into the PNG: libpng refuses it"), png.stderr)
        XCTAssertTrue(png.stderr.contains("invalid rendering intent"), png.stderr)
        XCTAssertEqual(try profile(dir + "/intent.png"), [])
        XCTAssertEqual(CLI.run(["convert", dir + "/intent.jpg", "-o", dir + "/intent-out.jpg"]).status, 0)
        XCTAssertEqual(try profile(dir + "/intent-out.jpg"), try profile(dir + "/intent.jpg"))
        for ext in ["png", "jpg", "webp", "avif"] {
            let r = CLI.run(["convert", dir + "/malformed.jpg", "-o", dir + "/m." + ext])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("warning: malformed ICC profile not carried: its header says"), "\(ext): \(r.stderr)")
            XCTAssertEqual(try profile(dir + "/m." + ext), [], ext)
        }
    }

    /// The HP/Microsoft sRGB profile (3144 bytes) in countless camera and Photoshop
    /// files, which libpng calls "known incorrect": carried into every format, from a
    /// JPEG and from a PNG, at the default --fail-on.
    func testTheHPsRGBProfileIsCarried() throws {
        let source = try CLI.sharedDir("tiff") + "/hopper.iccprofile.tif"
        let dir = CLI.tempDir()
        try python("""
        from PIL import Image
        icc = Image.open('\(source)').info['icc_profile']
        assert len(icc) == 3144 and icc[48:52] == b'IEC '
        for ext in ('jpg', 'png'):
            Image.new('RGB', (16, 16), (10, 20, 30)).save('hp.' + ext, icc_profile=icc)
        """, in: dir)
        let expected = try profile(dir + "/hp.jpg")
        XCTAssertEqual(expected.count, 3144)
        for input in ["hp.jpg", "hp.png"] {
            for ext in ["png", "jpg", "webp"] {
                let r = CLI.run(["fill", "--size", "8x8", dir + "/" + input, "-o", dir + "/out." + ext])
                XCTAssertEqual(r.status, 0, "\(input) -> \(ext): \(r.stderr)")
                XCTAssertEqual(r.stderr, "", "\(input) -> \(ext)")
                XCTAssertEqual(try profile(dir + "/out." + ext), expected, "\(input) -> \(ext)")
            }
        }
    }
}

/// A PNG's orientation, from eXIf, ImageMagick's raw EXIF profile or XMP, is applied as
/// Pillow's `exif_transpose` applies it, shown by `info` and reset to 1 in outputs; an
/// APNG's frames are counted while its default image is decoded.
final class PNGOrientationTests: XCTestCase {
    func testEveryPlaceAPNGKeepsItsOrientationIsApplied() throws {
        let dir = CLI.tempDir()
        try python("""
        from PIL import Image, PngImagePlugin, ImageOps
        im = Image.new('RGB', (40, 20), (255, 0, 0))
        im.paste((0, 0, 255), (0, 0, 10, 10))
        ex = Image.Exif()
        ex[0x0112] = 6
        eb = ex.tobytes()
        im.save('exif.png', exif=eb)
        info = PngImagePlugin.PngInfo()
        h = eb.hex()
        info.add_text('Raw profile type exif', '\\nexif\\n%8d\\n' % len(eb) + '\\n'.join(h[i:i + 72] for i in range(0, len(h), 72)) + '\\n', zip=True)
        im.save('raw.png', pnginfo=info)
        xmp = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description tiff:Orientation="%d"/></rdf:RDF></x:xmpmeta>'
        info = PngImagePlugin.PngInfo()
        info.add_itxt('XML:com.adobe.xmp', xmp % 8)
        im.save('xmp.png', pnginfo=info)
        # eXIf decides over XMP; an eXIf without the tag leaves it to XMP.
        info = PngImagePlugin.PngInfo()
        info.add_itxt('XML:com.adobe.xmp', xmp % 3)
        im.save('both.png', pnginfo=info, exif=eb)
        untagged = Image.Exif()
        untagged[0x010F] = 'camera'
        im.save('untagged-xmp.png', pnginfo=info, exif=untagged.tobytes())
        for name in ('exif', 'raw', 'xmp', 'both', 'untagged-xmp'):
            ImageOps.exif_transpose(Image.open(name + '.png')).convert('RGB').save(name + '.pillow.png')
        frames = [Image.new('RGB', (8, 6), c) for c in [(10, 20, 30), (200, 0, 0), (0, 200, 0)]]
        frames[0].save('anim.png', save_all=True, append_images=frames[1:])
        """, in: dir)
        for (name, orientation) in [("exif", 6), ("raw", 6), ("xmp", 8), ("both", 6), ("untagged-xmp", 3)] {
            let info = CLI.run(["info", "--json", "\(dir)/\(name).png"])
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any], info.stderr)
            XCTAssertEqual(object["orientation"] as? Int, orientation, name)
            let r = CLI.run(["convert", "--keep-metadata", "\(dir)/\(name).png", "-o", "\(dir)/\(name).out.png"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let ours = try ImageCodec.decode(try ImageFile.read("\(dir)/\(name).out.png")).0
            let pillow = try ImageCodec.decode(try ImageFile.read("\(dir)/\(name).pillow.png")).0
            XCTAssertEqual(ours.size, pillow.size, name)
            XCTAssertTrue(ours.pixels == pillow.pixels, name)
            // The output is upright and says so: a second pass turns nothing.
            let again = CLI.run(["info", "--json", "\(dir)/\(name).out.png"])
            let o2 = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
            XCTAssertEqual(o2["orientation"] as? Int, 1, "\(name): \(again.stdout)")
        }
        XCTAssertTrue(CLI.run(["info", "\(dir)/exif.png"]).stdout.contains("orientation 6 (upright 20x40)"))
        let anim = CLI.run(["info", "--json", "\(dir)/anim.png"])
        let a = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(anim.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(a["frames"] as? Int, 3, anim.stdout)
        XCTAssertEqual(CLI.run(["convert", "\(dir)/anim.png", "-o", "\(dir)/anim.out.png"]).status, 0)
        XCTAssertEqual(try ImageCodec.decode(try ImageFile.read("\(dir)/anim.out.png")).0.pixels.prefix(3), [10, 20, 30])
    }
}

/// GIFs others read: one without any colour table (gray, as Pillow), one whose LZW code
/// size giflib does not read (said precisely), and first frames reaching past their
/// screen, which widen the canvas as in Pillow and browsers (so the limits cover them).
final class GIFPromiseTests: XCTestCase {
    func testGIFsOthersReadAreReadOrRefusedPrecisely() throws {
        let dir = CLI.tempDir()
        try python("""
        import struct
        import struct
        def lzw_literal(indices, min_size):
            # Every pixel as a literal code, with a clear code before the table would grow.
            clear, eoi = 1 << min_size, (1 << min_size) + 1
            size = min_size + 1
            bits, nbits, out = 0, 0, bytearray()
            def put(code):
                nonlocal bits, nbits
                bits |= code << nbits; nbits += size
                while nbits >= 8:
                    out.append(bits & 255); bits >>= 8; nbits -= 8
            put(clear)
            next_code = eoi + 1
            for i in indices:
                put(i)
                next_code += 1
                if next_code >= (1 << size) - 1:
                    put(clear); next_code = eoi + 1
            put(eoi)
            if nbits: out.append(bits & 255)
            blocks = bytearray()
            for k in range(0, len(out), 255):
                chunk = out[k:k + 255]; blocks += bytes([len(chunk)]) + chunk
            return bytes([min_size]) + bytes(blocks) + b'\\0'
        def gif(w, h, indices, min_size, palette=True):
            head = b'GIF89a' + struct.pack('<HHBBB', w, h, 0xF7 if palette else 0x00, 0, 0)
            pal = bytes(sum(([i, 255 - i, (i * 7) & 255] for i in range(256)), [])) if palette else b''
            desc = b',' + struct.pack('<HHHHB', 0, 0, w, h, 0)
            return head + pal + desc + lzw_literal(indices, min_size) + b';'

        idx = [(x * 3 + y) % 256 for y in range(10) for x in range(12)]
        open('cs11.gif', 'wb').write(gif(12, 10, idx, 11))
        open('nopal.gif', 'wb').write(gif(12, 10, idx, 8, palette=False))
        from PIL import Image
        Image.open('nopal.gif').convert('RGB').save('nopal.pillow.png')
        # A 1x1 screen whose first frame is 20000x20000 (the data ends at once).
        head = b'GIF89a' + struct.pack('<HHBBB', 1, 1, 0xF0, 0, 0) + bytes([0, 0, 0, 255, 255, 255])
        open('bigframe.gif', 'wb').write(head + b',' + struct.pack('<HHHHB', 0, 0, 20000, 20000, 0) + bytes([2, 2, 0x44, 0x01, 0]) + b';')
        # A 5x4 screen whose 6x3 first frame starts at (3, 2): the canvas grows to 9x5.
        past = bytearray(gif(6, 3, [(i * 37) % 256 for i in range(18)], 8))
        past[6:10] = struct.pack('<HH', 5, 4)
        at = past.index(b',', 13 + 768)
        past[at + 1:at + 5] = struct.pack('<HH', 3, 2)
        open('past.gif', 'wb').write(past)
        Image.open('past.gif').convert('RGB').save('past.pillow.png')
        """, in: dir)
        let past = CLI.run(["convert", dir + "/past.gif", "-o", dir + "/past.png"])
        XCTAssertEqual(past.status, 0, past.stderr)
        let (ours, pillow) = (try ImageCodec.decode(try ImageFile.read(dir + "/past.png")).0,
                              try ImageCodec.decode(try ImageFile.read(dir + "/past.pillow.png")).0)
        XCTAssertEqual(Size(width: ours.width, height: ours.height), Size(width: 9, height: 5))
        // Pillow fills what the first frame leaves uncovered with index 0, imgscale with the
        // screen's background colour (the GIF specification's); the frame itself must agree.
        for y in 2..<5 {
            XCTAssertEqual(Array(ours.pixels[(y * 9 + 3) * 3 ..< (y * 9 + 9) * 3]), Array(pillow.pixels[(y * 9 + 3) * 3 ..< (y * 9 + 9) * 3]))
        }
        let nopal = CLI.run(["convert", dir + "/nopal.gif", "-o", dir + "/nopal.png"])
        XCTAssertEqual(nopal.status, 0, nopal.stderr)
        XCTAssertEqual(try ImageCodec.decode(try ImageFile.read(dir + "/nopal.png")).0.pixels,
                       try ImageCodec.decode(try ImageFile.read(dir + "/nopal.pillow.png")).0.pixels)
        let cs = CLI.run(["convert", dir + "/cs11.gif", "-o", dir + "/cs11.png"])
        XCTAssertEqual(cs.status, 1)
        XCTAssertEqual(cs.stderr, "imgscale: \(dir)/cs11.gif: invalid GIF: the first image's LZW code size is 11; giflib reads 2 to 8, "
                       + "the GIF specification's range (Pillow and browsers read larger ones)\n")
        let t0 = Date()
        let big = CLI.run(["convert", dir + "/bigframe.gif", "-o", dir + "/big.png"])
        XCTAssertEqual(big.status, 1)
        XCTAssertTrue(big.stderr.contains("20000x20000") && big.stderr.contains("--max-pixels"), big.stderr)
        let unlimited = CLI.run(["convert", "--max-pixels", "0", "--fail-on", "none", dir + "/bigframe.gif", "-o", dir + "/big.png"])
        XCTAssertEqual(unlimited.status, 1)
        XCTAssertTrue(unlimited.stderr.contains("over the memory budget"), unlimited.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(t0), 5)
        for r in [nopal, cs, big, past] { XCTAssertFalse(r.stderr.contains("invalid GIF: invalid GIF"), r.stderr) }
    }
}

/// The memory budget counts what libwebp's animation decoder holds: two RGBA canvases.
final class WebPBudgetTests: XCTestCase {
    func testAHugeCanvasOfTinyFramesIsRefusedUpFront() throws {
        let dir = CLI.tempDir()
        try python("""
        import struct, subprocess
        from PIL import Image
        Image.new('RGB', (1, 1), (255, 0, 0)).save('f.png')
        subprocess.run(['cwebp', '-quiet', '-lossless', 'f.png', '-o', 'f.webp'], check=True)
        b = open('f.webp', 'rb').read()
        n = struct.unpack('<I', b[16:20])[0]
        vp8l = b[12:20 + n + (n & 1)]
        def chunk(t, p): return t + struct.pack('<I', len(p)) + p + (b'\\0' if len(p) & 1 else b'')
        def u24(v): return struct.pack('<I', v)[:3]
        vp8x = chunk(b'VP8X', bytes([0x02, 0, 0, 0]) + u24(12500 - 1) + u24(12500 - 1))
        anim = chunk(b'ANIM', bytes(4) + struct.pack('<H', 0))
        def anmf(x, y): return chunk(b'ANMF', u24(x // 2) + u24(y // 2) + u24(0) + u24(0) + u24(100) + bytes([0]) + vp8l)
        body = b'WEBP' + vp8x + anim + anmf(0, 0) + anmf(2, 2)
        open('anim-huge.webp', 'wb').write(b'RIFF' + struct.pack('<I', len(body)) + body)
        """, in: dir)
        let r = CLI.run(["fit", "--size", "64x64", dir + "/anim-huge.webp", "-o", dir + "/o.png"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("over the memory budget") && r.stderr.contains("--max-memory"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/o.png"))
    }
}

/// A refusal that a lower --fail-on would decode says which level, and it is true.
final class FailOnHintTests: XCTestCase {
    func testEveryDamageRefusalNamesTheLevelThatDecodesIt() throws {
        let dir = CLI.tempDir()
        let jpeg = try XCTUnwrap(CLI.bytes(CLI.testImages + "/scene-640x427.jpg"))
        let png = try XCTUnwrap(CLI.bytes(CLI.testImages + "/scene-640x427.png"))
        func write(_ name: String, _ bytes: Data) { _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: bytes) }
        write("cut.jpg", jpeg.prefix(jpeg.count / 2))
        // Bytes between two markers: libjpeg's "extraneous bytes" warning.
        let sos = try XCTUnwrap((2..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        write("extraneous.jpg", jpeg.prefix(sos) + Data([1, 2, 3]) + jpeg.suffix(from: sos))
        // The same warning first, then all-ones bits mid-scan, a code no Huffman table
        // holds: corrupt data further on, which `--fail-on error` would refuse too.
        var both = jpeg.prefix(sos) + Data([1, 2, 3]) + jpeg.suffix(from: sos)
        let middle = both.startIndex + sos + 3 + (both.count - sos - 3) / 2
        both.replaceSubrange(middle..<middle + 40, with: Data([UInt8](repeating: 0, count: 40).enumerated().map { $0.offset % 2 == 0 ? 0xFF : 0 }))
        write("worse-later.jpg", both)
        write("cut.png", png.prefix(png.count / 2))
        // A bad filter type (9) in the first row: corrupt image data.
        var raw = [UInt8](repeating: 0, count: 4 * 17)
        raw[0] = 9
        let filter = Crafted.signature + Crafted.chunk("IHDR", Crafted.be32(16) + Crafted.be32(4) + [8, 0, 0, 0, 0])
            + Crafted.chunk("IDAT", Crafted.zlibStored(raw)) + Crafted.chunk("IEND", [])
        write("filter.png", Data(filter))
        try python("""
        from PIL import Image
        Image.new('P', (40, 30), 3).save('full.gif')
        b = open('full.gif', 'rb').read()
        open('cut.gif', 'wb').write(b[:len(b) - 8])
        Image.new('RGB', (64, 48), (9, 90, 200)).save('full.webp', quality=80)
        b = open('full.webp', 'rb').read()
        open('cut.webp', 'wb').write(b[:len(b) * 2 // 3])
        """, in: dir)
        let expected = ["cut.jpg": "none", "extraneous.jpg": "error", "worse-later.jpg": "truncated", "cut.png": "none", "filter.png": "truncated",
                        "cut.gif": "none", "cut.webp": "none"]
        for (name, level) in expected.sorted(by: { $0.key < $1.key }) {
            let strict = CLI.run(["convert", dir + "/" + name, "-o", dir + "/out.png"])
            XCTAssertEqual(strict.status, 1, "\(name): \(strict.stderr)")
            XCTAssertTrue(strict.stderr.contains("(--fail-on \(level) "), "\(name): \(strict.stderr)")
            XCTAssertEqual(strict.stderr.split(separator: "\n").count, 1, strict.stderr)
            let lenient = CLI.run(["convert", "--fail-on", level, dir + "/" + name, "-o", dir + "/out.png"])
            XCTAssertEqual(lenient.status, 0, "\(name) at \(level): \(lenient.stderr)")
            try? FileManager.default.removeItem(atPath: dir + "/out.png")
        }
    }
}
