import XCTest
import TestReferences
import Foundation

/// `--depth 16|auto` through the CLI, read back by netpbm's `pngtopam` (not by
/// imgscale): PngSuite's 16-bit files keep their samples, as its reference decodes give
/// them; resampling a real 16-bit photo and crafted 16-bit alpha images stays within a
/// level of the same filter in double precision (numpy); crop, pad and flatten keep 16
/// bits; formats that cannot hold 16 bits are usage errors; hostile 16-bit files fail
/// alone, within the budget.
final class SixteenBitTests: XCTestCase {
    /// Python that reads any PNG through `pngtopam -alphapam` into an HxWx4 (or x2) array.
    private static let reader = """
    import itertools, json, os, subprocess, sys
    import numpy as np
    B = os.environ['IMGSCALE']
    def pam(path):
        raw = subprocess.run(['pngtopam', '-alphapam', path], capture_output=True, check=True).stdout
        end = raw.index(b'ENDHDR\\n') + 7
        head = dict(l.split(' ', 1) for l in raw[:end].decode().splitlines()[1:-1] if ' ' in l)
        w, h, d, m = int(head['WIDTH']), int(head['HEIGHT']), int(head['DEPTH']), int(head['MAXVAL'])
        a = np.frombuffer(raw[end:], dtype='>u2' if m > 255 else 'u1').reshape(h, w, d).astype(np.float64)
        return a, m
    def rgba(a):
        return a if a.shape[2] == 4 else np.concatenate([a[:, :, :1]] * 3 + [a[:, :, 1:]], axis=2)
    def run(*args):
        r = subprocess.run([B, *args], capture_output=True, text=True)
        assert r.returncode == 0, (args, r.stderr)
        return r

    """

    func testPngSuiteSixteenBitFilesKeepEverySample() throws {
        let png = try CLI.sharedDir("pngsuite/png"), json = try CLI.sharedDir("pngsuite/json")
        let dir = CLI.tempDir()
        try python(Self.reader + """
        names = sorted(n for n in os.listdir('\(png)') if n.endswith('16.png') and not n.startswith('x'))
        assert len(names) >= 30, names
        for n in names:
            ref = np.array(json.load(open(os.path.join('\(json)', n[:-4] + '.json'))), dtype=np.float64)
            for depth in ['16', 'auto']:
                run('convert', '--depth', depth, os.path.join('\(png)', n), '-o', f'{depth}-{n}')
                got, maxval = pam(f'{depth}-{n}')
                assert maxval == 65535, (n, depth, maxval)
                got = rgba(got).reshape(-1)
                assert got.shape == ref.shape and (got == ref).all(), (n, depth, np.abs(got - ref).max())
            # The default stays 8-bit.
            run('convert', os.path.join('\(png)', n), '-o', f'8-{n}')
            assert pam(f'8-{n}')[1] == 255, n
        print(len(names), 'files')
        """, in: dir)
    }

    /// Every filter, on the real 16-bit photo and on crafted 16-bit gray+alpha and RGBA
    /// images with hard edges (where bicubic and lanczos overshoot), against numpy:
    /// Pillow's windows and weights in double, alpha premultiplied, one rounding at the end.
    func testResamplingIsWithinOneLevelOfDoublePrecision() throws {
        let photo = try CLI.sharedDir("jpeg") + "/monkey16.png"
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/pamtopng") else { throw missingReference("netpbm is not installed") }
        let dir = CLI.tempDir()
        try python(Self.reader + """
        import math
        def kernel(name):
            def sinc(x):
                return 1.0 if x == 0 else math.sin(math.pi * x) / (math.pi * x)
            if name == 'box': return 0.5, lambda x: 1.0 if -0.5 < x <= 0.5 else 0.0
            if name == 'bilinear': return 1.0, lambda x: max(0.0, 1 - abs(x))
            if name == 'hamming': return 1.0, lambda x: sinc(x) * (0.54 + 0.46 * math.cos(math.pi * x)) if abs(x) < 1 else 0.0
            if name == 'bicubic':
                def cubic(x, a=-0.5):
                    x = abs(x)
                    return ((a + 2) * x - (a + 3)) * x * x + 1 if x < 1 else ((((x - 5) * x + 8) * x - 4) * a if x < 2 else 0.0)
                return 2.0, cubic
            return 3.0, lambda x: sinc(x) * sinc(x / 3) if -3 <= x < 3 else 0.0
        def weights(n, start, length, out, name):
            support, f = kernel(name)
            scale = length / out; fs = max(scale, 1.0); support *= fs
            W = np.zeros((out, n))
            for i in range(out):
                c = start + (i + 0.5) * scale
                lo, hi = max(int(c - support + 0.5), 0), min(int(c + support + 0.5), n)
                ws = [f((k - c + 0.5) / fs) for k in range(lo, hi)]
                t = sum(ws)
                W[i, lo:hi] = [w / t if t else w for w in ws]
            return W
        def reference(a, box, size, name, alpha):
            x, y, w, h = box
            a = a.copy()
            if alpha:
                a[:, :, :-1] *= a[:, :, -1:] / 65535
            H = weights(a.shape[1], x, w, size[0], name); V = weights(a.shape[0], y, h, size[1], name)
            r = np.einsum('ij,jkc->ikc', V, np.einsum('ij,kjc->kic', H, a))
            if alpha:
                al = r[:, :, -1:]
                r[:, :, :-1] = np.where(al > 0, r[:, :, :-1] * 65535 / np.where(al > 0, al, 1), 0)
            return np.clip(np.round(r), 0, 65535)
        def pam_out(path, a, tupltype):
            h, w, d = a.shape
            open(path + '.pam', 'wb').write(f'P7\\nWIDTH {w}\\nHEIGHT {h}\\nDEPTH {d}\\nMAXVAL 65535\\nTUPLTYPE {tupltype}\\nENDHDR\\n'.encode()
                                            + a.astype('>u2').tobytes())
            subprocess.run(f'pamtopng {path}.pam > {path}', shell=True, check=True)
        rng = np.random.default_rng(5)
        yy, xx = np.mgrid[0:45, 0:61]
        edges = np.where((xx // 5 + yy // 7) % 2 == 0, 65535.0, 0.0)
        alpha = 256 + (xx * 65279 // 60).astype(np.float64)
        rgba_src = np.stack([edges, xx * 65535 / 60, rng.integers(0, 65536, xx.shape), alpha], axis=2).astype(np.float64)
        pam_out('rgba16.png', rgba_src, 'RGB_ALPHA')
        pam_out('ga16.png', np.stack([edges, alpha], axis=2), 'GRAYSCALE_ALPHA')
        worst = 0
        for src in ['\(photo)', 'rgba16.png', 'ga16.png']:
            a, _ = pam(src)
            has_alpha = src != '\(photo)'
            if not has_alpha:
                a = a[:, :, :3]
            h, w = a.shape[:2]
            for name, size in sweep_sample(itertools.product(['box', 'bilinear', 'hamming', 'bicubic', 'lanczos'], [(23, 17), (w * 2 + 1, h + 3)]), 3):
                run('fit', '--size', f'{size[0]}x{size[1]}', '--depth', '16', '--filter', name, src, '-o', 'out.png')
                got, maxval = pam('out.png')
                assert maxval == 65535
                got = got if has_alpha else got[:, :, :3]
                want = reference(a, (0, 0, w, h), (got.shape[1], got.shape[0]), name, has_alpha)
                diff = np.abs(got - want).max()
                worst = max(worst, diff)
                assert diff <= 1, (src, name, size, diff)
        print('worst', worst)
        """, in: dir)
    }

    /// crop cuts the 16-bit samples exactly; fit --pad transparent pads with alpha 0 around
    /// the fitted image; --flatten composites at 16 bits; gray stays gray.
    func testCropPadAndFlattenKeepSixteenBits() throws {
        let png = try CLI.sharedDir("pngsuite/png")
        let dir = CLI.tempDir()
        try python(Self.reader + """
        src = '\(png)/basn6a16.png'
        a, _ = pam(src)
        run('crop', '--rect', '3,5,20,11', '--depth', '16', src, '-o', 'crop.png')
        c, m = pam('crop.png')
        assert m == 65535 and (c == a[5:16, 3:23]).all()
        run('fit', '--size', '16x16', '--depth', '16', src, '-o', 'fit.png')
        run('fit', '--size', '16x24', '--pad', '--background', 'transparent', '--depth', '16', src, '-o', 'pad.png')
        f, _ = pam('fit.png'); p, _ = pam('pad.png')
        assert p.shape == (24, 16, 4) and (p[4:20] == f).all() and (p[:4, :, 3] == 0).all() and (p[20:, :, 3] == 0).all()
        run('convert', '--depth', '16', '--flatten', '--background', '336699', src, '-o', 'flat.png')
        fl, _ = pam('flat.png')
        bg = np.array([0x33, 0x66, 0x99]) * 257.0
        al = a[:, :, 3:]
        want = np.floor((a[:, :, :3] * al + bg * (65535 - al) + 32767) / 65535)
        assert (fl[:, :, :3] == want).all() and (fl[:, :, 3] == 65535).all()
        gray = '\(png)/basn0g16.png'
        run('fill', '--size', '9x9', '--depth', '16', gray, '-o', 'gray.png')
        assert subprocess.run(['file', 'gray.png'], capture_output=True, text=True).stdout.count('16-bit grayscale') == 1
        """, in: dir)
    }

    func testFormatsThatCannotHoldSixteenBitsAreUsageErrors() throws {
        let dir = CLI.tempDir()
        let png = CLI.testImages + "/gray16-33x17.png"
        for (args, message) in [(["-o", dir + "/x.jpg"], "JPEG holds 8-bit samples only"),
                                (["--format", "webp", "--out-dir", dir], "WebP holds 8-bit samples only"),
                                (["--palette", "-o", dir + "/x.png"], "--depth 16 and --palette cannot be combined")] {
            let r = CLI.run(["fill", "--size", "8x8", "--depth", "16", png] + args)
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains(message), r.stderr)
        }
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", "--depth", "12", png, "-o", dir + "/x.png"]).status, 2)
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", "--depth", "16", "--depth", "auto", png, "-o", dir + "/x.png"]).status, 2)
        // A JPEG input kept in its own format is known from its name before it is read.
        let jpeg = CLI.testImages + "/gradient-rgb-64x48.jpg"
        let own = CLI.run(["fill", "--size", "8x8", "--depth", "16", jpeg, "--out-dir", dir + "/own"])
        XCTAssertEqual(own.status, 2, own.stderr)
        XCTAssertTrue(own.stderr.contains("JPEG holds 8-bit samples only"), own.stderr)
        // From stdin, it is known only once read: that input fails, saying why, and
        // nothing is written.
        let piped = CLI.sh("\"$IMGSCALE\" fill --size 8x8 --depth 16 - -o - < '\(jpeg)' > '\(dir)/piped'")
        XCTAssertEqual(piped.status, 1, piped.stderr)
        XCTAssertTrue(piped.stderr.contains("JPEG holds 8-bit samples only"), piped.stderr)
        XCTAssertEqual(CLI.bytes(dir + "/piped")?.count, 0)
        // auto keeps 8 bits where the format holds no more, and for an 8-bit input.
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", "--depth", "auto", png, "-o", dir + "/a.jpg"]).status, 0)
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", "--depth", "auto", jpeg, "-o", dir + "/a8.png"]).status, 0)
        XCTAssertEqual(CLI.sh("file '\(dir)/a8.png'").stdout.contains("8-bit"), true)
    }

    /// `-v` says when 16-bit samples became 8-bit, and not when they were kept.
    func testVerboseSaysWhenSixteenBitsBecomeEight() {
        let dir = CLI.tempDir()
        let png = CLI.testImages + "/gray16-33x17.png"
        let narrowed = CLI.run(["fit", "--size", "8x8", "-v", png, "-o", dir + "/8.png"])
        XCTAssertTrue(narrowed.stderr.contains("its 16-bit samples written as 8-bit (--depth 16 or auto keeps them)"), narrowed.stderr)
        let kept = CLI.run(["fit", "--size", "8x8", "-v", "--depth", "16", png, "-o", dir + "/16.png"])
        XCTAssertEqual(kept.status, 0, kept.stderr)
        XCTAssertFalse(kept.stderr.contains("written as 8-bit"), kept.stderr)
    }

    /// The same bytes at any thread count and on every run; an 8-bit input widened is its
    /// 8-bit samples times 257 under convert.
    func testDeterministicAndExactlyWidened() throws {
        let dir = CLI.tempDir()
        let png = CLI.testImages + "/gray16-33x17.png"
        for j in ["1", "2"] {
            XCTAssertEqual(CLI.run(["fill", "--size", "20x9", "--filter", "lanczos", "--depth", "16", "-j", j, png,
                                    "-o", dir + "/j\(j).png"]).status, 0)
        }
        XCTAssertEqual(CLI.bytes(dir + "/j1.png"), CLI.bytes(dir + "/j2.png"))
        try python(Self.reader + """
        run('convert', '--depth', '16', '\(CLI.testImages)/gradient-rgb-64x48.png', '-o', 'wide.png')
        run('convert', '\(CLI.testImages)/gradient-rgb-64x48.png', '-o', 'narrow.png')
        w, m16 = pam('wide.png'); n, m8 = pam('narrow.png')
        assert (m16, m8) == (65535, 255) and (w == n * 257).all()
        """, in: dir)
    }

    /// A 16-bit header declaring 40000x40000 pixels is refused before any pixel memory
    /// (well within a second), a truncated 16-bit file fails with libpng's words, and with
    /// --fail-on none what was decoded is written with a warning.
    func testHostileSixteenBitFilesFailAlone() throws {
        let dir = CLI.tempDir()
        try python("""
        import struct, zlib
        def chunk(t, b): return struct.pack('>I', len(b)) + t + b + struct.pack('>I', zlib.crc32(t + b) & 0xffffffff)
        sig = b'\\x89PNG\\r\\n\\x1a\\n'
        def png(w, h, rows):
            return sig + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 16, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')
        open('huge.png', 'wb').write(png(40000, 40000, b'\\0' * 100))
        good = png(64, 64, b''.join(b'\\0' + bytes(range(256)) * 1 + bytes(128) for _ in range(64)))
        open('good.png', 'wb').write(good)
        full = png(64, 64, b''.join(b'\\0' + bytes((x * 7 + y) % 256 for x in range(384)) for y in range(64)))
        open('cut.png', 'wb').write(full[:len(full) * 2 // 3])
        """, in: dir)
        let start = Date()
        let huge = CLI.run(["fill", "--size", "64x64", "--depth", "16", "--max-pixels", "0", dir + "/huge.png", dir + "/good.png",
                            "--out-dir", dir + "/out"])
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        XCTAssertEqual(huge.status, 1, huge.stderr)
        XCTAssertTrue(huge.stderr.contains("huge.png") && huge.stderr.contains("memory"), huge.stderr)
        XCTAssertEqual(CLI.files(dir + "/out"), ["good.png"])
        let cut = CLI.run(["fill", "--size", "16x16", "--depth", "16", dir + "/cut.png", "-o", dir + "/cut-out.png"])
        XCTAssertEqual(cut.status, 1, cut.stderr)
        XCTAssertTrue(cut.stderr.contains("cut.png"), cut.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/cut-out.png"))
        let tolerated = CLI.run(["fill", "--size", "16x16", "--depth", "16", "--fail-on", "none", dir + "/cut.png", "-o", dir + "/cut-out.png"])
        XCTAssertEqual(tolerated.status, 0, tolerated.stderr)
        XCTAssertTrue(tolerated.stderr.contains("damaged PNG decoded anyway"), tolerated.stderr)
    }
}
