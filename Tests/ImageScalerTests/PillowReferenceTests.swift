import XCTest
import TestReferences
import Foundation
import ImageScaler

/// The resampler against Pillow's own `Image.resize(..., BILINEAR, box)`, the outside
/// reference for its semantics (premultiplied RGBA/LA included). Same input bytes go to
/// both; the outputs must be identical. Needs python3 with Pillow 10-12 (scripts/install-deps
/// --test): Pillow 13 may run the vertical pass first, which moves near-ties by one level.
final class PillowReferenceTests: XCTestCase {
    static let script = """
    import sys
    import PIL
    from PIL import Image
    if int(PIL.__version__.split('.')[0]) >= 13:
        sys.exit(3)  # pass order changed in Pillow 13; see scripts/install-deps
    mode, w, h, ow, oh, x0, y0, x1, y1, path, name = sys.argv[1:]
    data = open(path, 'rb').read()
    im = Image.frombytes(mode, (int(w), int(h)), data)
    filt = getattr(Image.Resampling, name.upper())
    out = im.resize((int(ow), int(oh)), filt, box=(float(x0), float(y0), float(x1), float(y1)))
    sys.stdout.buffer.write(out.tobytes())
    """

    func pillow(_ image: PixelBuffer, _ rect: SamplingRect, _ size: Size, _ filter: ResampleFilter = .bilinear) throws -> [UInt8] {
        let modes = [1: "L", 2: "LA", 3: "RGB", 4: "RGBA"]
        let path = NSTemporaryDirectory() + "imgscale-pillow-\(getpid()).raw"
        try ImageFile.write(image.pixels, to: path)
        defer { unlink(path) }
        guard let out = Fixtures.python(Self.script, [modes[image.channels]!, "\(image.width)", "\(image.height)",
                                      "\(size.width)", "\(size.height)", "\(rect.x)", "\(rect.y)",
                                      "\(rect.x + rect.width)", "\(rect.y + rect.height)", path, filter.rawValue]) else {
            throw missingReference("python3 with Pillow 10-12 is not available (scripts/install-deps --test installs it)")
        }
        return out
    }

    func check(_ name: String, _ rect: SamplingRect?, _ size: Size, _ filter: ResampleFilter = .bilinear,
               file: StaticString = #filePath, line: UInt = #line) throws {
        let image = try Fixtures.image(name)
        let r = rect ?? SamplingRect(Rect(size: image.size))
        let ours = Resampler.resample(image, from: r, to: size, filter: filter)
        let theirs = try pillow(image, r, size, filter)
        XCTAssertEqual(ours.pixels.count, theirs.count, "\(name) \(size)", file: file, line: line)
        if ours.pixels != theirs {
            let diff = zip(ours.pixels, theirs).map { abs(Int($0) - Int($1)) }
            XCTFail("\(filter) \(name) \(r) -> \(size): \(diff.filter { $0 > 0 }.count) samples differ, max \(diff.max() ?? 0)", file: file, line: line)
        }
    }

    func testShrinkRGB() throws {
        try check("scene-640x427.png", nil, Size(width: 256, height: 171))
        try check("scene-640x427.png", nil, Size(width: 100, height: 100))
        try check("scene-640x427.png", nil, Size(width: 13, height: 7))
        try check("gradient-rgb-odd-37x23.png", nil, Size(width: 5, height: 22))
    }

    func testFillRectsFromThePlan() throws {
        let image = try Fixtures.image("scene-640x427.png")
        for size in [Size(width: 256, height: 256), Size(width: 50, height: 200), Size(width: 300, height: 20)] {
            let rect = try Scaling.plan(source: image.size, target: size)
            try check("scene-640x427.png", SamplingRect(rect), size)
        }
    }

    func testEnlargeAndMixed() throws {
        try check("two-colour-8x8.png", nil, Size(width: 21, height: 13))
        try check("gradient-rgb-odd-37x23.png", nil, Size(width: 80, height: 9))
        try check("strokes-130x90.png", nil, Size(width: 61, height: 200))
        try check("scene-640x427.png", nil, Size(width: 1000, height: 100))
        try check("strokes-130x90.png", nil, Size(width: 300, height: 31))
    }

    func testAlphaIsPremultipliedLikePillow() throws {
        try check("alpha-disc-100x100.png", nil, Size(width: 20, height: 20))
        try check("alpha-disc-100x100.png", nil, Size(width: 33, height: 17))
        try check("alpha-disc-100x100.png", nil, Size(width: 100, height: 40))
        try check("alpha-disc-100x100.png", nil, Size(width: 150, height: 40))
        try check("alpha-disc-100x100.png", nil, Size(width: 150, height: 140))
        try check("gray-alpha-31x29.png", nil, Size(width: 13, height: 11))
        try check("gray-alpha-31x29.png", nil, Size(width: 50, height: 11))
    }

    func testFractionalBoxes() throws {
        try check("scene-640x427.png", SamplingRect(x: 10.5, y: 3.25, width: 300.5, height: 200.75), Size(width: 64, height: 48))
        try check("gradient-rgb-odd-37x23.png", SamplingRect(x: 0.5, y: 0.5, width: 20, height: 10), Size(width: 30, height: 30))
    }

    /// Every filter, byte-identical to Pillow, over L, LA, RGB and RGBA (premultiplied),
    /// shrinking, enlarging and with fractional boxes; nearest keeps pixel art's blocks.
    func testEveryFilterMatchesPillow() throws {
        let cases: [(String, SamplingRect?, Size)] = [
            ("scene-640x427.png", nil, Size(width: 100, height: 67)),
            ("scene-640x427.png", SamplingRect(x: 10.5, y: 3.25, width: 300.5, height: 200.75), Size(width: 64, height: 48)),
            ("gradient-rgb-odd-37x23.png", nil, Size(width: 80, height: 9)),
            ("strokes-130x90.png", nil, Size(width: 61, height: 200)),
            ("two-colour-8x8.png", nil, Size(width: 64, height: 64)),
            ("alpha-disc-100x100.png", nil, Size(width: 33, height: 17)),
            ("alpha-disc-100x100.png", nil, Size(width: 150, height: 140)),
            ("gray-alpha-31x29.png", nil, Size(width: 13, height: 50)),
            ("gray16-33x17.png", nil, Size(width: 7, height: 40)),
            ("palette-trns-20x20.png", nil, Size(width: 9, height: 31)),
        ]
        for filter in ResampleFilter.allCases {
            for (name, rect, size) in cases {
                try check(name, rect, size, filter)
            }
        }
    }

    func testNearestKeepsPixelArtBlocks() throws {
        let art = try Fixtures.image("two-colour-8x8.png")
        let big = Resampler.resample(art, from: SamplingRect(Rect(size: art.size)), to: Size(width: 64, height: 64), filter: .nearest)
        for y in 0..<64 {
            for x in 0..<64 {
                XCTAssertEqual(big[x, y], art[x / 8, y / 8])
            }
        }
    }
}
