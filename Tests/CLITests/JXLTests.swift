import XCTest
import TestReferences
import Foundation

/// JPEG XL through the built imgscale, held to libjxl's own tools: what cjxl writes
/// (lossy, lossless, alpha, gray, 16-bit, a recompressed JPEG with EXIF orientation, an
/// animation) decodes as djxl decodes it; what imgscale writes reads back in djxl, exactly
/// when lossless, and the same bytes on every run; a JPEG converted losslessly gives its
/// own bytes back through `djxl`; damaged files are refused with one line.
final class JXLTests: XCTestCase {
    private func tools() throws {
        for tool in ["/usr/bin/cjxl", "/usr/bin/djxl"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw missingReference("\(tool) is missing (Debian's libjxl-tools)")
        }
    }

    func testDecodesAsDjxl() throws {
        try tools()
        let dir = CLI.tempDir()
        try python("""
            import subprocess
            import numpy as np
            from PIL import Image
            W, H = 203, 141
            y, x = np.mgrid[0:H, 0:W]
            rgb = np.stack([(x * 255 // W), (y * 255 // H), ((x * y) % 251)], 2).astype(np.uint8)
            a = ((x + y) * 255 // (W + H)).astype(np.uint8)
            Image.fromarray(rgb).save('rgb.png')
            Image.fromarray(np.concatenate([rgb, a[..., None]], 2)).save('rgba.png')
            Image.fromarray(rgb[..., 0]).save('gray.png')
            Image.fromarray((x * 65535 // W).astype(np.uint16)).save('gray16.png')
            Image.fromarray(rgb).save('photo.jpg', quality=90)
            frames = [Image.fromarray(np.roll(rgb, 20 * i, axis=1)) for i in range(3)]
            frames[0].save('anim.gif', save_all=True, append_images=frames[1:], duration=100, loop=0)
            def cjxl(src, out, *args): subprocess.run(['cjxl', src, out, *args], check=True, capture_output=True)
            cjxl('rgb.png', 'lossy.jxl', '-d', '1.5')
            cjxl('rgb.png', 'lossless.jxl', '-d', '0')
            cjxl('rgba.png', 'alpha.jxl', '-d', '1')
            cjxl('gray.png', 'gray.jxl', '-d', '0')
            cjxl('gray16.png', 'gray16.jxl', '-d', '0')
            cjxl('photo.jpg', 'recompressed.jxl')
            cjxl('anim.gif', 'anim.jxl', '-d', '0')
            """, in: dir)
        var cases = ["lossy", "lossless", "alpha", "gray", "gray16", "recompressed", "anim"]
        let turned = CLI.testdata + "/exif-orientation/Landscape_6.jpg"
        if FileManager.default.fileExists(atPath: turned) {
            // Recompressed with its EXIF orientation 6, which libjxl moves into the codestream.
            XCTAssertEqual(CLI.sh("cjxl '\(turned)' '\(dir)/turned.jxl'").status, 0)
            cases.append("turned")
        } else {
            try partlyMissing("\(turned) is missing; the crafted files still ran")
        }
        for name in cases {
            let jxl = "\(dir)/\(name).jxl"
            let r = CLI.run(["convert", jxl, "-o", "\(dir)/\(name)-ours.png"])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            XCTAssertEqual(CLI.sh("djxl '\(jxl)' '\(dir)/\(name)-djxl.png'").status, 0, name)
            try python("""
                import numpy as np
                from PIL import Image
                ours, ref = Image.open('\(name)-ours.png'), Image.open('\(name)-djxl.png')
                mode = 'RGBA' if 'A' in ref.mode else 'RGB'
                a = np.asarray(ours.convert(mode)).astype(int)
                if ref.mode.startswith('I'):
                    # djxl keeps 16 bits in its PNG, which Pillow's convert would clip.
                    g = np.round(np.asarray(ref).astype(float) * 255 / 65535).astype(int)
                    b = np.stack([g, g, g], 2)
                else:
                    b = np.asarray(ref.convert(mode)).astype(int)
                assert a.shape == b.shape, ('\(name)', a.shape, b.shape)
                assert np.abs(a - b).max() <= 1, ('\(name)', np.abs(a - b).max())
                """, in: dir)
        }
        // 16 bits kept where the output holds them (--depth auto into PNG): djxl's own
        // 16-bit PNG, level for level (of 65535) within 1, lossless and lossy.
        try python("""
            import subprocess
            import numpy as np
            from PIL import Image
            y, x = np.mgrid[0:61, 0:83]
            rgb = np.stack([x * 789, y * 1071, (x * y * 13) % 65536], 2).astype('>u2')
            # Pillow writes no 16-bit RGB PNG: its rows written by hand, big-endian, as PNG's.
            import zlib, struct
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
            raw = b''.join(b'\\0' + row.tobytes() for row in rgb)
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 83, 61, 16, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
            open('rgb16.png', 'wb').write(png)
            subprocess.run(['cjxl', 'rgb16.png', 'rgb16.jxl', '-d', '0'], check=True, capture_output=True)
            subprocess.run(['cjxl', 'rgb16.png', 'rgb16-lossy.jxl', '-d', '1'], check=True, capture_output=True)
            """, in: dir)
        for name in ["gray16", "rgb16", "rgb16-lossy"] {
            XCTAssertEqual(CLI.run(["convert", "--depth", "auto", "\(dir)/\(name).jxl", "-o", "\(dir)/\(name)-wide.png"]).status, 0, name)
            XCTAssertEqual(CLI.sh("djxl '\(dir)/\(name).jxl' '\(dir)/\(name)-djxl16.png'").status, 0, name)
            XCTAssertTrue(CLI.run(["info", "\(dir)/\(name)-wide.png"]).stdout.contains("16-bit"), name)
            try python("""
                import imagecodecs, numpy as np
                ours = imagecodecs.png_decode(open('\(name)-wide.png', 'rb').read()).astype(int)
                ref = imagecodecs.png_decode(open('\(name)-djxl16.png', 'rb').read()).astype(int)
                assert ours.shape == ref.shape and np.abs(ours - ref).max() <= 1, ('\(name)', ours.shape, ref.shape, np.abs(ours - ref).max())
                if '\(name)' == 'rgb16':
                    src = imagecodecs.png_decode(open('rgb16.png', 'rb').read()).astype(int)
                    assert np.array_equal(ours, src), 'lossless 16-bit is exact'
                """, in: dir)
        }
        let info = CLI.run(["info", dir + "/anim.jxl", dir + "/gray16.jxl"])
        XCTAssertTrue(info.stdout.contains("JPEG XL 203x141") && info.stdout.contains("3 frames (the first is used)"), info.stdout)
        XCTAssertTrue(info.stdout.contains("16-bit"), info.stdout)
        if cases.contains("turned") {
            XCTAssertTrue(CLI.run(["info", dir + "/turned.jxl"]).stdout.contains("orientation 6 (upright 1800x1200)"))
        }
    }

    /// Lossless is exact in djxl's decode; lossy follows libvips's quality-to-distance
    /// mapping (the plan says the distance); the bytes are the same on every run, on one
    /// core or two, and at -j1.
    func testEncodes() throws {
        try tools()
        let dir = CLI.tempDir()
        try python("""
            import numpy as np
            from PIL import Image
            W, H = 131, 97
            y, x = np.mgrid[0:H, 0:W]
            rgb = np.stack([(x * 255 // W), (y * 255 // H), ((x ^ y) & 255)], 2).astype(np.uint8)
            Image.fromarray(rgb).save('rgb.png')
            Image.fromarray(np.concatenate([rgb, ((x * 2 + y) % 256).astype(np.uint8)[..., None]], 2)).save('rgba.png')
            Image.fromarray(rgb[..., 2]).save('gray.png')
            """, in: dir)
        for name in ["rgb", "rgba", "gray"] {
            XCTAssertEqual(CLI.run(["convert", "--lossless", "\(dir)/\(name).png", "-o", "\(dir)/\(name).jxl"]).status, 0)
            XCTAssertEqual(CLI.sh("djxl '\(dir)/\(name).jxl' '\(dir)/\(name)-back.png'").status, 0)
            try python("""
                import numpy as np
                from PIL import Image
                src, back = Image.open('\(name).png'), Image.open('\(name)-back.png')
                mode = 'RGBA' if 'A' in src.mode else 'RGB'
                assert np.array_equal(np.asarray(src.convert(mode)), np.asarray(back.convert(mode))), '\(name)'
                """, in: dir)
        }
        let plan = CLI.run(["plan", "convert", "--quality", "90", dir + "/rgb.png", "-o", dir + "/q.jxl"])
        XCTAssertTrue(plan.stdout.contains("encoder: JPEG XL, quality 90 (distance 1.0), effort 7"), plan.stdout)
        XCTAssertTrue(CLI.run(["plan", "convert", dir + "/rgb.png", "-o", dir + "/q.jxl"]).stdout.contains("quality 75 (distance 2.35)"))
        var made: [Data] = []
        for (k, prefix) in ["", "taskset -c 0 ", "nice "].enumerated() {
            for jobs in ["1", "2"] {
                let out = "\(dir)/run-\(k)-\(jobs).jxl"
                let r = CLI.sh("\(prefix)\"$IMGSCALE\" fit --size 120x -j \(jobs) --effort 3 '\(dir)/rgba.png' -o '\(out)'")
                XCTAssertEqual(r.status, 0, r.stderr)
                made.append(try XCTUnwrap(CLI.bytes(out)))
            }
        }
        XCTAssertEqual(Set(made).count, 1, "the same bytes on every run")
        XCTAssertEqual(CLI.size(dir + "/run-0-1.jxl"), "120x89")
    }

    /// `convert x.jpg -o x.jxl --lossless` keeps the JPEG's coded data: djxl rebuilds the
    /// very bytes, and the file is smaller. Any pixel change (a size, --to-srgb) encodes
    /// pixels instead.
    /// 16 bits kept: `--lossless` of a 16-bit PNG (RGB and gray) round-trips exactly
    /// through djxl, `--depth 16` writes a lossy 16-bit file, and where lossless cannot
    /// keep them (WebP) one warning says so. A file whose colour is stored premultiplied
    /// (cjxl --premultiply=1) comes out straight, as djxl gives it.
    func testSixteenBitsAndPremultipliedAlpha() throws {
        try tools()
        let dir = CLI.tempDir()
        try python("""
            import subprocess
            import numpy as np
            from PIL import Image
            h, w = 61, 97
            y, x = np.mgrid[0:h, 0:w]
            rgb = np.dstack([x * 65535 // (w - 1), y * 65535 // (h - 1), (x * 977 + y * 31) % 65536]).astype('>u2')
            open('deep.ppm', 'wb').write(b'P6 %d %d 65535\\n' % (w, h) + rgb.tobytes())
            subprocess.run('pnmtopng deep.ppm > deep.png', shell=True, check=True)
            Image.fromarray((x * 65535 // (w - 1) ^ y).astype(np.uint16)).save('gray16.png')
            straight = np.dstack([x * 3 % 256, y * 4 % 256, (x + y) * 2 % 256, x * 255 // (w - 1)]).astype(np.uint8)
            Image.fromarray(straight, 'RGBA').save('straight.png')
            subprocess.run(['cjxl', 'straight.png', 'pm.jxl', '-d', '0', '--premultiply=1'], check=True, capture_output=True)
            """, in: dir)
        for name in ["deep", "gray16"] {
            let r = CLI.run(["convert", "--lossless", "\(dir)/\(name).png", "-o", "\(dir)/\(name).jxl"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stderr, "", name)
        }
        XCTAssertEqual(CLI.run(["convert", "--depth", "16", "--quality", "90", dir + "/deep.png", "-o", dir + "/lossy16.jxl"]).status, 0)
        let narrowed = CLI.run(["convert", "--lossless", dir + "/deep.png", "-o", dir + "/deep.webp"])
        XCTAssertEqual(narrowed.status, 0, narrowed.stderr)
        XCTAssertEqual(narrowed.stderr.split(separator: "\n").count, 1, narrowed.stderr)
        XCTAssertTrue(narrowed.stderr.contains("lossless, but its 16-bit samples written as 8-bit: WebP holds 8 bits"), narrowed.stderr)
        XCTAssertEqual(CLI.run(["convert", dir + "/pm.jxl", "-o", dir + "/pm-ours.png"]).status, 0)
        try python("""
            import subprocess
            import numpy as np
            from PIL import Image
            def djxl(src, out): subprocess.run(['djxl', src, out], check=True, capture_output=True)
            def samples(path):
                pam = subprocess.run(['pngtopam', path], capture_output=True, check=True).stdout
                magic, w, h, top, data = pam.split(maxsplit=4)
                c = 3 if magic == b'P6' else 1
                return int(top), np.frombuffer(data[:int(w) * int(h) * c * 2], '>u2').astype(int).reshape(-1, c)
            for name in ('deep', 'gray16'):
                djxl(name + '.jxl', name + '-back.png')
                (top, back), (_, src) = samples(name + '-back.png'), samples(name + '.png')
                # Gray is written as RGB, as for 8 bits.
                assert top == 65535 and np.array_equal(back, np.repeat(src, back.shape[1] // src.shape[1], axis=1)), name
            djxl('lossy16.jxl', 'lossy16.png')
            top, lossy = samples('lossy16.png')
            assert top == 65535 and len(np.unique(lossy)) > 4096, (top, len(np.unique(lossy)))
            djxl('pm.jxl', 'pm-djxl.png')
            theirs = np.asarray(Image.open('pm-djxl.png').convert('RGBA')).astype(int)
            ours = np.asarray(Image.open('pm-ours.png').convert('RGBA')).astype(int)
            visible = theirs[..., 3] > 0
            assert np.abs(ours - theirs)[visible].max() <= 1, np.abs(ours - theirs)[visible].max()
            """, in: dir)
    }

    func testRecompressesAJPEGLosslessly() throws {
        try tools()
        let dir = CLI.tempDir()
        var jpegs = [CLI.testImages + "/scene-640x427.jpg"]
        let photos = CLI.testdata + "/photos"
        if let names = try? FileManager.default.contentsOfDirectory(atPath: photos) {
            jpegs += names.filter { $0.hasSuffix(".jpg") }.sorted().map { photos + "/" + $0 }
        } else {
            try partlyMissing("\(photos) is missing; the project's own JPEG still ran")
        }
        for (i, jpeg) in jpegs.enumerated() {
            let jxl = "\(dir)/\(i).jxl"
            let r = CLI.run(["convert", jpeg, "-o", jxl, "--lossless"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(CLI.sh("djxl '\(jxl)' '\(dir)/\(i).jpg'").status, 0)
            XCTAssertEqual(CLI.bytes(jpeg), CLI.bytes("\(dir)/\(i).jpg"), "\(jpeg): djxl gives the JPEG back")
            let saved = 1 - Double(try XCTUnwrap(CLI.bytes(jxl)).count) / Double(try XCTUnwrap(CLI.bytes(jpeg)).count)
            XCTAssertGreaterThan(saved, 0.12, jpeg)
            print("\(jpeg): \(String(format: "%.1f", saved * 100))% smaller as JPEG XL")
        }
        let plan = CLI.run(["plan", "convert", "--lossless", jpegs[0], "-o", dir + "/p.jxl"])
        XCTAssertTrue(plan.stdout.contains("recompress the JPEG's coded data, nothing decoded"), plan.stdout)
        for other in [["convert", "--lossless", "--size", "320x"], ["convert", "--lossless", "--to-srgb", "--size", "640x"], ["fit", "--lossless", "--size", "64x64"]] {
            let p = CLI.run(["plan"] + other + [jpegs[0], "-o", dir + "/p.jxl"])
            XCTAssertFalse(p.stdout.contains("recompress"), "\(other): \(p.stdout)")
        }
    }

    /// Damage is refused with one line (beside what libjxl printed) and nothing written: a file cut short, garbage
    /// after the signature, a container with no codestream.
    func testEveryCodedFrameCountsAgainstTheFrameLimitsEvenForAStill() throws {
        try tools()
        let dir = CLI.tempDir()
        // 1,500 frames of no duration: one frame shown, all 1,500 decoded (11.8 s for a
        // still thumbnail of such a file before; counted as 1 frame, so no limit held).
        try python("""
            import subprocess
            from PIL import Image
            frames = [Image.new('RGB', (64, 64), (i % 256, 0, 0)) for i in range(1500)]
            frames[0].save('layers.png', save_all=True, append_images=frames[1:], duration=0, loop=0)
            subprocess.run(['cjxl', 'layers.png', 'layers.jxl', '-e', '1'], check=True, capture_output=True)
            """, in: dir)
        let message = "invalid JPEG XL: 1500 coded frames and layers (1 shown), over the limit of 1000 (raise it with --max-frames)"
        for animated in [[], ["--animated"]] {
            let r = CLI.run(["fill", "--size", "16x16", dir + "/layers.jxl", "-o", dir + "/out.webp"] + animated)
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertEqual(r.stderr, "imgscale: \(dir)/layers.jxl: \(message)\n")
        }
        XCTAssertEqual(CLI.run(["fill", "--size", "16x16", dir + "/layers.jxl", "-o", dir + "/out.webp", "--max-frames", "2000"]).status, 0)
        let area = CLI.run(["fill", "--size", "16x16", dir + "/layers.jxl", "-o", dir + "/out.webp", "--max-frames", "2000", "--max-pixels", "5000"])
        XCTAssertEqual(area.status, 1, area.stderr)
        XCTAssertTrue(area.stderr.contains("its 1500 coded frames and layers hold 6144000 pixels, over 4 times the limit of 5000 (raise it with --max-pixels)"), area.stderr)
    }

    func testATruncatedFileIsCalledTruncatedAndNoneDrawsWhatItHolds() throws {
        try tools()
        let dir = CLI.tempDir()
        try python("""
            import subprocess
            subprocess.run(['cjxl', '\(CLI.testImages)/scene-640x427.jpg', 'prog.jxl', '-p', '-j', '0'], check=True, capture_output=True)
            subprocess.run(['cjxl', '\(CLI.testImages)/scene-640x427.jpg', 'flat.jxl', '-j', '0'], check=True, capture_output=True)
            for name in ('prog', 'flat'):
                d = open(name + '.jxl', 'rb').read()
                open(name + '-cut.jxl', 'wb').write(d[:len(d) * 2 // 3])
            """, in: dir)
        // One line, called truncated; the level that reads it named only where it does.
        let flat = CLI.run(["fill", "--size", "64x64", dir + "/flat-cut.jxl", "-o", dir + "/f.png"])
        XCTAssertTrue(flat.stderr.hasPrefix("imgscale: \(dir)/flat-cut.jxl: invalid JPEG XL: the file ends before its image does (truncated JPEG XL)"), flat.stderr)
        XCTAssertEqual(flat.stderr.split(separator: "\n").count, 1, flat.stderr)
        let prog = CLI.run(["fill", "--size", "64x64", dir + "/prog-cut.jxl", "-o", dir + "/p.png"])
        XCTAssertEqual(prog.stderr, "imgscale: \(dir)/prog-cut.jxl: invalid JPEG XL: the file ends before its image does (truncated JPEG XL) (--fail-on none decodes what is there)\n")
        let drawn = CLI.run(["fill", "--size", "64x64", dir + "/prog-cut.jxl", "-o", dir + "/p.png", "--fail-on", "none"])
        XCTAssertEqual(drawn.status, 0, drawn.stderr)
        XCTAssertTrue(drawn.stderr.contains("warning: damaged JPEG XL decoded anyway (fail-on none)"), drawn.stderr)
        // Two thirds of a progressive file is close to the whole: a preview, not noise.
        XCTAssertEqual(CLI.run(["fill", "--size", "64x64", dir + "/prog.jxl", "-o", dir + "/whole.png"]).status, 0)
        XCTAssertEqual(CLI.run(["compare", dir + "/whole.png", dir + "/p.png", "--min-psnr", "35"]).status, 0)
    }

    func testRefusesDamage() throws {
        try tools()
        let dir = CLI.tempDir()
        XCTAssertEqual(CLI.run(["convert", "--lossless", CLI.testImages + "/scene-640x427.jpg", "-o", dir + "/ok.jxl"]).status, 0)
        XCTAssertEqual(CLI.run(["convert", CLI.testImages + "/scene-640x427.jpg", "-o", dir + "/lossy.jxl"]).status, 0)
        try python("""
            import os, random
            ok, lossy = open('ok.jxl', 'rb').read(), open('lossy.jxl', 'rb').read()
            open('cut.jxl', 'wb').write(lossy[:len(lossy) // 2])
            open('cut-container.jxl', 'wb').write(ok[:len(ok) // 3])
            open('garbage.jxl', 'wb').write(b'\\xff\\x0a' + random.Random(7).randbytes(4000))
            open('empty-container.jxl', 'wb').write(bytes([0, 0, 0, 12]) + b'JXL \\r\\n\\x87\\n' + bytes([0, 0, 0, 20]) + b'ftypjxl \\0\\0\\0\\0jxl ')
            """, in: dir)
        for name in ["cut", "cut-container", "garbage", "empty-container"] {
            let r = CLI.run(["fill", "--size", "32x32", "\(dir)/\(name).jxl", "-o", "\(dir)/out.png"])
            XCTAssertEqual(r.status, 1, "\(name): \(r.stderr)")
            // libjxl prints its own reasons to stderr, which come beside the line as a
            // warning (under the sanitizers a single input runs in this process, and
            // they come as libjxl printed them).
            let lines = r.stderr.split(separator: "\n").filter { $0.hasPrefix("imgscale: ") && !$0.contains("warning: the decoder printed: ") }
            XCTAssertEqual(lines.count, 1, "\(name): \(r.stderr)")
            // Garbage may read as a header declaring a huge canvas: refused by the limit.
            XCTAssertTrue(r.stderr.contains("JPEG XL") || r.stderr.contains("over the limit"), "\(name): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.png"))
        }
        // A codestream declaring a huge canvas (its SizeHeader written bit by bit, as the
        // spec packs it: least significant bit first) is refused from that header by the
        // pixel limit, or with --max-pixels 0 by the budget, before any frame is read.
        try python("""
            def bits(fields):
                out, acc, n = [], 0, 0
                for value, width in fields:
                    for i in range(width):
                        acc |= ((value >> i) & 1) << n
                        n += 1
                        if n == 8:
                            out.append(acc); acc = 0; n = 0
                return bytes(out + ([acc] if n else []))
            for name, side in (('huge', 1000000), ('large', 20000)):
                # small=0, height: selector 3 + 30 bits, ratio 0, width likewise, all_default=1.
                header = bits([(0, 1), (3, 2), (side - 1, 30), (0, 3), (3, 2), (side - 1, 30), (1, 1)])
                open(name + '.jxl', 'wb').write(b'\\xff\\x0a' + header + bytes(64))
            """, in: dir)
        XCTAssertTrue(CLI.run(["info", dir + "/huge.jxl"]).stdout.contains("1000000x1000000"))
        for (name, extra, message) in [("huge", [String](), "over the limit of"), ("large", [], "over the limit of"),
                                       ("large", ["--max-pixels", "0"], "over the memory budget")] {
            let started = Date()
            let r = CLI.run(["fill", "--size", "32x32"] + extra + ["\(dir)/\(name).jxl", "-o", "\(dir)/out.png"])
            XCTAssertLessThan(Date().timeIntervalSince(started), 1)
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").filter { $0.hasPrefix("imgscale: ") }.count, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains(message), "\(name) \(extra): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.png"))
        }
    }
}
