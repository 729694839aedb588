import XCTest
import Foundation

/// HEIF item graphs libheif 1.15 follows without limit, and bitstreams coding more than
/// their container claims: each crafted here around a real 64x64 image heif-enc made,
/// each refused with one line naming the file before libheif reads it, in a batch of
/// good files that are all still written.
final class HEIFGraphTests: XCTestCase {
    /// Makes the crafted files in a new directory: `python` gets heifcraft's names and
    /// `hvc` / `av1` (type, properties, bitstream) of heif-enc's 64x64 (or `side`) image.
    func craft(_ script: String, side: Int = 64) throws -> String {
        let dir = CLI.tempDir()
        try HEIFCraft.install(in: dir)
        try python("""
        import subprocess, sys
        sys.path.insert(0, '.')
        from heifcraft import *
        from PIL import Image
        import random
        random.seed(7)
        Image.frombytes('RGB', (\(side), \(side)), bytes(random.randrange(256) for _ in range(\(side * side * 3)))).save('src.png')
        subprocess.run(['heif-enc', '-q', '30', 'src.png', '-o', 'src.heic'], check=True, capture_output=True)
        subprocess.run(['heif-enc', '-A', '-q', '30', 'src.png', '-o', 'src.avif'], check=True, capture_output=True)
        hvc = coded('src.heic')
        av1 = coded('src.avif')
        \(script)
        """, in: dir)
        return dir
    }

    func testItemCyclesAndNestingAreRefusedInABatch() throws {
        let dir = try craft("""
        t, props, data = hvc
        plist = [props[b'hvcC'], ispe(64, 64)]
        def save(name, items, assoc, refs, primary, idat=()):
            open(name, 'wb').write(heif(b'heic', items, plist + [ispe(120, 100)], assoc, refs, primary, idat))
        save('ok-rebuilt.heic', [(1, t, data)], {1: [1, 2]}, [], 1)
        save('ok-grid.heic', [(1, t, data), (2, b'grid', grid(2, 2, 120, 100))], {1: [1, 2], 2: [3]}, [(b'dimg', 2, [1, 1, 1, 1])], 2, {2})
        save('iden-self.heic', [(1, t, data), (2, b'iden', b'')], {1: [1, 2], 2: [2]}, [(b'dimg', 2, [2])], 2)
        save('grid-iden-grid.heic', [(1, t, data), (2, b'grid', grid(1, 1, 64, 64)), (3, b'iden', b'')],
             {1: [1, 2], 2: [2], 3: [2]}, [(b'dimg', 2, [3]), (b'dimg', 3, [2])], 2, {2})
        save('grid-self.heic', [(1, t, data), (2, b'grid', grid(1, 1, 64, 64))], {1: [1, 2], 2: [2]}, [(b'dimg', 2, [2])], 2, {2})
        save('grid-of-grids.heic', [(1, t, data), (2, b'grid', grid(1, 1, 64, 64)), (3, b'grid', grid(1, 1, 64, 64))],
             {1: [1, 2], 2: [2], 3: [2]}, [(b'dimg', 2, [3]), (b'dimg', 3, [1])], 2, {2, 3})
        save('grid-1024-refs.heic', [(1, t, data), (2, b'grid', grid(32, 32, 64, 64))], {1: [1, 2], 2: [2]}, [(b'dimg', 2, [1] * 1024)], 2, {2})
        save('grid-too-few.heic', [(1, t, data), (2, b'grid', grid(2, 2, 120, 100))], {1: [1, 2], 2: [3]}, [(b'dimg', 2, [1, 1, 1])], 2, {2})
        save('alpha-self.heic', [(1, t, data), (2, b'iden', b'')], {1: [1, 2], 2: [2]}, [(b'auxl', 2, [1]), (b'dimg', 2, [2])], 1)
        """)
        let bad = ["iden-self", "grid-iden-grid", "grid-self", "grid-of-grids", "grid-1024-refs", "grid-too-few", "alpha-self"]
        let r = CLI.run(["fit", "--size", "32x32", "--out-dir", dir + "/out", "--name", "{stem}.png", "-j2"]
                        + (["ok-rebuilt"] + bad + ["ok-grid"]).map { "\(dir)/\($0).heic" })
        XCTAssertEqual(r.status, 1, r.stderr)
        for name in bad {
            let lines = r.stderr.split(separator: "\n").filter { $0.contains("/\(name).heic") }
            XCTAssertEqual(lines.count, 1, "\(name): \(r.stderr)")
            XCTAssertTrue(lines.first?.contains("invalid HEIC: ") ?? false, "\(name): \(lines)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: "\(dir)/out/\(name).png"), name)
        }
        XCTAssertTrue(r.stderr.contains("iden must derive from a coded image"), r.stderr)
        XCTAssertTrue(r.stderr.contains("a grid inside a derivation"), r.stderr)
        XCTAssertTrue(r.stderr.contains("2x2 tiles declared, 3 referenced"), r.stderr)
        XCTAssertTrue(r.stderr.contains("do not fit its 64x64 output"), r.stderr)
        for good in ["ok-rebuilt", "ok-grid"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: "\(dir)/out/\(good).png"), "\(good): \(r.stderr)")
        }
        // info reads the same structure and refuses it the same way, alone.
        for name in bad {
            let info = CLI.run(["info", "\(dir)/\(name).heic"])
            XCTAssertEqual(info.status, 1, "\(name): \(info.stderr)")
            XCTAssertTrue(info.stderr.contains("invalid HEIC"), info.stderr)
        }
        XCTAssertEqual(CLI.run(["info", "\(dir)/ok-grid.heic"]).status, 0)
    }

    /// A 256x256 bitstream in an item whose ispe claims 64x64, alone and as grid tiles,
    /// HEVC and AV1: refused from the coded size, before any decoder allocates for it.
    func testCodedSizeBeyondTheContainersClaimIsRefused() throws {
        let dir = try craft("""
        for name, (t, props, data), brand, config in [('heic', hvc, b'heic', b'hvcC'), ('avif', av1, b'avif', b'av1C')]:
            plist = [props[config], ispe(64, 64), ispe(128, 128)]
            open('liar.' + name, 'wb').write(heif(brand, [(1, t, data)], plist, {1: [1, 2]}, [], 1))
            open('liar-grid.' + name, 'wb').write(heif(brand, [(1, t, data), (2, b'grid', grid(2, 2, 128, 128))], plist,
                                                       {1: [1, 2], 2: [3]}, [(b'dimg', 2, [1, 1, 1, 1])], 2, {2}))
            honest = [props[config], ispe(256, 256)]
            open('honest.' + name, 'wb').write(heif(brand, [(1, t, data)], honest, {1: [1, 2]}, [], 1))
        """, side: 256)
        for ext in ["heic", "avif"] {
            for name in ["liar", "liar-grid"] {
                let r = CLI.run(["fit", "--size", "32x32", "\(dir)/\(name).\(ext)", "-o", "\(dir)/out.png"])
                XCTAssertEqual(r.status, 1, "\(name).\(ext): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains("codes a 256x256 frame but declares 64x64 (ispe)"), "\(name).\(ext): \(r.stderr)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: "\(dir)/out.png"))
            }
            let ok = CLI.run(["fit", "--size", "32x32", "\(dir)/honest.\(ext)", "-o", "\(dir)/honest-\(ext).png"])
            XCTAssertEqual(ok.status, 0, "honest.\(ext): \(ok.stderr)")
        }
    }
}
