import XCTest
import TestReferences
import Foundation

/// TIFF through the built imgscale: Pillow's 114 test TIFFs decode as Pillow decodes
/// them (16-bit samples as numpy rounds them), a matrix of files the test writes itself
/// (every layout and compression `tiffcp` makes from a few sources) equals the source
/// or, for the lossy ones, Pillow's decode of `tiffcp -c none` of the same file; pages
/// are chosen with --page; hostile headers are refused from the header, quickly.
final class TIFFTests: XCTestCase {
    static let corpus = CLI.testdata + "/tiff"

    /// Python that writes a TIFF from tags and bytes, for the sources and the hostile
    /// files: `tiff(tags, data, order, next_ifd)`, where a tag's values are (type, list)
    /// and 'DATA' stands for the offset of `data`.
    static let writer = """
        import struct, zlib
        def tiff(tags, data=b'', order='<', next_ifd=0, big_header_offset=None):
            pad = len(data) & 1
            ifd_at = 8 + len(data) + pad
            entries = sorted(tags.items())
            extra_at = ifd_at + 2 + 12 * len(entries) + 4
            body, extra = struct.pack(order + 'H', len(entries)), b''
            for tag, (typ, vals) in entries:
                vals = [8 if v == 'DATA' else v for v in vals]
                raw = struct.pack(order + {3: 'H', 4: 'I'}[typ] * len(vals), *vals)
                if len(raw) <= 4:
                    body += struct.pack(order + 'HHI', tag, typ, len(vals)) + raw.ljust(4, b'\\0')
                else:
                    body += struct.pack(order + 'HHII', tag, typ, len(vals), extra_at + len(extra))
                    extra += raw
            body += struct.pack(order + 'I', ifd_at if next_ifd == 'SELF' else next_ifd)
            head = (b'II*\\0' if order == '<' else b'MM\\0*') + struct.pack(order + 'I', ifd_at)
            return head + data + b'\\0' * pad + body + extra
        def plain(w, h, spp, bps, photometric, data, order='<', extras=None, compression=1, rows=None, more=None):
            tags = {256: (4, [w]), 257: (4, [h]), 258: (3, [bps] * spp), 259: (3, [compression]), 262: (3, [photometric]),
                    273: (4, ['DATA']), 277: (3, [spp]), 278: (4, [rows or h]), 279: (4, [len(data)]), 284: (3, [1])}
            if extras is not None: tags[338] = (3, extras)
            tags.update(more or {})
            return tiff(tags, data, order)

        """

    func testPillowsTestImages() throws {
        guard FileManager.default.fileExists(atPath: Self.corpus) else {
            throw missingReference("\(Self.corpus) is missing; the matrix and hostile files below still ran")
        }
        let dir = CLI.tempDir()
        try python("""
            import os, subprocess, sys
            import numpy as np, tifffile
            from PIL import Image
            corpus, exe = '\(Self.corpus)', os.environ['IMGSCALE']
            # What imgscale refuses that Pillow reads, and the words it says why in.
            refused = {'10ct_32bit_128.tiff': 'floating-point', '12bit.cropped.tif': '12-bit',
                       '16_bit_binary_pgm.tiff': 'signed', '16bit.s.tif': 'signed', '8bit.s.tif': 'signed',
                       'separate_planar_extra_samples.tiff': 'signed', 'hopper.Lab.tif': 'CIE L*a*b*',
                       'lab.tif': 'CIE L*a*b*', 'lab-green.tif': 'CIE L*a*b*', 'lab-red.tif': 'CIE L*a*b*'}
            counts, bad = {}, []
            sanitized = os.environ.get('IMGSCALE_SANITIZED') == '1'
            names = sorted(n for n in os.listdir(corpus) if n.lower().endswith(('.tif', '.tiff')))
            if sanitized:
                # Under the sanitizers every file is decoded for its memory safety and each
                # refusal checked, in one batch (a sanitized process costs a tenth of a
                # second to start, 114 of them most of this class's time); the plain run
                # below compares the pixels with Pillow's, a process a file.
                r = subprocess.run([exe, 'convert', '--format', 'png', '--name', '{name}.png', '--out-dir', '.', '--report', 'report.jsonl']
                                   + [os.path.join(corpus, n) for n in names], capture_output=True, text=True, timeout=600)
                if r.returncode not in (0, 1): bad.append(('the batch', r.returncode, r.stderr[-2000:]))
                lines = [l for l in r.stderr.strip().split('\\n') if ': warning: ' not in l]
                import json
                for entry in map(json.loads, open('report.jsonl')):
                    name = os.path.basename(entry['input'])
                    kind = 'decoded' if entry['status'] == 'ok' else 'refused'
                    counts[kind] = counts.get(kind, 0) + 1
                    if kind == 'refused':
                        said = [l for l in lines if l.startswith('imgscale: ' + entry['input'] + ': ')]
                        if len(said) != 1 or os.path.exists(name + '.png'): bad.append((name, 'not one line', said))
                        if name in refused and refused[name] not in entry['error']: bad.append((name, entry['error']))
                names = []
            for name in names:
                path, out = os.path.join(corpus, name), name + '.png'
                r = subprocess.run([exe, 'convert', path, '-o', out], capture_output=True, text=True, timeout=60)
                try:
                    im = Image.open(path)
                    im.load()
                except Exception:
                    im = None
                lines = r.stderr.strip().split('\\n')
                if r.returncode != 0:
                    kind = 'refused by both' if im is None else 'refused'
                    counts[kind] = counts.get(kind, 0) + 1
                    if r.returncode != 1 or len(lines) != 1 or os.path.exists(out): bad.append((name, 'not one line and status 1', r.stderr))
                    if im is not None and refused.get(name, '?') not in r.stderr: bad.append((name, 'refused', r.stderr))
                    continue
                if name in refused: bad.append((name, 'decoded, expected refused', r.stderr))
                ours = np.asarray(Image.open(out).convert('RGBA')).astype(np.int64)
                if im is None:
                    # Pillow's libtiff was built without WebP.
                    counts['decoded by imgscale alone'] = counts.get('decoded by imgscale alone', 0) + 1
                    if name != 'hopper_webp.tif': bad.append((name, 'Pillow cannot read it', ''))
                    continue
                tolerance = 0
                if im.mode.startswith('I;16'):
                    g = (np.asarray(im).astype(np.int64) * 255 + 32767) // 65535
                    ref = np.stack([g, g, g, np.full_like(g, 255)], axis=2)
                elif im.tag_v2.get(258, (8,))[0] == 16 and im.mode in ('RGB', 'RGBA'):
                    # Pillow keeps a 16-bit sample's high byte and unpremultiplies at 8 bits;
                    # imgscale rounds and unpremultiplies at 16 bits: numpy's double, from the
                    # samples tiffcp stores uncompressed and interleaved.
                    # samples tifffile decodes without libtiff (tiffcp cannot interleave
                    # 16-bit planes); separate planes come first in its shape.
                    t = im.tag_v2
                    a = tifffile.imread(path).astype(np.float64)
                    if t.get(284, 1) == 2: a = a.transpose(1, 2, 0)
                    if a.shape[2] == 4 and t.get(338) == (1,):
                        alpha = a[..., 3:]
                        a = np.concatenate([np.where(alpha > 0, np.minimum(65535, a[..., :3] * 65535 / np.maximum(alpha, 1)), 0), alpha], axis=2)
                    if a.shape[2] == 3: a = np.concatenate([a, np.full(a.shape[:2] + (1,), 65535.0)], axis=2)
                    ref, tolerance = a * 255 / 65535, 1
                else:
                    ref = np.asarray(im.convert('RGBA')).astype(np.int64)
                if ours.shape != ref.shape:
                    bad.append((name, 'shape', ours.shape, ref.shape))
                    continue
                d = float(np.abs(ours - ref).max())
                counts['equal' if d == 0 else 'within 1'] = counts.get('equal' if d == 0 else 'within 1', 0) + 1
                if d > tolerance: bad.append((name, 'differs by', d))
            print(counts)
            assert not bad, '\\n'.join(map(str, bad))
            # Old-style JPEG, read through libtiff's RGBA interface as Pillow reads it.
            for name in ('old-style-jpeg-compression.tif', 'old-style-jpeg-compression-no-samplesperpixel.tif'):
                assert os.path.exists(name + '.png'), name
            if sanitized:
                assert counts == {'decoded': 87, 'refused': 27}, counts
            else:
                assert counts.get('equal', 0) >= 79 and counts.get('refused', 0) == len(refused), counts
            """, in: dir)
    }

    /// Sources written here (gray 1/2/4/8/16-bit, min-is-white, palette, RGB, RGBA
    /// straight and premultiplied, 16-bit RGB(A), CMYK), each rewritten by tiffcp into
    /// every compression, strips, tiles, separate planes and big-endian order.
    func testEveryLayoutAndCompressionTiffcpWrites() throws {
        let dir = CLI.tempDir()
        try python(Self.writer + """
            import os, subprocess, itertools
            import numpy as np, tifffile
            from PIL import Image
            exe = os.environ['IMGSCALE']
            W, H = 53, 37
            y, x = np.mgrid[0:H, 0:W]
            r = (x * 255 // (W - 1)).astype(np.uint8); g = (y * 255 // (H - 1)).astype(np.uint8); b = ((x * y) % 256).astype(np.uint8)
            a = ((x + 2 * y) * 255 // (W + 2 * H - 3)).astype(np.uint8)
            def expect16(v): return ((v.astype(np.int64) * 255 + 32767) // 65535)
            sources = {}   # name -> (tiff bytes, expected RGBA or None for Pillow's, 8-bit contiguous samples for JPEG)
            def rgba(*c):
                c = [np.asarray(v, dtype=np.int64) for v in c]
                if len(c) == 1: c = [c[0]] * 3
                if len(c) == 2: c = [c[0]] * 3 + [c[1]]
                if len(c) == 3: c = c + [np.full((H, W), 255)]
                return np.stack(c, axis=2)
            sources['rgb'] = (plain(W, H, 3, 8, 2, np.stack([r, g, b], 2).tobytes()), rgba(r, g, b))
            sources['rgba'] = (plain(W, H, 4, 8, 2, np.stack([r, g, b, a], 2).tobytes(), extras=[2]), rgba(r, g, b, a))
            # Premultiplied 8-bit: stored colour c*a/255 comes back as trunc(stored*255/a).
            pm = [(c.astype(np.int64) * a // 255) for c in (r, g, b)]
            back = [np.where(a > 0, np.minimum(255, s * 255 // np.maximum(a, 1)), 0) for s in pm]
            sources['rgba-premultiplied'] = (plain(W, H, 4, 8, 2, np.stack(pm + [a], 2).astype(np.uint8).tobytes(), extras=[1]), rgba(*back, a))
            sources['gray'] = (plain(W, H, 1, 8, 1, r.tobytes()), rgba(r))
            sources['gray-alpha'] = (plain(W, H, 2, 8, 1, np.stack([g, a], 2).tobytes(), extras=[2]), rgba(g, a))
            sources['min-is-white'] = (plain(W, H, 1, 8, 0, r.tobytes()), rgba(255 - r.astype(np.int64)))
            for bits in (1, 2, 4):
                v = (x * ((1 << bits) - 1) // (W - 1)).astype(np.uint8)
                packed = bytearray()
                for row in v:
                    acc, n = 0, 0
                    for s in row:
                        acc = acc << bits | int(s); n += bits
                        if n == 8: packed.append(acc); acc, n = 0, 0
                    if n: packed.append(acc << (8 - n))
                level = v.astype(np.int64) * 255 // ((1 << bits) - 1)
                sources[f'gray{bits}'] = (plain(W, H, 1, bits, 1, bytes(packed)), rgba(level))
            g16 = (x * 65535 // (W - 1) ^ y * 37).astype('<u2')
            sources['gray16'] = (plain(W, H, 1, 16, 1, g16.tobytes()), rgba(expect16(g16)))
            c16 = np.stack([g16, (y * 1771).astype('<u2'), (x * y * 31).astype('<u2')], 2).astype('<u2')
            sources['rgb16-be'] = (plain(W, H, 3, 16, 2, c16.astype('>u2').tobytes(), order='>'), rgba(*[expect16(c16[..., k]) for k in range(3)]))
            a16 = (a.astype(np.int64) * 257 + 3).astype('<u2')
            c16a = np.concatenate([c16, a16[..., None]], 2).astype('<u2')
            sources['rgba16'] = (plain(W, H, 4, 16, 2, c16a.tobytes(), extras=[2]), rgba(*[expect16(c16a[..., k]) for k in range(4)]))
            palette = [(i * 7) % 256 for i in range(256)] + [(i * 13) % 256 for i in range(256)] + [255 - i for i in range(256)]
            idx = ((x + y) % 256).astype(np.uint8)
            pal16 = [v * 257 for v in palette]
            sources['palette'] = (plain(W, H, 1, 8, 3, idx.tobytes(), more={320: (3, pal16)}),
                                  rgba(np.take(palette[:256], idx), np.take(palette[256:512], idx), np.take(palette[512:], idx)))
            cmyk = np.stack([r, g, b, a], 2)
            sources['cmyk'] = (plain(W, H, 4, 8, 5, cmyk.tobytes()), None)
            for name, (data, _) in sources.items(): open(name + '.tif', 'wb').write(data)
            # Each source through each compression and layout; what does not apply is
            # refused by tiffcp (JPEG of 16 bits, WebP of gray), and that is fine.
            compressions = ['none', 'lzw', 'zip', 'packbits', 'zstd', 'lzma', 'lerc', 'webp:p100', 'jpeg:90', 'zip:2', 'lzw:2']
            layouts = {'strips': ['-r', '16'], 'tiles': ['-t', '-w', '16', '-l', '32'], 'planes': ['-p', 'separate', '-r', '16'],
                       'tiled-planes': ['-p', 'separate', '-t', '-w', '32', '-l', '16'], 'big-endian': ['-B', '-r', '32'], 'bigtiff': ['-8', '-r', '32']}
            made, unreadable = [], []
            for name, c, (lname, largs) in itertools.product(sources, compressions, layouts.items()):
                out = f'{name}-{c.replace(":", "_")}-{lname}.tif'
                if subprocess.run(['tiffcp', '-c', c] + largs + [name + '.tif', out], capture_output=True).returncode == 0:
                    # tiffcp writes WebP in separate planes with a warning, and libtiff
                    # cannot read it back: imgscale must refuse those with one line.
                    back = subprocess.run(['tiffcp', '-c', 'none', out, 'back.tif'], capture_output=True)
                    (made if back.returncode == 0 else unreadable).append((name, c, out))
            assert len(made) > 300 and len(unreadable) < 10, (len(made), unreadable)
            for _, _, out in unreadable:
                r = subprocess.run([exe, 'convert', out, '-o', 'x.png'], capture_output=True, text=True)
                assert r.returncode == 1 and r.stderr.count('\\n') == 1 and not os.path.exists('x.png'), (out, r.stderr)
            r = subprocess.run([exe, 'convert', '--out-dir', 'out', '--format', 'png', '-q'] + [m[2] for m in made], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            seen, bad = set(), []
            # Under the sanitizers every file is decoded above; a quarter are compared.
            for name, c, out in sweep_sample(made, 4):
                ours = np.asarray(Image.open('out/' + out[:-4] + '.png').convert('RGBA')).astype(np.int64)
                expected = sources[name][1]
                if c.startswith(('jpeg', 'webp')) or expected is None:
                    # Lossy (libtiff's WebP at p100 too, under low alpha): Pillow's decode
                    # of what libtiff stores once uncompressed.
                    if subprocess.run(['tiffcp', '-c', 'none', '-p', 'contig', out, 'ref.tif'], capture_output=True).returncode == 0:
                        expected = np.asarray(Image.open('ref.tif').convert('RGBA')).astype(np.int64)
                    else:
                        # tiffcp cannot join the planes of some (gray+alpha, CMYK), nor
                        # Pillow read them apart: tifffile reads the uncompressed planes,
                        # and Pillow converts them as it would have.
                        subprocess.run(['tiffcp', '-c', 'none', out, 'ref.tif'], check=True, capture_output=True)
                        px = tifffile.imread('ref.tif').transpose(1, 2, 0).astype(np.uint8)
                        mode = {2: 'LA', 3: 'RGB', 4: 'CMYK' if name == 'cmyk' else 'RGBA'}[px.shape[2]]
                        expected = np.asarray(Image.frombytes(mode, (W, H), px.tobytes()).convert('RGBA')).astype(np.int64)
                d = int(np.abs(ours - expected).max())
                if d: bad.append((out, d))
                seen.add(c.split(':')[0])
            assert not bad, bad
            assert seen == {'none', 'lzw', 'zip', 'packbits', 'zstd', 'lzma', 'lerc', 'webp', 'jpeg'} or os.environ.get('IMGSCALE_SANITIZED'), seen
            # 16 bits kept where the output holds them (--depth auto into PNG), sample for
            # sample, in every lossless compression and layout.
            import imagecodecs
            exact16 = {'gray16': g16, 'rgb16-be': c16, 'rgba16': c16a}
            wide = [m for m in made if m[0] in exact16 and not m[1].startswith(('jpeg', 'webp'))]
            r = subprocess.run([exe, 'convert', '--out-dir', 'out16', '--format', 'png', '--depth', 'auto', '-q'] + [m[2] for m in wide],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            for name, c, out in wide:
                ours = imagecodecs.png_decode(open('out16/' + out[:-4] + '.png', 'rb').read())
                assert ours.dtype == np.uint16 and np.array_equal(ours, exact16[name].astype(np.uint16)), (out, ours.dtype)
            assert len(wide) > 40, len(wide)
            print(len(made), 'files,', len(wide), 'kept at 16 bits')
            """, in: dir)
    }

    /// Only the strips or tiles a fill or crop reads are decoded, in two halves at once on
    /// two cores: the bytes equal the same operation on the whole page's PNG, at -j1 too.
    func testRegionsAndHalvesEqualAWholeDecode() throws {
        let dir = CLI.tempDir()
        try python("""
            import subprocess
            import numpy as np
            from PIL import Image
            W, H = 701, 523
            y, x = np.mgrid[0:H, 0:W]
            rgb = np.stack([(x * 7) % 256, (y * 5) % 256, (x * y) % 253], 2).astype(np.uint8)
            Image.fromarray(rgb).save('rgb.tif')
            Image.fromarray(np.concatenate([rgb, ((x + y) % 256).astype(np.uint8)[..., None]], 2)).save('rgba.tif')
            Image.fromarray(((x ^ y) & 255).astype(np.uint8)).convert('1').save('bits.tif')
            for name, args in {'strips': ['-r', '7'], 'tiles': ['-t', '-w', '64', '-l', '48'], 'planes': ['-p', 'separate', '-r', '16']}.items():
                for src in ('rgb', 'rgba'):
                    subprocess.run(['tiffcp', '-c', 'lzw'] + args + [src + '.tif', f'{src}-{name}.tif'], check=True)
            subprocess.run(['tiffcp', '-c', 'g4', 'bits.tif', 'bits-g4.tif'], check=True)
            """, in: dir)
        for name in ["rgb-strips", "rgb-tiles", "rgb-planes", "rgba-strips", "rgba-tiles", "rgba-planes", "bits-g4"] {
            let tif = dir + "/" + name + ".tif", whole = dir + "/" + name + "-whole.png"
            XCTAssertEqual(CLI.run(["convert", tif, "-o", whole]).status, 0)
            // Under a sanitizer every other geometry: each layout's split decode still runs
            // (TSan's point here, with ASan's), the plain run checks every geometry's bytes.
            for op in Sweep.sample([["fill", "--size", "97x211"], ["fill", "--size", "300x40", "--gravity", "south"], ["fit", "--size", "350x"],
                                    ["crop", "--rect", "123,77,301,299"]], every: 2) {
                var outputs: [String] = []
                for (k, (input, jobs)) in [(tif, "2"), (tif, "1"), (whole, "1")].enumerated() {
                    let out = dir + "/\(name)-\(k).png"
                    let r = CLI.run(op + ["-j", jobs, input, "-o", out])
                    XCTAssertEqual(r.status, 0, r.stderr)
                    outputs.append(out)
                }
                let bytes = try outputs.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
                XCTAssertEqual(bytes[0], bytes[2], "\(name) \(op): the region decode differs from the whole page's")
                XCTAssertEqual(bytes[1], bytes[2], "\(name) \(op) at -j1")
            }
        }
        let plan = CLI.run(["plan", "fill", "--size", "97x211", dir + "/rgb-strips.tif", "-o", dir + "/p.png"])
        XCTAssertTrue(plan.stdout.contains("two parts at once"), plan.stdout)
    }

    /// A pyramid libvips writes (levels as pages, or as SubIFDs) is read from its smallest
    /// level that leaves the filter its room, as a JPEG is shrunk on load: within 40 dB of
    /// the same fill from a flat file, and the plan says which level. Pages that are not
    /// reduced copies of the page are no levels.
    func testPyramidLevels() throws {
        let dir = CLI.tempDir()
        try python("""
            import pyvips
            import numpy as np
            from PIL import Image
            W, H = 2999, 2001
            y, x = np.mgrid[0:H, 0:W]
            px = np.stack([(x * 255 // W), (y * 255 // H), ((x // 40 + y // 40) % 2) * 200 + 20], 2).astype(np.uint8)
            im = pyvips.Image.new_from_memory(px.tobytes(), W, H, 3, 'uchar')
            im.tiffsave('flat.tif', tile=True, compression='deflate')
            im.tiffsave('pages.tif', tile=True, pyramid=True, compression='deflate')
            im.tiffsave('subifds.tif', tile=True, pyramid=True, subifd=True, compression='jpeg', Q=95)
            Image.fromarray(px).save('multi.tif', save_all=True, append_images=[Image.fromarray(px[::2, ::2])])
            """, in: dir)
        // Bilinear keeps a 2x reduction: 2001 rows to 256 read the level of 1/2.
        for (name, op, level) in [("pages", ["fill", "--size", "256x256"], "1/2"), ("subifds", ["fill", "--size", "256x256"], "1/2"),
                                  ("pages", ["fit", "--size", "300x"], "1/4"), ("subifds", ["fit", "--size", "150x"], "1/8"), ("pages", ["fill", "--size", "90x40", "--gravity", "southeast"], "1/16"),
                                  ("multi", ["fill", "--size", "256x256"], "1/1")] {
            let plan = CLI.run(["plan"] + op + [dir + "/\(name).tif", "-o", dir + "/x.png"])
            XCTAssertTrue(plan.stdout.contains("decode: \(level) "), "\(name) \(op): \(plan.stdout)")
            XCTAssertEqual(CLI.run(op + [dir + "/\(name).tif", "-o", dir + "/p.png"]).status, 0)
            XCTAssertEqual(CLI.run(op + [dir + "/flat.tif", "-o", dir + "/f.png"]).status, 0)
            try python("""
                import numpy as np
                from PIL import Image
                a, b = (np.asarray(Image.open(f)).astype(float) for f in ('p.png', 'f.png'))
                mse = ((a - b) ** 2).mean()
                psnr = 99 if mse == 0 else 10 * np.log10(255 ** 2 / mse)
                assert psnr >= 40, ('\(name)', \(op), psnr)
                """, in: dir)
        }
    }

    /// The page's EXIF - its descriptive tags, Exif IFD and GPS IFD - goes out with
    /// --keep-metadata as every format's does (orientation reset to 1, the pixel sizes made
    /// the output's), from classic and BigTIFF files alike; a pointer outside the file
    /// carries nothing and fails nothing.
    func testExifIsCarried() throws {
        let dir = CLI.tempDir()
        try python("""
            import os, subprocess, struct
            from PIL import Image
            exe = os.environ['IMGSCALE']
            e = Image.Exif()
            e[271], e[272], e[306], e[274] = 'Maker', 'Model 7', '2026:12:03 10:00:00', 6
            e[0x8769], e[0x8825] = 0, 0
            e._ifds[0x8769] = {33434: (1, 250), 33437: 2.8, 34855: 200, 36867: '2026:12:03 10:00:00', 37386: 4.5, 42036: 'Lens 1'}
            e._ifds[0x8825] = {1: 'N', 2: (52.0, 22.0, 10.5), 3: 'E', 4: (4.0, 53.0, 2.25)}
            im = Image.new('RGB', (40, 30), (200, 100, 50))
            im.save('classic.tif', exif=e)
            im.save('big.tif', exif=e, big_tiff=True)
            for name in ('classic', 'big'):
                for ext in ('jpg', 'png', 'webp'):
                    subprocess.run([exe, 'fit', '--size', '20x', '--keep-metadata', name + '.tif', '-o', f'{name}.{ext}'], check=True)
                    out = Image.open(f'{name}.{ext}')
                    x = out.getexif()
                    assert out.size == (20, 27), out.size
                    assert (x[271], x[272], x[306], x.get(274)) == ('Maker', 'Model 7', '2026:12:03 10:00:00', 1), (name, ext, dict(x))
                    assert x.get_ifd(0x8769) == e.get_ifd(0x8769), (name, ext, x.get_ifd(0x8769))
                    assert x.get_ifd(0x8825) == e.get_ifd(0x8825), (name, ext, x.get_ifd(0x8825))
            subprocess.run([exe, 'fit', '--size', '20x', 'classic.tif', '-o', 'plain.jpg'], check=True)
            assert len(Image.open('plain.jpg').getexif()) == 0
            # The Exif IFD pointer moved past the end of the file.
            data = bytearray(open('classic.tif', 'rb').read())
            ifd = struct.unpack('<I', data[4:8])[0]
            for i in range(struct.unpack('<H', data[ifd:ifd + 2])[0]):
                at = ifd + 2 + 12 * i
                if struct.unpack('<H', data[at:at + 2])[0] == 0x8769:
                    data[at + 8:at + 12] = struct.pack('<I', len(data) + 1000)
            open('outside.tif', 'wb').write(data)
            r = subprocess.run([exe, 'fit', '--size', '20x', '--keep-metadata', 'outside.tif', '-o', 'outside.jpg'], capture_output=True, text=True)
            assert r.returncode == 0 and Image.open('outside.jpg').getexif().get_ifd(0x8769) == {}, r.stderr
            """, in: dir)
    }

    /// The Orientation tag turns the image as EXIF's does; --no-auto-orient keeps it.
    func testOrientationTag() throws {
        let dir = CLI.tempDir()
        try python(Self.writer + """
            import os, subprocess
            import numpy as np
            from PIL import Image
            exe = os.environ['IMGSCALE']
            W, H = 7, 4
            px = (np.arange(W * H * 3) % 251).astype(np.uint8).reshape(H, W, 3)
            turns = {1: lambda a: a, 2: lambda a: a[:, ::-1], 3: lambda a: a[::-1, ::-1], 4: lambda a: a[::-1],
                     5: lambda a: a.transpose(1, 0, 2), 6: lambda a: np.rot90(a, -1), 7: lambda a: a[::-1, ::-1].transpose(1, 0, 2),
                     8: lambda a: np.rot90(a, 1)}
            for o, turn in turns.items():
                open(f'o{o}.tif', 'wb').write(plain(W, H, 3, 8, 2, px.tobytes(), more={274: (3, [o])}))
                subprocess.run([exe, 'convert', f'o{o}.tif', '-o', f'o{o}.png'], check=True)
                assert np.array_equal(np.asarray(Image.open(f'o{o}.png')), turn(px)), o
                subprocess.run([exe, 'convert', '--no-auto-orient', f'o{o}.tif', '-o', f'k{o}.png'], check=True)
                assert np.array_equal(np.asarray(Image.open(f'k{o}.png')), px), o
            info = subprocess.run([exe, 'info', 'o6.tif'], capture_output=True, text=True).stdout
            assert 'orientation 6 (upright 4x7)' in info, info
            """, in: dir)
    }

    /// --page picks a page from 0, info counts them, and a page past the end, or any
    /// page but 0 of a one-image format, is refused with one line.
    func testPages() throws {
        let dir = CLI.tempDir()
        try python("""
            from PIL import Image
            pages = [Image.new('RGB', (10 + 5 * i, 8), (40 * i, 255 - 40 * i, 7)) for i in range(4)]
            pages[0].save('pages.tif', save_all=True, append_images=pages[1:], compression='tiff_lzw')
            """, in: dir)
        let info = CLI.run(["info", dir + "/pages.tif"])
        XCTAssertTrue(info.stdout.contains("TIFF 10x8") && info.stdout.contains("4 pages (page 0 is read)"), info.stdout)
        let third = CLI.run(["info", "--page", "2", "--json", dir + "/pages.tif"])
        XCTAssertTrue(third.stdout.contains("\"width\":20") && third.stdout.contains("\"page\":2") && third.stdout.contains("\"images\":4"), third.stdout)
        for page in 0..<4 {
            let r = CLI.run(["convert", dir + "/pages.tif", "--page", String(page), "-o", dir + "/p\(page).png"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(CLI.size(dir + "/p\(page).png"), "\(10 + 5 * page)x8")
        }
        let past = CLI.run(["fill", "--size", "4x4", dir + "/pages.tif", "--page", "4", "-o", dir + "/past.png"])
        XCTAssertEqual(past.status, 1)
        XCTAssertEqual(past.stderr, "imgscale: \(dir)/pages.tif: no page 4: the file holds 4 pages, numbered from 0\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/past.png"))
        let png = CLI.run(["convert", CLI.testImages + "/scene-640x427.jpg", "--page", "1", "-o", dir + "/x.png"])
        XCTAssertEqual(png.status, 1)
        XCTAssertTrue(png.stderr.contains("no page 1: this format holds one image a file"), png.stderr)
        XCTAssertEqual(CLI.run(["convert", dir + "/pages.tif", "--page", "1", "--page", "2", "-o", dir + "/x.png"]).status, 2)
        XCTAssertEqual(CLI.run(["convert", dir + "/pages.tif", "--page", "-1", "-o", dir + "/x.png"]).status, 2)
    }

    /// Headers that promise what the file cannot hold, each refused in under a second,
    /// with one line, within the memory budget, and nothing written.
    func testHostileHeaders() throws {
        let dir = CLI.tempDir()
        try python(Self.writer + """
            rgb = lambda w, h, data, **k: plain(w, h, 3, 8, 2, data, **k)
            open('huge.tif', 'wb').write(rgb(1000000, 1000000, b'\\0' * 64))
            open('huge-unlimited.tif', 'wb').write(rgb(200000, 200000, b'\\0' * 64))
            # One strip of the whole image: a 12 GB strip for 64 bytes of file.
            open('one-strip.tif', 'wb').write(rgb(16000, 16000, zlib.compress(b'\\0' * 4096), compression=8))
            tags = {256: (4, [8]), 257: (4, [8]), 258: (3, [8, 8, 8]), 259: (3, [1]), 262: (3, [2]), 277: (3, [3]),
                    322: (4, [65536]), 323: (4, [65536]), 324: (4, ['DATA']), 325: (4, [64]), 284: (3, [1])}
            open('big-tile.tif', 'wb').write(tiff(tags, b'\\0' * 64))
            open('offset-outside.tif', 'wb').write(rgb(64, 64, b'', more={273: (4, [0x7fff0000]), 279: (4, [64 * 64 * 3])}))
            open('short-strip.tif', 'wb').write(rgb(64, 64, b'\\x80' * 100))
            open('loop.tif', 'wb').write(tiff({256: (4, [4]), 257: (4, [4]), 258: (3, [8]), 262: (3, [1]), 273: (4, ['DATA']),
                                             277: (3, [1]), 278: (4, [4]), 279: (4, [16])}, b'\\x40' * 16, next_ifd='SELF'))
            # A million directories, each a valid 1x1 page, chained one after another.
            n, entry = 1000000, 66
            parts = [b'II*\\0' + struct.pack('<I', 8)]
            for i in range(n):
                at = 8 + i * entry
                nxt = at + entry if i + 1 < n else 0
                parts.append(struct.pack('<H', 5) + struct.pack('<HHII', 256, 4, 1, 1) + struct.pack('<HHII', 257, 4, 1, 1)
                             + struct.pack('<HHI', 262, 3, 1) + struct.pack('<HH', 1, 0)
                             + struct.pack('<HHII', 273, 4, 1, 8) + struct.pack('<HHII', 279, 4, 1, 1) + struct.pack('<I', nxt))
            open('million-pages.tif', 'wb').write(b''.join(parts))
            """, in: dir)
        let cases: [(String, [String], String)] = [
            ("huge.tif", [], "over the limit of 268402689"),
            // Unlimited, 40 gigapixels stream (a strip at a time) until the data runs out.
            ("huge-unlimited.tif", ["--max-pixels", "0"], "Read error on strip 0"),
            ("one-strip.tif", ["--max-pixels", "0"], "over the memory budget"),
            ("big-tile.tif", [], "over the memory budget"),
            ("offset-outside.tif", [], "Read error on strip 0"),
            ("short-strip.tif", [], "Read error on strip 0"),
        ]
        for (name, extra, message) in cases {
            let t0 = Date()
            let r = CLI.run(["fill", "--size", "64x64", dir + "/" + name, "-o", dir + "/out.png"] + extra)
            let seconds = Date().timeIntervalSince(t0)
            XCTAssertEqual(r.status, 1, "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(name): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            if !HostileInputTests.sanitized { XCTAssertLessThan(seconds, 1, name) }
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.png"))
        }
        // A loop in the chain of directories is cut where it loops: page 0 is read, and
        // the loop is said once.
        let loop = CLI.run(["convert", dir + "/loop.tif", "-o", dir + "/loop.png"])
        XCTAssertEqual(loop.status, 0, loop.stderr)
        XCTAssertTrue(loop.stderr.contains("IFD looping"), loop.stderr)
        XCTAssertEqual(loop.stderr.split(separator: "\n").count, 1, loop.stderr)
        // A million pages: counted to 65536 and no further, the last page --page reaches
        // read, each in about half a second (2 s allowed: the suite runs two tests at once).
        for args in [["info"], ["fill", "--size", "1x1", "-o", dir + "/one.png"], ["convert", "--page", "65535", "-o", dir + "/far.png"]] {
            let t0 = Date()
            let r = CLI.run(args + [dir + "/million-pages.tif"])
            if !HostileInputTests.sanitized { XCTAssertLessThan(Date().timeIntervalSince(t0), 2, "\(args): \(r.stderr)") }
            if args[0] == "info" { XCTAssertTrue(r.stdout.contains("65536 pages"), r.stdout) }
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        XCTAssertEqual(CLI.size(dir + "/far.png"), "1x1")
    }

    /// A palette index with an alpha sample beside it (Pillow's PA, Office's rdf.tif)
    /// decodes as Pillow decodes it: the colour looked up, the alpha straight.
    func testPaletteWithAlphaEqualsPillow() throws {
        let dir = CLI.tempDir()
        try python("""
            import subprocess, os
            import numpy as np
            from PIL import Image
            y, x = np.mgrid[0:20, 0:30]
            im = Image.fromarray(((x + y) % 7).astype(np.uint8), 'P')
            im.putpalette([v for i in range(256) for v in ((i * 37) % 256, (i * 91) % 256, (i * 13) % 256)])
            pa = im.convert('PA')
            pa.putalpha(Image.fromarray((x * 8).astype(np.uint8)))
            pa.save('pa.tif', compression='tiff_lzw')
            r = subprocess.run([os.environ['IMGSCALE'], 'convert', 'pa.tif', '-o', 'pa.png'], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            ours = np.asarray(Image.open('pa.png').convert('RGBA')).astype(int)
            theirs = np.asarray(Image.open('pa.tif').convert('RGBA')).astype(int)
            assert theirs[..., 3].min() == 0 and np.array_equal(ours, theirs), np.abs(ours - theirs).max()
            """, in: dir)
    }
    /// YCbCr that is not JPEG's in one plane (uncompressed or deflated, subsampled 2x2,
    /// 2x1, 4x2 or not at all, in strips or tiles, odd sizes) decodes as Pillow with
    /// libtiff decodes it, both through libtiff's RGBA interface (Pillow's own reader of
    /// uncompressed TIFF ignores subsampling and calls the file truncated); 16-bit YCbCr,
    /// which libtiff cannot convert, is refused in one line naming it.
    func testYCbCrOutsideJPEGEqualsPillow() throws {
        let dir = CLI.tempDir()
        try python(Self.writer + """
            import subprocess, os
            import numpy as np
            from PIL import Image, TiffImagePlugin
            TiffImagePlugin.READ_LIBTIFF = True
            def ycbcr(w, h, hs, vs, seed, tile=None, deflate=False):
                rng = np.random.default_rng(seed)
                bw, bh = -(-w // hs), -(-h // vs)
                blocks = rng.integers(16, 240, size=(bh, bw, hs * vs + 2), dtype=np.uint8)
                # Smooth luma, so that the upsampled chroma is checked where it changes.
                blocks[..., :hs * vs] = (np.add.outer(np.arange(bh) * 7, np.arange(bw) * 3)[..., None] % 200 + 20).astype(np.uint8)
                tags = {530: (3, [hs, vs])}
                pack = (lambda b: zlib.compress(b)) if deflate else (lambda b: b)
                if tile:
                    tw, th = tile
                    tbw, tbh = tw // hs, th // vs
                    across, down = -(-bw // tbw), -(-bh // tbh)
                    padded = np.zeros((down * tbh, across * tbw, hs * vs + 2), np.uint8)
                    padded[:bh, :bw] = blocks
                    chunks = [pack(padded[r * tbh:(r + 1) * tbh, c * tbw:(c + 1) * tbw].tobytes()) for r in range(down) for c in range(across)]
                    data = b''.join(chunks)
                    offsets, at = [], 8
                    for c in chunks: offsets.append(at); at += len(c)
                    tags.update({322: (4, [tw]), 323: (4, [th]), 324: (4, offsets), 325: (4, [len(c) for c in chunks])})
                    t = {256: (4, [w]), 257: (4, [h]), 258: (3, [8] * 3), 259: (3, [8 if deflate else 1]), 262: (3, [6]), 277: (3, [3]), 284: (3, [1])}
                    t.update(tags)
                    return tiff(t, data)
                return plain(w, h, 3, 8, 6, pack(blocks.tobytes()), rows=bh * vs, more=tags, compression=8 if deflate else 1)
            cases = [('s22', 37, 23, 2, 2, None), ('s21', 30, 17, 2, 1, None), ('s42', 41, 26, 4, 2, None),
                     ('s11', 19, 13, 1, 1, None), ('t22', 50, 40, 2, 2, (16, 16))]
            for seed, (name, w, h, hs, vs, tile) in enumerate(cases):
                open(name + '.tif', 'wb').write(ycbcr(w, h, hs, vs, seed, tile))
                open(name + '-zip.tif', 'wb').write(ycbcr(w, h, hs, vs, seed, tile, deflate=True))
                for path in (name + '.tif', name + '-zip.tif'):
                    theirs = Image.open(path)
                    assert theirs.tag_v2[262] == 6, path
                    r = subprocess.run([os.environ['IMGSCALE'], 'convert', path, '-o', path + '.png'], capture_output=True, text=True)
                    assert r.returncode == 0, (path, r.stderr)
                    ours = np.asarray(Image.open(path + '.png').convert('RGB')).astype(int)
                    ref = np.asarray(theirs.convert('RGB')).astype(int)
                    assert ours.shape == ref.shape and np.array_equal(ours, ref), (path, np.abs(ours - ref).max() if ours.shape == ref.shape else ours.shape)
            open('deep.tif', 'wb').write(plain(8, 8, 3, 16, 6, bytes(8 * 8 * 6), more={530: (3, [1, 1])}))
            r = subprocess.run([os.environ['IMGSCALE'], 'convert', 'deep.tif', '-o', 'deep.png'], capture_output=True, text=True)
            assert r.returncode == 1 and r.stderr.count('\\n') == 1 and '(YCbCr)' in r.stderr and not os.path.exists('deep.png'), r.stderr
            """, in: dir)
    }
}
