import XCTest
import TestReferences
import Foundation
import ImageScaler

/// `--filter` through the built binary: every filter's `fill` of a PNG equals Pillow's
/// `Image.resize(size, FILTER, box=the rect imgscale plan prints)`, byte for byte, on the
/// synthetic images and on a camera photo converted to PNG (when ../shared is there).
final class FilterTests: XCTestCase {
    static let script = """
    import sys
    import PIL
    from PIL import Image
    if int(PIL.__version__.split('.')[0]) >= 13:
        sys.exit(3)  # pass order changed in Pillow 13; see scripts/install-deps
    path, w, h, x, y, bw, bh, name = sys.argv[1:]
    im = Image.open(path)
    im = im.convert({'P': 'RGBA' if 'transparency' in im.info else 'RGB', 'I;16': 'L', 'I': 'L'}.get(im.mode, im.mode))
    box = (float(x), float(y), float(x) + float(bw), float(y) + float(bh))
    out = im.resize((int(w), int(h)), getattr(Image.Resampling, name.upper()), box=box)
    sys.stdout.buffer.write(out.tobytes())
    """

    func pillow(_ path: String, _ size: Size, _ rect: Rect, _ filter: String) throws -> [UInt8] {
        let argv = [path] + [size.width, size.height, rect.x, rect.y, rect.width, rect.height].map(String.init) + [filter]
        guard let r = CLI.python(Self.script, argv), r.status == 0, !r.stdout.isEmpty else {
            throw missingReference("python3 with Pillow 10-12 is not available (scripts/install-deps --test installs it)")
        }
        return r.stdout
    }

    func check(_ path: String, _ size: Size, sampled: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = CLI.tempDir()
        let source = try ImageCodec.info(try ImageFile.read(path)).size
        let rect = try Scaling.plan(source: source, target: size)
        for filter in sampled ? Sweep.sample(ResampleFilter.allCases, every: 3) : ResampleFilter.allCases {
            let out = dir + "/\(filter).png"
            let r = CLI.run(["fill", "--size", "\(size)", "--filter", filter.rawValue, path, "-o", out])
            XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
            var ours = try ImageCodec.decode(try ImageFile.read(out)).0
            let theirs = try pillow(path, size, rect, filter.rawValue)
            // imgscale drops alpha that is opaque everywhere; Pillow keeps it.
            if theirs.count == ours.pixels.count / ours.channels * (ours.channels + 1) {
                // A loop with stated types: as one flatMap expression it took the type checker 8 s.
                let channels = ours.channels
                var opaque: [UInt8] = []
                opaque.reserveCapacity(ours.width * ours.height * (channels + 1))
                for i in 0..<ours.width * ours.height {
                    opaque += ours.pixels[i * channels ..< (i + 1) * channels]
                    opaque.append(255)
                }
                ours = try PixelBuffer(width: ours.width, height: ours.height, channels: channels + 1, pixels: opaque)
            }
            XCTAssertEqual(ours.pixels.count, theirs.count, "\(filter) \(path)", file: file, line: line)
            XCTAssertTrue(ours.pixels == theirs, "\(filter) \(path) -> \(size): \(zip(ours.pixels, theirs).filter { $0 != $1 }.count) samples differ",
                          file: file, line: line)
        }
    }

    func testEveryFilterEqualsPillowOnSyntheticImages() throws {
        try check(CLI.testImages + "/scene-640x427.png", Size(width: 96, height: 80))
        try check(CLI.testImages + "/strokes-130x90.png", Size(width: 200, height: 31))
        try check(CLI.testImages + "/alpha-disc-100x100.png", Size(width: 33, height: 17))
        try check(CLI.testImages + "/gray-alpha-31x29.png", Size(width: 13, height: 50))
        try check(CLI.testImages + "/two-colour-8x8.png", Size(width: 64, height: 64))
    }

    func testEveryFilterEqualsPillowOnAPhoto() throws {
        let photos = try CLI.sharedDir("photos")
        let dir = CLI.tempDir()
        XCTAssertEqual(CLI.run(["convert", photos + "/phone-3264x2448.jpg", "-o", dir + "/phone.png"]).status, 0)
        try check(dir + "/phone.png", Size(width: 256, height: 256), sampled: true)
    }

    /// A fit or fill that changes nothing returns the pixels as stored, as Pillow's resize
    /// to the image's own size does: colour under alpha 1 is not premultiplied and back.
    func testAResizeToItsOwnSizeIsACopy() throws {
        let dir = CLI.tempDir()
        var pixels: [UInt8] = []
        for i in 0..<(37 * 23) { pixels += [UInt8(i % 251), UInt8(i * 7 % 256), UInt8(i * 13 % 256), [1, 3, 77, 200, 255][i % 5]] }
        let source = try PixelBuffer(width: 37, height: 23, channels: 4, pixels: pixels)
        try ImageFile.write(try ImageCodec.encode(source, as: .png), to: dir + "/low-alpha.png")
        for args in [["fit", "--size", "37x23"], ["fit", "--size", "37x100"], ["fill", "--size", "37x23"]] {
            for filter in ResampleFilter.allCases {
                let r = CLI.run(args + ["--filter", filter.rawValue, dir + "/low-alpha.png", "-o", dir + "/out.png"])
                XCTAssertEqual(r.status, 0, r.stderr)
                XCTAssertEqual(try ImageCodec.decode(try ImageFile.read(dir + "/out.png")).0.pixels, pixels, "\(args) \(filter)")
            }
        }
    }
}
