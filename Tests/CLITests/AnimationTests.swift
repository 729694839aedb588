import XCTest
import TestReferences
import Foundation

/// `--animated` through the built imgscale: every frame of an animated GIF, WebP or JPEG XL goes
/// through the same fill, fit or crop, and frame i of the output, decoded by Pillow,
/// equals the still operation on Pillow's composited frame i (exactly, written
/// lossless); delays and the loop count are kept; the frame limit and the budget refuse
/// what is too long or too large, quickly, with one line.
final class AnimationTests: XCTestCase {
    /// GIFs Pillow writes with every disposal, transparency and frames cut to what
    /// changed, the shared animated GIF and WebP, each through a fill and a fit.
    func testEveryFrameEqualsTheStillOperationOnPillowsFrame() throws {
        let dir = CLI.tempDir()
        let shared = CLI.testdata + "/formats"
        var sources = ["d1.gif", "d2.gif", "d3.gif", "changed.gif", "transparent.gif"]
        for name in ["gif-anim-3frames-160x120.gif", "webp-anim-3frames-160x120.webp"] {
            if FileManager.default.fileExists(atPath: shared + "/" + name) { sources.append(shared + "/" + name) } else {
                try partlyMissing("\(shared)/\(name) is missing; the crafted GIFs still ran")
            }
        }
        try python("""
            import numpy as np
            from PIL import Image
            W, H = 97, 61
            y, x = np.mgrid[0:H, 0:W]
            frames = []
            for i in range(5):
                a = np.zeros((H, W, 3), np.uint8)
                a[..., 0] = (x * 3 + i * 40) % 256; a[..., 1] = (y * 4) % 256; a[..., 2] = ((x // 8 + y // 8 + i) % 2) * 200
                if i % 2: a[10:30, 20 + i * 5:50 + i * 5] = [255, 255, 0]
                frames.append(Image.fromarray(a).convert('P', palette=Image.ADAPTIVE, colors=64))
            kinds = {'d1': dict(disposal=1), 'd2': dict(disposal=2), 'd3': dict(disposal=[1, 3, 2, 3, 1]),
                     'changed': dict(optimize=True), 'transparent': dict(transparency=0, disposal=2)}
            for name, kw in kinds.items():
                frames[0].save(name + '.gif', save_all=True, append_images=frames[1:], duration=[100, 200, 150, 80, 60], loop=0, **kw)
            """, in: dir)
        // A JPEG XL animation cjxl makes of one of them, held to that GIF's frames.
        var references: [String: String] = [:]
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/cjxl") {
            XCTAssertEqual(CLI.sh("cjxl -d 0 '\(dir)/d3.gif' '\(dir)/d3.jxl'").status, 0)
            sources.append("d3.jxl")
            references["d3.jxl"] = dir + "/d3.gif"
        } else {
            try partlyMissing("cjxl is missing (Debian's libjxl-tools); the GIFs and WebP still ran")
        }
        // Under a sanitizer every other pair of source and operation: each source and each
        // operation still runs.
        let ops = [["fill", "--size", "40x40"], ["fit", "--size", "50x"], ["crop", "--rect", "5,7,30,20"]]
        for (source, op) in Sweep.sample(sources.flatMap { s in ops.map { (s, $0) } }, every: 2) {
            let input = source.hasPrefix("/") ? source : dir + "/" + source
            let reference = references[source] ?? input
            do {
                let r = CLI.run(op + ["--animated", "--lossless", input, "-o", dir + "/out.webp"])
                XCTAssertEqual(r.status, 0, "\(source) \(op): \(r.stderr)")
                try python("""
                    import subprocess, os
                    import numpy as np
                    from PIL import Image
                    exe, op = os.environ['IMGSCALE'], \(op)
                    im, out = Image.open('\(reference)'), Image.open('out.webp')
                    assert out.n_frames == im.n_frames, (out.n_frames, im.n_frames)
                    for i in range(im.n_frames):
                        im.seek(i)
                        im.convert('RGBA').save('frame.png')
                        subprocess.run([exe] + op + ['frame.png', '-o', 'still.png'], check=True)
                        out.seek(i)
                        a = np.asarray(out.convert('RGBA')).astype(int)
                        b = np.asarray(Image.open('still.png').convert('RGBA')).astype(int)
                        d = np.abs(a - b)
                        d[..., :3] *= b[..., 3:] > 0  # colour under alpha 0 is not kept
                        assert d.max() == 0, ('\(source)', op, i, d.max())
                    """, in: dir)
            }
        }
        // Delays and the loop count: what webpmux lists.
        XCTAssertEqual(CLI.run(["fit", "--size", "50x", "--animated", dir + "/d3.gif", "-o", dir + "/d3.webp"]).status, 0)
        let listing = CLI.sh("webpmux -info '\(dir)/d3.webp'")
        if listing.status == 127 { throw missingReference("webpmux is missing (Debian's webp)") }
        XCTAssertTrue(listing.stdout.contains("Loop Count : 0"), listing.stdout)
        let durations = listing.stdout.split(separator: "\n").compactMap { line -> Int? in
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            return f.count > 7 && f[0].hasSuffix(":") ? Int(f[6]) : nil
        }
        XCTAssertEqual(durations, [100, 200, 150, 80, 60], listing.stdout)
        // Frames are planned on one thread while the one before is encoded on another:
        // the same bytes on one core, at -j1 and with two files at once.
        var made: [Data] = []
        for (k, command) in ["", "taskset -c 0 ", "nice "].enumerated() {
            let r = CLI.sh("\(command)\"$IMGSCALE\" fit --size 50x --animated '\(dir)/d3.gif' -o '\(dir)/run\(k).webp'")
            XCTAssertEqual(r.status, 0, r.stderr)
            made.append(try XCTUnwrap(CLI.bytes(dir + "/run\(k).webp")))
        }
        XCTAssertEqual(CLI.run(["fit", "--size", "50x", "--animated", "-j", "2", dir + "/d2.gif", dir + "/d3.gif", "--out-dir", dir + "/two",
                                "--format", "webp"]).status, 0)
        made.append(try XCTUnwrap(CLI.bytes(dir + "/two/d3.webp")))
        made.append(try XCTUnwrap(CLI.bytes(dir + "/d3.webp")))
        XCTAssertEqual(Set(made).count, 1, "the same bytes on every run")
        // Without --animated the first frame alone, as ever.
        XCTAssertEqual(CLI.run(["fit", "--size", "50x", dir + "/d3.gif", "-o", dir + "/still.webp"]).status, 0)
        XCTAssertFalse(CLI.sh("webpmux -info '\(dir)/still.webp'").stdout.contains("animation"))
    }

    /// GIF output through libcgif: a still of few colours comes back exact in Pillow and
    /// giflib; a photo is reduced by median cut (within 30 dB of it, the same bytes every
    /// run); an animation keeps every frame, its delays and loop count, each frame of a
    /// crop (no new colours) equal to the animated WebP's; alpha below 128 is clear.
    func testGIFOutput() throws {
        let dir = CLI.tempDir()
        try python("""
            import numpy as np
            from PIL import Image
            y, x = np.mgrid[0:37, 0:53]
            few = np.stack([(x // 7) * 30, (y // 5) * 28, ((x + y) // 9) * 20], 2).astype(np.uint8)
            Image.fromarray(few).save('few.png')
            a = np.where((x - 26) ** 2 + (y - 18) ** 2 < 200, 255, 0).astype(np.uint8)
            Image.fromarray(np.concatenate([few, a[..., None]], 2)).save('alpha.png')
            frames = [Image.fromarray(np.roll(few, 5 * i, axis=1)).convert('P', palette=Image.ADAPTIVE, colors=60) for i in range(4)]
            frames[0].save('anim.gif', save_all=True, append_images=frames[1:], duration=[50, 120, 70, 200], loop=3)
            """, in: dir)
        for name in ["few", "alpha"] {
            XCTAssertEqual(CLI.run(["convert", "\(dir)/\(name).png", "-o", "\(dir)/\(name).gif"]).status, 0)
            XCTAssertEqual(CLI.run(["convert", "\(dir)/\(name).gif", "-o", "\(dir)/\(name)-back.png"]).status, 0)
            try python("""
                import numpy as np
                from PIL import Image
                src = np.asarray(Image.open('\(name).png').convert('RGBA')).astype(int)
                for back in (Image.open('\(name).gif'), Image.open('\(name)-back.png')):
                    b = np.asarray(back.convert('RGBA')).astype(int)
                    shown = src[..., 3] >= 128
                    assert np.array_equal(b[..., 3] == 255, shown), '\(name): alpha'
                    assert np.abs(b - src)[shown].max() == 0, '\(name): colour'
                """, in: dir)
        }
        let photo = CLI.testImages + "/scene-640x427.jpg"
        XCTAssertEqual(CLI.run(["fit", "--size", "320x", photo, "-o", dir + "/p1.gif"]).status, 0)
        XCTAssertEqual(CLI.run(["fit", "--size", "320x", photo, "-o", dir + "/p2.gif"]).status, 0)
        XCTAssertEqual(CLI.run(["fit", "--size", "320x", photo, "-o", dir + "/p.png"]).status, 0)
        XCTAssertEqual(CLI.bytes(dir + "/p1.gif"), CLI.bytes(dir + "/p2.gif"))
        try python("""
            import numpy as np
            from PIL import Image
            a = np.asarray(Image.open('p1.gif').convert('RGB')).astype(float)
            b = np.asarray(Image.open('p.png').convert('RGB')).astype(float)
            psnr = 10 * np.log10(255 ** 2 / ((a - b) ** 2).mean())
            assert psnr >= 30, psnr
            """, in: dir)
        // A crop makes no new colours, so each frame keeps its table exactly.
        XCTAssertEqual(CLI.run(["crop", "--rect", "3,2,40,30", "--animated", dir + "/anim.gif", "-o", dir + "/a.gif"]).status, 0)
        XCTAssertEqual(CLI.run(["crop", "--rect", "3,2,40,30", "--animated", "--lossless", dir + "/anim.gif", "-o", dir + "/a.webp"]).status, 0)
        try python("""
            import numpy as np
            from PIL import Image
            g, w = Image.open('a.gif'), Image.open('a.webp')
            assert g.n_frames == 4 and g.info.get('loop') == 3, (g.n_frames, g.info)
            delays = []
            for i in range(4):
                g.seek(i); w.seek(i)
                delays.append(g.info.get('duration'))
                assert np.array_equal(np.asarray(g.convert('RGB')), np.asarray(w.convert('RGB'))), i
            assert delays == [50, 120, 70, 200], delays
            """, in: dir)
        // One global table where every frame's colours fit it (the crop's four frames of
        // 60 colours, a still), tables of their own where they do not (frames of a photo,
        // each of 255 colours by median cut); the same pixels either way.
        let scene = CLI.testImages + "/scene-640x427.jpg"
        XCTAssertEqual(CLI.run(["fit", "--size", "64x", scene, "-o", dir + "/s1.gif"]).status, 0)
        XCTAssertEqual(CLI.run(["fit", "--size", "96x", scene, "-o", dir + "/s2.gif"]).status, 0)
        try python("""
            import numpy as np
            from PIL import Image
            a, b = Image.open('s1.gif').convert('RGB').resize((96, 64)), Image.open('s2.gif').convert('RGB').resize((96, 64))
            a.save('photo-anim.gif', save_all=True, append_images=[b], duration=100, loop=0)
            """, in: dir)
        XCTAssertEqual(CLI.run(["convert", "--animated", dir + "/photo-anim.gif", "-o", dir + "/photo-out.gif"]).status, 0)
        try python("""
            def tables(name):
                d = open(name, 'rb').read()
                at, local = 13 + ((3 << ((d[10] & 7) + 1)) if d[10] & 0x80 else 0), []
                while d[at] != 0x3B:
                    if d[at] == 0x21:
                        at += 2
                        while d[at]: at += d[at] + 1
                        at += 1
                    else:
                        flags = d[at + 9]
                        local.append(bool(flags & 0x80))
                        at += 10 + ((3 << ((flags & 7) + 1)) if flags & 0x80 else 0) + 1
                        while d[at]: at += d[at] + 1
                        at += 1
                return bool(d[10] & 0x80), local
            assert tables('a.gif') == (True, [False] * 4), tables('a.gif')
            assert tables('few.gif') == (True, [False]), tables('few.gif')
            g, l = tables('photo-out.gif')
            assert not g and l == [True, True], (g, l)
            """, in: dir)
        // Loop counts as browsers read them: NETSCAPE's n is n repeats after the first
        // play (n + 1 plays, WebP's count); no block plays once; 0 is forever.
        try python("""
            from PIL import Image
            f = [Image.new('RGB', (8, 8), c) for c in ('red', 'blue')]
            f[0].save('once.gif', save_all=True, append_images=f[1:], duration=100)
            f[0].save('twice.webp', save_all=True, append_images=f[1:], duration=100, loop=2, lossless=True)
            """, in: dir)
        for (input, output, expected) in [("anim.gif", "l.webp", "Loop Count : 4"), ("once.gif", "o.webp", "Loop Count : 1"),
                                          ("twice.webp", "t.webp", "Loop Count : 2")] {
            XCTAssertEqual(CLI.run(["convert", "--animated", "\(dir)/\(input)", "-o", "\(dir)/\(output)"]).status, 0)
            let listing = CLI.sh("webpmux -info '\(dir)/\(output)'")
            XCTAssertTrue(listing.stdout.contains(expected), "\(input): \(listing.stdout)")
        }
        for input in ["once.gif", "twice.webp", "l.webp"] {
            XCTAssertEqual(CLI.run(["convert", "--animated", "\(dir)/\(input)", "-o", "\(dir)/\(input).gif"]).status, 0)
        }
        try python("""
            from PIL import Image
            assert 'loop' not in Image.open('once.gif.gif').info, 'played once: no NETSCAPE block'
            assert Image.open('twice.webp.gif').info.get('loop') == 1, Image.open('twice.webp.gif').info
            assert Image.open('l.webp.gif').info.get('loop') == 3, Image.open('l.webp.gif').info
            """, in: dir)
    }

    /// 10,000 tiny frames are refused from the header by the frame limit; a huge canvas
    /// by the pixel limit; a format that holds no animation says which do; a still input
    /// with --animated is a still; all within a second, one line, nothing written.
    func testLimitsAndStills() throws {
        let dir = CLI.tempDir()
        // Under the sanitizers fewer: giflib grows its image list by one per frame, and
        // ASan's realloc copies it each time (2 CPU-s a run at 10000 frames, 0.02 plain).
        let many = HostileInputTests.sanitized ? 1200 : 10000
        try python("""
            from PIL import Image
            frames = [Image.new('P', (2, 2), i % 7) for i in range(\(many))]
            frames[0].save('many.gif', save_all=True, append_images=frames[1:], duration=10, optimize=False)
            small = [Image.new('RGB', (32, 24), (i * 60, 255 - i * 60, 90)) for i in range(4)]
            small[0].save('small.gif', save_all=True, append_images=small[1:], duration=50)
            import struct
            # A 65535x65535 screen of two 1x1 frames.
            head = b'GIF89a' + struct.pack('<HHBBB', 65535, 65535, 0x80, 0, 0) + b'\\0\\0\\0\\xff\\xff\\xff'
            frame = b'\\x2c' + struct.pack('<HHHHB', 0, 0, 1, 1, 0) + b'\\x02\\x02\\x44\\x01\\x00'
            open('huge.gif', 'wb').write(head + frame + frame + b'\\x3b')
            # 900 one-pixel frames on a 4000x4000 screen: 14.4 gigapixels to composite.
            wide = b'GIF89a' + struct.pack('<HHBBB', 4000, 4000, 0x80, 0, 0) + b'\\0\\0\\0\\xff\\xff\\xff'
            open('wide.gif', 'wb').write(wide + frame * 900 + b'\\x3b')
            # 999 frames on a 2000x2000 screen: under 16 times the pixel limit, and 99 s to a GIF.
            wide = b'GIF89a' + struct.pack('<HHBBB', 2000, 2000, 0x80, 0, 0) + b'\\0\\0\\0\\xff\\xff\\xff'
            open('wide2000.gif', 'wb').write(wide + frame * 999 + b'\\x3b')
            """, in: dir)
        let cases: [([String], String)] = [
            (["many.gif"], "\(many) frames, over the limit of 1000 (raise it with --max-frames)"),
            (["many.gif", "--max-frames", "20"], "\(many) frames, over the limit of 20"),
            (["huge.gif"], "over the limit of 268402689"),
            (["wide.gif"], "900 frames of 4000x4000 are 14400000000 pixels in all, over 4 times the limit of 268402689 (raise it with --max-pixels)"),
            (["wide2000.gif"], "999 frames of 2000x2000 are 3996000000 pixels in all, over 4 times the limit of 268402689 (raise it with --max-pixels)"),
        ]
        for (args, message) in cases {
            let t0 = Date()
            let r = CLI.run(["fill", "--size", "16x16", "--animated", "-o", dir + "/x.webp"] + args.map { $0.hasSuffix(".gif") ? dir + "/" + $0 : $0 })
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains(message), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            if !HostileInputTests.sanitized { XCTAssertLessThan(Date().timeIntervalSince(t0), 1, "\(args)") }
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/x.webp"))
            // The plan refuses what the render refuses, with the same line.
            let plan = CLI.run(["plan", "fill", "--size", "16x16", "--animated", "-o", dir + "/x.webp"]
                               + args.map { $0.hasSuffix(".gif") ? dir + "/" + $0 : $0 })
            XCTAssertEqual(plan.status, 1, plan.stderr)
            XCTAssertTrue(plan.stderr.contains(message), plan.stderr)
        }
        // The plan of an animation is the animation's: each frame through the still's
        // stages, into the animation encoder; a still under --animated plans as a still.
        let animated = CLI.run(["plan", "fill", "--size", "16x16", "--animated", "-j1", "--threads", "1", dir + "/small.gif",
                                "-o", dir + "/a.webp"])
        XCTAssertEqual(animated.status, 0, animated.stderr)
        for line in ["decode: 1/1 whole, each of 4 frames composited, one thread; for output 1", "fill 16x16 -> 16x16, animation path",
                     "encoder: WebP, animated, 4 frames, "] {
            XCTAssertTrue(animated.stdout.contains(line), animated.stdout)
        }
        let stillPlan = CLI.run(["plan", "fill", "--size", "16x16", "--animated", CLI.testImages + "/scene-640x427.jpg", "-o", dir + "/s.png"])
        XCTAssertTrue(stillPlan.stdout.contains("16x16, stream path") || stillPlan.stdout.contains("16x16, held path"), stillPlan.stdout)
        // A format of stills beside animated ones (a JPEG fallback) gets the first frame,
        // and the others are made: one WebP of 4 frames, one JPEG as the still path makes it.
        let mixed = CLI.run(["fill", "--size", "16x16", "--animated", "--format", "webp", "--format", "jpeg", dir + "/small.gif",
                             "--out-dir", dir + "/mixed"])
        XCTAssertEqual(mixed.status, 0, mixed.stderr)
        XCTAssertTrue(mixed.stderr.contains("warning: JPEG holds no animation, so its output is the first frame (--animated writes PNG, WebP, GIF)"), mixed.stderr)
        XCTAssertEqual(CLI.run(["fill", "--size", "16x16", dir + "/small.gif", "-o", dir + "/first.jpg"]).status, 0)
        XCTAssertEqual(CLI.bytes(dir + "/mixed/small.jpg"), CLI.bytes(dir + "/first.jpg"))
        XCTAssertTrue(CLI.run(["info", dir + "/mixed/small.webp"]).stdout.contains("4 frames"))
        let plan = CLI.run(["plan", "fill", "--size", "16x16", "--animated", "--format", "webp", "--format", "jpeg", dir + "/small.gif",
                            "--out-dir", dir + "/mixed"])
        XCTAssertTrue(plan.stdout.contains("animation path") && plan.stdout.contains("JPEG holds no animation"), plan.stdout)
        let still = CLI.run(["fill", "--size", "16x16", "--animated", CLI.testImages + "/scene-640x427.jpg", "-o", dir + "/s.png"])
        XCTAssertEqual(still.status, 0, still.stderr)
        XCTAssertEqual(CLI.size(dir + "/s.png"), "16x16")
    }
}
