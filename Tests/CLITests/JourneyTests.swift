import XCTest

/// Whole jobs as users type them, at their defaults, through the installed binary: every
/// output checked by an outside reader (Pillow), the exit status, the one-line errors and,
/// where the budget is the point, the peak RSS measured by scripts/peak-rss.
final class JourneyTests: XCTestCase {
    private func peak(_ r: CLI.Result, file: StaticString = #filePath, line: UInt = #line) -> (mib: Double, stderr: String) {
        CLI.peak(r, file: file, line: line)
    }

    /// The process's own peak RSS (`--help`: no codec library loaded), measured once.
    private static let base: Double = {
        let r = CLI.sh("python3 '\(CLI.root)/scripts/peak-rss' \"$IMGSCALE\" --help")
        return r.stderr.split(separator: "\n").last.flatMap { $0.split(separator: " ").first { $0.hasPrefix("kib=") } }
            .flatMap { Double($0.dropFirst(4)) }.map { $0 / 1024 } ?? .infinity
    }()

    /// `imgscale args` in `cwd` under scripts/peak-rss: its result (stderr without the
    /// peak-rss line), failing when the largest of its processes peaked over the default
    /// budget, 512 MiB, plus the process's own base (not under a sanitizer, whose shadow
    /// memory the budget does not count).
    private func withinBudget(_ args: [String], cwd: String? = nil, file: StaticString = #filePath, line: UInt = #line) -> CLI.Result {
        let quoted = args.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let r = CLI.sh("python3 '\(CLI.root)/scripts/peak-rss' \"$IMGSCALE\" \(quoted)", cwd: cwd)
        let (mib, stderr) = peak(r, file: file, line: line)
        XCTAssertLessThan(Self.base, 64, "the base was measured", file: file, line: line)
        if !HostileInputTests.sanitized {
            XCTAssertLessThan(mib, 512 + Self.base, "peak RSS of imgscale \(args.joined(separator: " "))", file: file, line: line)
        }
        return CLI.Result(status: r.status, stdout: r.stdout, stderr: stderr)
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
        let (base, _) = peak(CLI.sh("python3 '\(CLI.root)/scripts/peak-rss' \"$IMGSCALE\" --help"))
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

    /// The same srcset with `--target-ssim 0.95`, at defaults: each output's quality is
    /// searched (about 4 encodes each), whose probes are scored row by row (`SSIM`), so the
    /// held result and a probe's decode fit in the budget's rounds. Measured by hand with
    /// AVIF too: 24 ok, peak 473.6 MiB, 123 s (before: 1.2 GB for the 3840-wide AVIF alone,
    /// refused at defaults, and a 120 s CPU limit for the whole input). Here WebP and JPEG
    /// keep it to about 15 s: every score is checked against the report and the smallest
    /// against scikit-image.
    func testSrcsetSearchingForSSIMAtDefaults() throws {
        try XCTSkipIf(HostileInputTests.sanitized, "SKIPPED under sanitizers: their shadow memory is not the budget's")
        let photo = try CLI.sharedDir("photos") + "/street-4032x3024.jpg"
        let dir = CLI.tempDir()
        let args = ["fit", "--size", "320x", "--size", "640x", "--size", "1280x", "--size", "1920x", "--scale", "1", "--scale", "2",
                    "--no-upscale", "--format", "webp", "--format", "jpeg", photo, "--out-dir", dir + "/web",
                    "--name", "{stem}-{width}w{at}.{ext}", "--if-changed", "--report", dir + "/report.jsonl", "--target-ssim", "0.95"]
        let quoted = args.map { "'" + $0 + "'" }.joined(separator: " ")
        let r = CLI.sh("python3 '\(CLI.root)/scripts/peak-rss' \"$IMGSCALE\" \(quoted)")
        let (mib, stderr) = peak(r)
        XCTAssertEqual(r.status, 0, stderr)
        let (base, _) = peak(CLI.sh("python3 '\(CLI.root)/scripts/peak-rss' \"$IMGSCALE\" --help"))
        XCTAssertLessThan(mib, 512 + base, "peak RSS")
        XCTAssertEqual(pillow(dir + "/web").count, 16)
        try python("""
            \(SkimageSSIM.prelude)
            import json
            from PIL import Image
            rows = [json.loads(l) for l in open('report.jsonl') if '"output"' in l]
            rows = [r for r in rows if r.get('status') == 'ok']
            assert len(rows) == 16, rows
            for r in rows:
                assert r['ssim'] >= 0.95 and r['quality'] < 100, r
            # The smallest of each format, scored by scikit-image against the same resize.
            import subprocess, os
            for name in ('street-4032x3024-320w.jpg', 'street-4032x3024-320w.webp'):
                subprocess.run([os.environ['IMGSCALE'], 'fit', '--size', '320x', '\(photo)', '-o', 'ref.png'], check=True)
                s = ssim('ref.png', 'web/' + name)
                assert s >= 0.95 - 1e-4, (name, s)
            """, in: dir)
    }

    /// Each encoder's estimate foretells its peak RSS at 1.0-1.5x (scripts/encoder-memory,
    /// whose full table docs/security.md quotes), on a sample: two widths at two threads.
    func testEncoderEstimatesForetellTheirPeak() throws {
        try XCTSkipIf(HostileInputTests.sanitized, "SKIPPED under sanitizers: their allocator's memory is not the estimate's")
        let photo = try CLI.sharedDir("photos") + "/street-4032x3024.jpg"
        let r = CLI.sh("python3 '\(CLI.root)/scripts/encoder-memory' --binary \"$IMGSCALE\" --photo '\(photo)' --widths 320,1280 --threads 2")
        XCTAssertEqual(r.status, 0, r.stderr)
        let rows = r.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        // 11 encoders at two widths, and JPEG XL's recompression of the whole JPEG once.
        XCTAssertEqual(rows.count, 23, r.stdout)
        for row in rows {
            guard row.count == 8, let ratio = Double(row[7]) else { XCTFail("row \(row)"); continue }
            XCTAssertGreaterThanOrEqual(ratio, 1.0, "\(row[0]) at \(row[1]) wide: estimate under the peak (\(row))")
            XCTAssertLessThanOrEqual(ratio, 1.5, "\(row[0]) at \(row[1]) wide: estimate over 1.5x the peak (\(row))")
        }
    }

    /// An app's icons from one SVG master: Android's densities, iOS's @2x and @3x and a
    /// favicon.ico, each drawn by librsvg at its own size, so each equals rsvg-convert's
    /// drawing at that size.
    func testIconSetFromOneSVGMaster() throws {
        let dir = CLI.tempDir()
        try """
            <svg xmlns="http://www.w3.org/2000/svg" width="512" height="512" viewBox="0 0 512 512">
              <rect x="32" y="32" width="448" height="448" rx="96" fill="#1e88e5"/>
              <circle cx="256" cy="230" r="120" fill="#fff"/>
              <path d="M140 400 L256 300 L372 400 Z" fill="#ffca28"/>
            </svg>
            """.write(toFile: dir + "/master.svg", atomically: true, encoding: .utf8)
        let android = withinBudget(["fill", "--size", "48x48", "--scale", "0.75", "--scale", "1", "--scale", "1.5", "--scale", "2", "--scale", "3",
                               "--scale", "4", "master.svg", "--out-dir", "res", "--name", "mipmap-{dpi}/ic_launcher.png"], cwd: dir)
        XCTAssertEqual(android.status, 0, android.stderr)
        let ios = CLI.run(["fill", "--size", "60x60", "--scale", "2", "--scale", "3", "master.svg", "--out-dir", "ios", "--name", "AppIcon-60{at}.png"], cwd: dir)
        XCTAssertEqual(ios.status, 0, ios.stderr)
        let favicon = CLI.run(["fill", "--size", "16x16", "--size", "32x32", "--size", "48x48", "master.svg", "-o", "favicon.ico"], cwd: dir)
        XCTAssertEqual(favicon.status, 0, favicon.stderr)
        let r = CLI.sh("""
            python3 - <<'EOF'
            import subprocess
            import numpy as np
            from PIL import Image, IcoImagePlugin
            def ref(side):
                subprocess.run(['rsvg-convert', '-w', str(side), '-h', str(side), 'master.svg', '-o', 'ref.png'], check=True)
                return np.asarray(Image.open('ref.png').convert('RGBA')).astype(int)
            def worst(path, side, im=None):
                a = np.asarray((im or Image.open(path)).convert('RGBA')).astype(int)
                assert a.shape == (side, side, 4), (path, a.shape)
                return int(np.abs(a - ref(side)).max())
            out = []
            for d, side in [('ldpi', 36), ('mdpi', 48), ('hdpi', 72), ('xhdpi', 96), ('xxhdpi', 144), ('xxxhdpi', 192)]:
                out.append(worst(f'res/mipmap-{d}/ic_launcher.png', side))
            out += [worst('ios/AppIcon-60@2x.png', 120), worst('ios/AppIcon-60@3x.png', 180)]
            ico = Image.open('favicon.ico')
            assert sorted(ico.info['sizes']) == [(16, 16), (32, 32), (48, 48)], ico.info['sizes']
            for side in (16, 32, 48):
                out.append(worst('favicon.ico', side, ico.ico.getimage((side, side))))
            print(max(out), len(out))
            EOF
            """, cwd: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "0 11", "every icon is rsvg-convert's drawing at its size")
    }

    /// A golden suite from nothing: recorded, three images changed, compared with SSIM
    /// under a rules file into HTML and JUnit, the change accepted, and green again.
    func testGoldenSuiteFromNothing() throws {
        let dir = CLI.tempDir()
        let scene = CLI.testImages + "/scene-640x427.jpg", strokes = CLI.testImages + "/strokes-130x90.png"
        func render(_ sizes: [String]) -> CLI.Result {
            CLI.run(["fill"] + sizes.flatMap { ["--size", $0] } + [scene, strokes, "--out-dir", "out", "--name", "{stem}-{w}x{h}.png"], cwd: dir)
        }
        XCTAssertEqual(render(["64x64", "96x48", "120x90"]).status, 0)
        let record = CLI.run(["compare", "goldens", "out", "--update", "missing"], cwd: dir)
        XCTAssertEqual(record.status, 0, record.stderr)
        XCTAssertEqual(CLI.files(dir + "/goldens").count, 6)
        try #"{"version": 1, "rules": [{"match": "scene-*", "min_ssim": 0.99}, {"match": "strokes-*", "tolerance": 2}]}"#
            .write(toFile: dir + "/goldens/imgscale-goldens.json", atomically: true, encoding: .utf8)
        // Three outputs change: the scene's by a filter (SSIM falls), the strokes' by a pixel.
        XCTAssertEqual(CLI.run(["fill", "--size", "64x64", "--size", "96x48", "--filter", "nearest", scene, "--out-dir", "out",
                                "--name", "{stem}-{w}x{h}.png"], cwd: dir).status, 0)
        try python("""
            from PIL import Image
            im = Image.open('out/strokes-130x90-120x90.png'); v = im.getpixel((5, 5))
            im.putpixel((5, 5), tuple(255 - c for c in v) if isinstance(v, tuple) else 255 - v); im.save('out/strokes-130x90-120x90.png')
            """, in: dir)
        let check = CLI.run(["compare", "goldens", "out", "--metric", "ssim", "--html", "report", "--junit", "junit.xml"], cwd: dir)
        XCTAssertEqual(check.status, 1, check.stderr)
        XCTAssertTrue(check.stderr.contains("compared 6: 3 match, 3 differ"), check.stderr)
        let junit = try String(contentsOfFile: dir + "/junit.xml", encoding: .utf8)
        XCTAssertTrue(junit.contains("failures=\"3\""), junit)
        XCTAssertFalse(junit.contains("/../") || junit.contains("/./"), junit)
        let html = try String(contentsOfFile: dir + "/report/index.html", encoding: .utf8)
        XCTAssertTrue(html.contains("<span id=\"failed\">3</span> of 6 failed"), html)
        XCTAssertTrue(html.contains("decided by rule 1 (line 1, match &quot;scene-*&quot;)") || html.contains("decided by rule 1 (line 1, match \"scene-*\")"), html)
        let accept = CLI.run(["compare", "goldens", "out", "--update", "failed"], cwd: dir)
        XCTAssertEqual(accept.status, 0, accept.stderr)
        let green = CLI.run(["compare", "goldens", "out", "--metric", "ssim"], cwd: dir)
        XCTAssertEqual(green.status, 0, green.stderr)
        XCTAssertTrue(green.stderr.contains("compared 6: 6 match"), green.stderr)
    }

    /// Scans: a multi-page, a 16-bit, a CMYK and a 16-bit gray TIFF to JPEG thumbnails in
    /// one batch, each near Pillow's own conversion and resize of the same page.
    func testTIFFScansToJPEGThumbnails() throws {
        let tiff = try CLI.sharedDir("tiff")
        let dir = CLI.tempDir()
        let names = ["multipage.tiff", "tiff_16bit_RGB.tiff", "tiff_strip_cmyk_jpeg.tif", "16bit.cropped.tif"]
        let r = withinBudget(["fit", "--size", "48x48"] + names.map { tiff + "/" + $0 } + ["--format", "jpeg", "--out-dir", dir + "/out"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let page = CLI.run(["fit", "--size", "48x48", "--page", "1", tiff + "/multipage.tiff", "-o", dir + "/page2.jpg"])
        XCTAssertEqual(page.status, 0, page.stderr)
        let check = CLI.sh("""
            python3 - <<'EOF'
            import numpy as np
            from PIL import Image
            def rgb(im):
                if im.mode.startswith('I;16'):
                    return Image.fromarray((np.asarray(im).astype(np.uint32) >> 8).astype(np.uint8)).convert('RGB')
                return im.convert('RGB')
            def psnr(out, im):
                got = Image.open(out).convert('RGB')
                ref = rgb(im).resize(got.size, Image.BILINEAR)
                mse = ((np.asarray(got).astype(float) - np.asarray(ref).astype(float)) ** 2).mean()
                return 99 if mse == 0 else 10 * np.log10(255 ** 2 / mse)
            worst = 99
            for n in [\(names.map { "'\($0)'" }.joined(separator: ", "))]:
                worst = min(worst, psnr('out/' + n.rsplit('.', 1)[0] + '.jpg', Image.open('\(tiff)/' + n)))
            m = Image.open('\(tiff)/multipage.tiff'); m.seek(1)
            worst = min(worst, psnr('page2.jpg', m))
            print(round(worst, 1))
            EOF
            """, cwd: dir)
        XCTAssertEqual(check.status, 0, check.stderr)
        // JPEG at quality 85 of small scans: 28 dB and up; a swapped or inverted channel is under 15.
        XCTAssertGreaterThan(Double(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 25, check.stdout)
    }

    /// An animated GIF to animated WebP and GIF at two sizes: every frame kept, with the
    /// source's delays and loop count, as Pillow reads them.
    func testAnimatedGIFToAnimatedWebPAndGIF() throws {
        let gif = try CLI.sharedDir("formats") + "/gif-anim-3frames-160x120.gif"
        let dir = CLI.tempDir()
        let r = withinBudget(["fit", "--size", "80x", "--size", "40x", "--animated", "--format", "webp", "--format", "gif", gif,
                         "--out-dir", dir, "--name", "{stem}-{w}.{ext}"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let check = CLI.sh("""
            python3 - <<'EOF'
            from PIL import Image
            src = Image.open('\(gif)')
            delays = []
            for i in range(src.n_frames):
                src.seek(i); delays.append(src.info.get('duration'))
            for w in (80, 40):
                for ext in ('webp', 'gif'):
                    im = Image.open(f'gif-anim-3frames-160x120-{w}.{ext}')
                    assert im.size == (w, w * 3 // 4), im.size
                    assert im.n_frames == src.n_frames, (ext, im.n_frames)
                    got = []
                    for i in range(im.n_frames):
                        im.seek(i); im.convert('RGBA').load(); got.append(im.info.get('duration'))
                    assert got == delays, (ext, got, delays)
                    assert im.info.get('loop', 0) == src.info.get('loop', 0), ext
            print('ok')
            EOF
            """, cwd: dir)
        XCTAssertEqual(check.stdout, "ok\n", check.stderr)
    }

    /// A Makefile run with make -j2, each rule one imgscale call with --if-changed: after
    /// one source's pixels change, a rerun rewrites that source's outputs and no other.
    func testMakefileWithIfChangedRewritesOnlyWhatChanged() throws {
        let dir = CLI.tempDir()
        try FileManager.default.createDirectory(atPath: dir + "/src", withIntermediateDirectories: true)
        for (name, source) in [("a.png", "gradient-rgb-64x48.png"), ("b.png", "strokes-130x90.png"), ("c.jpg", "scene-640x427.jpg")] {
            try FileManager.default.copyItem(atPath: CLI.testImages + "/" + source, toPath: dir + "/src/" + name)
        }
        try """
            IMGSCALE ?= imgscale
            all: thumbs icons
            thumbs:
            \t$(IMGSCALE) fit --size 32x --size 64x --if-changed src/* --out-dir out/thumbs --name '{stem}-{w}.webp'
            icons:
            \t$(IMGSCALE) fill --size 16x16 --if-changed src/* --out-dir out/icons --name '{stem}.png'
            .PHONY: all thumbs icons

            """.write(toFile: dir + "/Makefile", atomically: true, encoding: .utf8)
        let make = "make -s -j2 IMGSCALE=\"$IMGSCALE\""
        XCTAssertEqual(CLI.sh(make, cwd: dir).status, 0)
        func stamps() -> [String: String] {
            var out: [String: String] = [:]
            for sub in ["thumbs", "icons"] {
                for f in CLI.files(dir + "/out/" + sub) where !f.hasPrefix(".") {
                    let a = try? FileManager.default.attributesOfItem(atPath: "\(dir)/out/\(sub)/\(f)")
                    out[sub + "/" + f] = "\((a?[.systemFileNumber] as? Int) ?? -1)"
                }
            }
            return out
        }
        let before = stamps()
        XCTAssertEqual(before.count, 9, "\(before)")
        // Touched alone, nothing is rewritten (its bytes are the same); changed, its outputs are.
        XCTAssertEqual(CLI.sh("touch src/a.png && \(make)", cwd: dir).status, 0)
        XCTAssertEqual(stamps(), before)
        try FileManager.default.removeItem(atPath: dir + "/src/b.png")
        try FileManager.default.copyItem(atPath: CLI.testImages + "/alpha-disc-100x100.png", toPath: dir + "/src/b.png")
        XCTAssertEqual(CLI.sh(make, cwd: dir).status, 0)
        let after = stamps()
        let changed = Set(after.keys.filter { after[$0] != before[$0] })
        XCTAssertEqual(changed, ["thumbs/b-32.webp", "thumbs/b-64.webp", "icons/b.png"])
        XCTAssertEqual(CLI.size(dir + "/out/icons/b.png"), "16x16")
    }

    /// 500 files of every kind in one folder at -j2 under --report: the good ones written,
    /// each bad one in one line, the report holding every output.
    func testFiveHundredMixedFilesAtJ2() throws {
        let formats = try CLI.sharedDir("formats")
        let dir = CLI.tempDir()
        let good = [CLI.testImages + "/scene-640x427.jpg", CLI.testImages + "/scene-640x427.png", CLI.testImages + "/gray16-33x17.png",
                    CLI.testImages + "/palette-trns-20x20.png", CLI.testImages + "/alpha-disc-100x100.png",
                    formats + "/webp-lossy-480x360.webp", formats + "/heic-480x360.heic", formats + "/avif-480x360.avif",
                    formats + "/gif-static-320x240.gif", formats + "/webp-exif-orient6-480x360.webp"]
        let bad = [formats + "/broken-truncated.webp", formats + "/broken-truncated.gif", formats + "/broken-truncated.heic"]
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        // Inputs at most 32 wide give one file for both sizes under --no-upscale.
        var expectedGood = 0, expectedBad = 0, narrow = 0
        for i in 0..<500 {
            let name = String(format: "in/f%03d", i)
            switch i % 25 {
            case 0: try "not an image\n".write(toFile: dir + "/\(name).jpg", atomically: true, encoding: .utf8); expectedBad += 1
            case 1, 2, 3:
                let src = bad[i % 3]
                try FileManager.default.copyItem(atPath: src, toPath: dir + "/\(name)." + (src as NSString).pathExtension); expectedBad += 1
            case 4:
                try #"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="40" height="30" fill="teal"/></svg>"#
                    .write(toFile: dir + "/\(name).svg", atomically: true, encoding: .utf8); expectedGood += 1
            case 5:
                // A narrow image: 8 pixels wide, never enlarged.
                try FileManager.default.copyItem(atPath: CLI.testImages + "/two-colour-8x8.png", toPath: dir + "/\(name).png"); expectedGood += 1
                narrow += 1
            default:
                let src = good[i % good.count]
                try FileManager.default.copyItem(atPath: src, toPath: dir + "/\(name)." + (src as NSString).pathExtension); expectedGood += 1
                if src.hasSuffix("palette-trns-20x20.png") { narrow += 1 }
            }
        }
        let inputs = CLI.files(dir + "/in").map { "in/" + $0 }
        let r = withinBudget(["fit", "--size", "64x", "--size", "32x", "--no-upscale", "-j2"] + inputs
                             + ["--out-dir", "out", "--name", "{stem}-{width}w.webp", "--report", "report.jsonl"], cwd: dir)
        XCTAssertEqual(r.status, 1, String(r.stderr.suffix(2000)))
        let lines = r.stderr.split(separator: "\n").filter { $0.hasPrefix("imgscale: in/") }
        // Each bad input once: one line, naming it.
        XCTAssertEqual(lines.count, expectedBad, lines.prefix(5).joined(separator: "\n"))
        XCTAssertEqual(Set(lines.map { $0.split(separator: ":")[1] }).count, expectedBad)
        let report = try String(contentsOfFile: dir + "/report.jsonl", encoding: .utf8).split(separator: "\n")
        // Two outputs an input, but a narrow one gives one file for both.
        XCTAssertEqual(report.count, 2 * 500 - narrow, "every output in the report")
        XCTAssertEqual(report.filter { $0.contains("\"status\":\"failed\"") }.count, 2 * expectedBad)
        XCTAssertEqual(report.filter { $0.contains("give the same") }.count, narrow)
        XCTAssertEqual(CLI.files(dir + "/out").count, 2 * expectedGood - narrow)
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
