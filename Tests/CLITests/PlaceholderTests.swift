import XCTest
import TestReferences
import Foundation
import ImageScaler

/// `--placeholder` against the references: ThumbHash byte for byte with PyPI `thumbhash`
/// (its JavaScript original's alpha line where the Python port crashes), BlurHash string
/// for string with `blurhash-python`, both fed the output file's pixels reduced as the
/// docs say (Pillow's thumbnail size for 100x100, bicubic); the LQIP a WebP of at most 32
/// pixels; the colour by hand; all kept through an `--if-changed` rerun.
final class PlaceholderTests: XCTestCase {
    /// Per output: the reference ThumbHash (base64), BlurHash at the components given, and
    /// the LQIP's size and format as Pillow reads it.
    private static let reference = #"""
    import sys, json, base64, inspect, io, math
    from typing import List
    from PIL import Image
    import thumbhash, blurhash
    src = inspect.getsource(thumbhash.rgba_to_thumb_hash)
    src = src.replace("a_dc, a_ac, a_scale = encode_channel(a, 5, 5) if has_alpha else 1.0, [], 1.0",
                      "a_dc, a_ac, a_scale = encode_channel(a, 5, 5) if has_alpha else (1.0, [], 1.0)")
    ns = {"math": math, "List": List}
    exec(src, ns)
    def fit(w, h):
        if w <= 100 and h <= 100: return w, h
        aspect, x, y = w / h, 100, 100
        ra = lambda n, key: max(min(math.floor(n), math.ceil(n), key=key), 1)
        if x / y >= aspect: x = ra(y * aspect, key=lambda n: abs(aspect - n / y))
        else: y = ra(x / aspect, key=lambda n: 0 if n == 0 else abs(aspect - x / n))
        return x, y
    cx, cy = int(sys.argv[1]), int(sys.argv[2])
    for path, lqip in zip(sys.argv[3::2], sys.argv[4::2]):
        im = Image.open(path).convert("RGBA")
        size = fit(*im.size)
        prev = im.resize(size, Image.Resampling.BICUBIC) if size != im.size else im
        flat = [c for px in prev.get_flattened_data() for c in px] if hasattr(prev, "get_flattened_data") else [c for px in prev.getdata() for c in px]
        try:
            th, how = thumbhash.rgba_to_thumb_hash(prev.width, prev.height, flat), "python"
        except Exception:
            th, how = ns["rgba_to_thumb_hash"](prev.width, prev.height, flat), "javascript-alpha"
        small = Image.open(io.BytesIO(base64.b64decode(lqip.split(",", 1)[1])))
        print(json.dumps({"path": path, "thumbhash": base64.b64encode(bytes(th)).decode(), "how": how,
                          "blurhash": blurhash.encode(prev.copy(), cx, cy), "lqip": [small.format, small.width, small.height]}))
    """#

    /// Outputs of every kind: camera photos (reduced to their preview), PngSuite's gray,
    /// palette and alpha images, WebP and AVIF with alpha, the project's own.
    func testEqualsThumbHashAndBlurHashReferences() throws {
        if ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] != nil {
            throw XCTSkip("SKIPPED under the sanitizers: the Python references take the time; the usage test runs the code")
        }
        let photos = try CLI.sharedDir("photos"), suite = try CLI.sharedDir("pngsuite/png"), formats = try CLI.sharedDir("formats")
        let dir = CLI.tempDir()
        var checked = 0, how: [String: Int] = [:]
        for (size, components, inputs) in [
            ("200x150", "4,3", CLI.files(photos).filter { $0.hasSuffix(".jpg") }.map { photos + "/" + $0 }),
            ("64x64", "5,4", ["basn0g08", "basn2c08", "basn3p08", "basn4a08", "basn6a08", "tbwn3p08", "tp1n3p08", "s39n3p04"].map { suite + "/" + $0 + ".png" }
                + ["webp-lossless-rgba-256x192.webp", "avif-alpha-301x201.avif"].map { formats + "/" + $0 }
                + ["scene-640x427.jpg", "alpha-disc-100x100.png", "strokes-130x90.png"].map { CLI.testImages + "/" + $0 }),
        ] {
            let out = dir + "/" + size
            let r = CLI.run(["fill", "--size", size, "--out-dir", out, "--name", "{stem}-{ext}.png", "--report", "-", "-q",
                             "--placeholder", "thumbhash,blurhash,lqip", "--blurhash-components", components] + inputs)
            XCTAssertEqual(r.status, 0, r.stderr)
            var mine: [String: [String: Any]] = [:], argv: [String] = []
            for line in r.stdout.split(separator: "\n") {
                let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let path = try XCTUnwrap(o["output"] as? String)
                mine[path] = o
                argv += [path, try XCTUnwrap(o["lqip"] as? String)]
            }
            XCTAssertEqual(mine.count, inputs.count)
            let parts = components.split(separator: ",").map(String.init)
            guard let reply = CLI.python(Self.reference, parts + argv) else { throw missingReference("python3 cannot be started") }
            if reply.status != 0 {
                let err = String(decoding: reply.stderr, as: UTF8.self)
                if err.contains("No module named") { throw missingReference("thumbhash or blurhash-python is not installed (scripts/install-deps --test installs them): \(err)") }
                XCTFail(err)
                return
            }
            for line in String(decoding: reply.stdout, as: UTF8.self).split(separator: "\n") {
                let want = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let path = try XCTUnwrap(want["path"] as? String), got = try XCTUnwrap(mine[path])
                XCTAssertEqual(got["thumbhash"] as? String, want["thumbhash"] as? String, "\(path): ThumbHash")
                XCTAssertEqual(got["blurhash"] as? String, want["blurhash"] as? String, "\(path): BlurHash \(components)")
                let lqip = try XCTUnwrap(want["lqip"] as? [Any])
                XCTAssertEqual(lqip[0] as? String, "WEBP", path)
                XCTAssertLessThanOrEqual(max(lqip[1] as? Int ?? 99, lqip[2] as? Int ?? 99), 32, "\(path): the LQIP's long side")
                how[want["how"] as? String ?? "", default: 0] += 1
                checked += 1
            }
        }
        XCTAssertEqual(checked, 17)
        XCTAssertGreaterThanOrEqual(how["javascript-alpha"] ?? 0, 4, "the alpha channel is checked on pictures with alpha")
        print("PlaceholderTests: ThumbHash and BlurHash equal the references on \(checked) outputs (\(how))")
    }

    /// The colour by hand: the heaviest 4-bit bin, weighted by alpha, and its mean.
    func testDominantColourByHand() throws {
        let dir = CLI.tempDir()
        // 60 pixels of red in two shades of one bin, 40 of white: red, their mean.
        var rgb: [UInt8] = []
        for i in 0..<100 { rgb += i < 30 ? [250, 2, 0] : i < 60 ? [241, 9, 5] : [255, 255, 255] }
        try ImageFile.write(try ImageFile.encode(try PixelBuffer(width: 10, height: 10, channels: 3, pixels: rgb), as: .png), to: dir + "/red.png")
        // The same red at alpha 0 (and white opaque): white.
        var rgba: [UInt8] = []
        for i in 0..<100 { rgba += i < 60 ? [250, 2, 0, 0] : [255, 255, 255, 255] }
        try ImageFile.write(try ImageFile.encode(try PixelBuffer(width: 10, height: 10, channels: 4, pixels: rgba), as: .png), to: dir + "/clear.png")
        try ImageFile.write(try ImageFile.encode(try PixelBuffer(width: 10, height: 10, channels: 4, value: 0), as: .png), to: dir + "/void.png")
        let r = CLI.run(["convert", dir + "/red.png", dir + "/clear.png", dir + "/void.png", "--out-dir", dir + "/out", "--placeholder", "color", "--report", "-", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].contains(##""color":"#f60603""##), lines[0])   // red (30*250 + 30*241) / 60 = 245.5 -> 246, blue 150 / 60 = 2.5 -> 3
        XCTAssertTrue(lines[1].contains(##""color":"#ffffff""##), lines[1])
        XCTAssertTrue(lines[2].contains(#""color":null"#), lines[2])
    }

    /// A favicon.ico of three sizes is reported as its largest picture, given in any order:
    /// its size, and placeholders equal to those of that size made alone as a PNG.
    func testContainerIsDescribedByItsLargestPicture() throws {
        let dir = CLI.tempDir(), scene = CLI.testImages + "/scene-640x427.png"
        let ico = CLI.run(["fill", "--size", "16x16", "--size", "64x64", "--size", "32x32", scene, "-o", dir + "/favicon.ico",
                           "--placeholder", "color,thumbhash", "--report", "-", "-q"])
        let png = CLI.run(["fill", "--size", "64x64", scene, "-o", dir + "/64.png", "--placeholder", "color,thumbhash", "--report", "-", "-q"])
        XCTAssertEqual(ico.status, 0, ico.stderr)
        XCTAssertEqual(png.status, 0, png.stderr)
        XCTAssertTrue(ico.stdout.contains(#""width":64,"height":64"#), ico.stdout)
        let fields = { (line: String) in line.firstMatch(of: /"color":"[^"]*","thumbhash":"[^"]*"/).map { String($0.output) } }
        XCTAssertNotNil(fields(png.stdout), png.stdout)
        XCTAssertEqual(fields(ico.stdout), fields(png.stdout))
    }

    /// A rerun of `--if-changed` skips every output and reports the same fields from the
    /// manifest; asking for one more kind remakes (the same bytes) to have it; the usage
    /// errors.
    func testSkipsKeepThemAndUsage() throws {
        let dir = CLI.tempDir(), scene = CLI.testImages + "/scene-640x427.jpg", disc = CLI.testImages + "/alpha-disc-100x100.png"
        let args = ["fill", "--size", "120x80", "--size", "48x48", scene, disc, "--out-dir", dir, "--name", "{stem}-{w}.webp",
                    "--if-changed", "--report", "-", "-q", "--placeholder", "thumbhash,color,blurhash"]
        let first = CLI.run(args), again = CLI.run(args)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(again.status, 0, again.stderr)
        func fields(_ text: String) -> [String] {
            text.split(separator: "\n").map { String($0.replacing(/"status":"[a-z]+"/, with: "").replacing(/"ms":\d+/, with: "")) }
        }
        XCTAssertEqual(first.stdout.split(separator: "\n").count, 4)
        XCTAssertEqual(again.stdout.components(separatedBy: #""status":"skipped""#).count - 1, 4, again.stdout)
        XCTAssertEqual(fields(again.stdout), fields(first.stdout), "a skip reports what the run that made it did")
        let more = CLI.run(args.dropLast() + ["thumbhash,color,blurhash,lqip"])
        XCTAssertEqual(more.stdout.components(separatedBy: #""status":"ok""#).count - 1, 4, more.stdout)
        XCTAssertTrue(more.stdout.contains(#""lqip":"data:image/webp;base64,UklGR"#), more.stdout)
        let components = CLI.run(args.dropLast() + ["blurhash", "--blurhash-components", "3,3"])
        XCTAssertEqual(components.stdout.components(separatedBy: #""status":"ok""#).count - 1, 4, "other components are another hash")
        for (bad, says) in [(["--placeholder", "thumbhash"], "--report"), (["--placeholder", "thumbhash,webp", "--report", "-"], "unknown 'webp'"),
                            (["--placeholder", "blurhash", "--report", "-", "--blurhash-components", "10,3"], "1 to 9"),
                            (["--placeholder", "color", "--report", "-", "--blurhash-components", "4,3"], "not asked for")] {
            let r = CLI.run(["fill", "--size", "32x32", scene, "-o", dir + "/x.png"] + bad)
            XCTAssertEqual(r.status, 2, bad.joined(separator: " "))
            XCTAssertTrue(r.stderr.contains(says), r.stderr)
        }
    }
}
