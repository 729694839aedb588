import XCTest
import TestReferences
import Foundation

/// `imgscale info --hash` against Python's imagehash (the de facto reference), on the
/// camera photos, the EXIF orientation set (hashes of the upright picture), PngSuite's
/// 8-bit images and the project's own; and `compare --metric phash`.
final class PerceptualHashTests: XCTestCase {
    /// Each file's hashes, and a mask of the pHash bits whose DCT term lies within a
    /// billionth of the largest of the median: rounding decides those, in scipy as here.
    private static let reference = #"""
    import sys, imagehash, numpy, scipy.fftpack
    from PIL import Image, ImageOps
    for path in sys.argv[1:]:
        im = ImageOps.exif_transpose(Image.open(path))
        pixels = numpy.asarray(im.convert("L").resize((32, 32), Image.Resampling.LANCZOS), dtype=float)
        low = scipy.fftpack.dct(scipy.fftpack.dct(pixels, axis=0), axis=1)[:8, :8].flatten()
        ties = numpy.abs(low - numpy.median(low)) <= 1e-9 * max(1, numpy.abs(low).max())
        mask = int("".join("0" if t else "1" for t in ties), 2)
        print(path, imagehash.average_hash(im), imagehash.dhash(im), imagehash.phash(im), "%016x" % mask)
    """#

    func testHashesEqualImagehash() throws {
        if ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] != nil {
            throw XCTSkip("SKIPPED under the sanitizers: 30 whole decodes (four 12 MP) take 20 s there; the plain run compares, the usage test runs the code")
        }
        let photos = try CLI.sharedDir("photos"), exif = try CLI.sharedDir("exif-orientation"), suite = try CLI.sharedDir("pngsuite/png")
        var paths = CLI.files(photos).filter { $0.hasSuffix(".jpg") }.map { photos + "/" + $0 }
        paths += CLI.files(exif).filter { $0.hasSuffix(".jpg") }.prefix(9).map { exif + "/" + $0 }
        // 8-bit PngSuite images: gray, RGB, palette, with alpha, interlaced, odd sizes.
        paths += ["basn0g08", "basn2c08", "basn3p08", "basn4a08", "basn6a08", "basi2c08", "basi3p04", "s01n3p01", "s39n3p04", "tbwn3p08", "tp1n3p08", "z09n2c08"]
            .map { suite + "/" + $0 + ".png" }
        paths += ["scene-640x427.jpg", "scene-640x427.png", "alpha-disc-100x100.png", "strokes-130x90.png", "two-colour-8x8.png"].map { CLI.testImages + "/" + $0 }
        guard let reply = CLI.python(Self.reference, paths) else { throw missingReference("python3 cannot be started") }
        let text = String(decoding: reply.stdout, as: UTF8.self)
        if reply.status != 0 {
            let err = String(decoding: reply.stderr, as: UTF8.self)
            if err.contains("No module named 'imagehash'") { throw missingReference("imagehash is not installed (scripts/install-deps --test installs it)") }
            XCTFail(err)
            return
        }
        var expected: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            let f = line.split(separator: " ").map(String.init)
            expected[f[0]] = Array(f.dropFirst())
        }
        let r = CLI.run(["info", "--json", "--hash", "ahash,dhash,phash"] + paths)
        XCTAssertEqual(r.status, 0, r.stderr)
        var checked = 0, exact = 0
        for line in r.stdout.split(separator: "\n") {
            let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let path = try XCTUnwrap(o["path"] as? String)
            let want = try XCTUnwrap(expected[path], path)
            XCTAssertEqual([o["ahash"] as? String, o["dhash"] as? String].compactMap { $0 }, Array(want.prefix(2)), path)
            let mine = try XCTUnwrap(UInt64(o["phash"] as? String ?? "", radix: 16)), theirs = try XCTUnwrap(UInt64(want[2], radix: 16))
            let mask = try XCTUnwrap(UInt64(want[3], radix: 16))
            XCTAssertEqual(mine & mask, theirs & mask, "\(path): pHash \(want[2]) expected, outside its ties")
            XCTAssertEqual(mine & ~mask, 0, "\(path): a tie is not above the median")
            if mask == .max { exact += 1 }
            checked += 1
        }
        XCTAssertEqual(checked, paths.count)
        XCTAssertGreaterThanOrEqual(exact, 20, "most pictures have no ties: their pHash is imagehash's, every bit")
        print("PerceptualHashTests: aHash and dHash equal imagehash's on \(checked) images, pHash on \(exact) whole and on the rest outside the DCT's ties")
    }

    func testHashTextUsageAndDistance() throws {
        let scene = CLI.testImages + "/scene-640x427.jpg"
        let text = CLI.run(["info", "--hash", "phash", scene])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertNotNil(text.stdout.firstMatch(of: /, phash [0-9a-f]{16}\n$/), text.stdout)
        for bad in ["phash,phash", "md5", "ahash,"] {
            let r = CLI.run(["info", "--hash", bad, scene])
            XCTAssertEqual(r.status, 2, bad)
        }
        // A resized copy is a near-duplicate; another picture is not.
        let dir = CLI.tempDir()
        XCTAssertEqual(CLI.run(["fit", "--size", "200x", scene, "-o", dir + "/small.png"]).status, 0)
        let near = CLI.run(["compare", "--metric", "phash", "--json", scene, dir + "/small.png"])
        let far = CLI.run(["compare", "--metric", "phash", "--json", scene, CLI.testImages + "/strokes-130x90.png"])
        let n = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(near.stdout.utf8)) as? [String: Any])?["phash_distance"] as? Int, near.stdout)
        let f = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(far.stdout.utf8)) as? [String: Any])?["phash_distance"] as? Int, far.stdout)
        XCTAssertLessThanOrEqual(n, 4)
        XCTAssertGreaterThanOrEqual(f, 16)
        XCTAssertTrue(CLI.run(["compare", "--metric", "phash", scene, dir + "/small.png"]).stdout.contains("pHash distance \(n)"))
    }
}
