import XCTest
import TestReferences
import Foundation

/// `--animated` to `.png` writes APNG: Pillow reads every frame equal to the lossless
/// WebP path's frames (the same compositing and resampling), with the delays and loop
/// count kept, and the bytes are the same on every run and at any thread count.
final class APNGTests: XCTestCase {
    private static let frames = #"""
    import sys, json
    from PIL import Image, ImageSequence
    out = []
    for path in sys.argv[1:]:
        im = Image.open(path)
        frames = [(f.convert("RGBA").tobytes().hex(), f.info.get("duration")) for f in ImageSequence.Iterator(im)]
        out.append({"format": im.format, "n": getattr(im, "n_frames", 1), "loop": im.info.get("loop"), "size": list(im.size),
                    "frames": [f[0] for f in frames], "durations": [f[1] for f in frames]})
    print(json.dumps(out))
    """#

    func testAnimatedPNGFramesEqualTheLosslessWebPPath() throws {
        let formats = try CLI.sharedDir("formats")
        for source in ["gif-anim-3frames-160x120.gif", "webp-anim-3frames-160x120.webp"] {
            let dir = CLI.tempDir()
            let input = formats + "/" + source
            for (name, extra) in [("a.png", ["--threads", "1"]), ("b.png", ["--threads", "4"]), ("c.webp", ["--lossless"])] {
                let r = CLI.run(["fit", "--size", "97x", "--animated", input, "-o", dir + "/" + name] + extra)
                XCTAssertEqual(r.status, 0, r.stderr)
            }
            XCTAssertEqual(CLI.bytes(dir + "/a.png"), CLI.bytes(dir + "/b.png"), "the same bytes at any thread count")
            guard let reply = CLI.python(Self.frames, [dir + "/a.png", dir + "/c.webp", input]) else { throw missingReference("python3 cannot be started") }
            XCTAssertEqual(reply.status, 0, String(decoding: reply.stderr, as: UTF8.self))
            let read = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(reply.stdout)) as? [[String: Any]])
            let (apng, webp, original) = (read[0], read[1], read[2])
            XCTAssertEqual(apng["format"] as? String, "PNG")
            XCTAssertEqual(apng["n"] as? Int, original["n"] as? Int, source)
            XCTAssertGreaterThan(apng["n"] as? Int ?? 0, 1)
            XCTAssertEqual(apng["frames"] as? [String], webp["frames"] as? [String], "\(source): every frame equal to the WebP path's")
            XCTAssertEqual(apng["durations"] as? [Int], original["durations"] as? [Int], source)
            XCTAssertEqual(apng["loop"] as? Int, original["loop"] as? Int ?? 0, source)
            XCTAssertEqual(apng["size"] as? [Int], webp["size"] as? [Int])
        }
    }
}
