import XCTest
import TestReferences
import ImageScaler
import ImageCompare

final class ShrinkOnLoadTests: XCTestCase {
    func testFactorLeavesTwiceTheTarget() {
        XCTAssertEqual(ShrinkOnLoad.factor(sampling: Size(width: 3024, height: 3024), into: Size(width: 256, height: 256)), 4)
        XCTAssertEqual(ShrinkOnLoad.factor(sampling: Size(width: 4096, height: 4096), into: Size(width: 256, height: 256)), 8)
        XCTAssertEqual(ShrinkOnLoad.factor(sampling: Size(width: 1000, height: 1000), into: Size(width: 256, height: 256)), 1)
        XCTAssertEqual(ShrinkOnLoad.factor(sampling: Size(width: 1024, height: 1024), into: Size(width: 256, height: 256)), 2)
        XCTAssertEqual(ShrinkOnLoad.factor(sampling: Size(width: 4000, height: 300), into: Size(width: 100, height: 100)), 1)
    }

    /// The thumbnail made through shrink-on-load against a full-resolution decode
    /// resampled with the same triangle filter over the same rect.
    func testQualityHoldsAgainstFullResolution() throws {
        let dir = try Fixtures.shared("photos")
        for name in Sweep.sample(Fixtures.files(in: dir).filter { $0.hasSuffix(".jpg") }, every: 2) {
            let data = try ImageFile.read(dir + "/" + name)
            for size in [Size(width: 256, height: 256), Size(width: 200, height: 120)] {
                let operation = ImageOperation.fill(size, from: nil, origin: .topLeft, gravity: .centre)
                let (fast, info) = try operation.perform(on: data)
                let full = Orienter.upright(try JPEGCodec.decode(data).0, info.orientation)
                let reference = try Scaling.scaleToFill(full, in: size)
                let psnr = try ImageDifference(fast, reference).psnr
                print("shrink-on-load \(name) \(size): PSNR \(psnr) dB")
                XCTAssertGreaterThanOrEqual(psnr, 40, "\(name) \(size): \(psnr) dB")
            }
        }
    }

    func testReducedSamplingRectFollowsOrientation() throws {
        // An odd-sized JPEG in every orientation: shrink-on-load must land on the same
        // content as a full decode, whichever axes the orientation reverses.
        let base = try Fixtures.image("scene-640x427.png")
        let odd = try Scaling.crop(base, to: Rect(x: 0, y: 0, width: 613, height: 419))
        let jpeg = try JPEGCodec.encode(odd, quality: 95)
        for orientation in Orientation.allCases {
            let stored = Orienter.upright(odd, inverse(orientation))
            let bytes = try withOrientation(try JPEGCodec.encode(stored, quality: 95), orientation)
            let operation = ImageOperation.fill(Size(width: 40, height: 40), from: nil, origin: .topLeft, gravity: .centre)
            let (fast, _) = try operation.perform(on: bytes)
            let (reference, _) = try operation.perform(on: jpeg)
            XCTAssertGreaterThan(try ImageDifference(fast, reference).psnr, 35, "\(orientation)")
        }
    }

    private func inverse(_ o: Orientation) -> Orientation {
        switch o {
        case .right: return .left
        case .left: return .right
        default: return o
        }
    }

    /// Inserts an APP1 Exif block with the given orientation after SOI.
    func withOrientation(_ jpeg: [UInt8], _ o: Orientation) throws -> [UInt8] {
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(o.rawValue), 0, 0, 0, 0, 0, 0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg[2...]
    }
}

final class RegionDecodeTests: XCTestCase {
    /// Decoding a region must give exactly the pixels of a whole decode there.
    func testRegionEqualsTheSamePixelsOfAWholeDecode() throws {
        var files = [Fixtures.testImages + "/scene-640x427.jpg", Fixtures.testImages + "/gradient-rgb-64x48.jpg"]
            + RestartIntervalCutTests.restartFiles.map { Fixtures.testImages + "/" + $0 }
        if let dir = try? Fixtures.shared("jpeg") {
            files += ["testorig.jpg", "testimgint.jpg", "testimgari.jpg", "gray.jpg", "cmyk.jpg", "restart.jpg",
                      "sub444.jpg", "sub422.jpg", "progressive.jpg"].map { dir + "/" + $0 }
        }
        // A camera photo with restart markers every 4 MCUs: region decodes cut them.
        if let dir = try? Fixtures.shared("photos") { files.append(dir + "/street-4032x3024.jpg") }
        for file in Sweep.sample(files, every: 3) {
            let data = try ImageFile.read(file)
            for shrink in [1, 2, 4, 8] {
                let whole = try JPEGCodec.decode(data, options: DecodeOptions(shrink: shrink)).0
                for region in [Rect(x: 0, y: 0, width: whole.width, height: whole.height),
                               Rect(x: whole.width / 3, y: whole.height / 4, width: max(1, whole.width / 3), height: max(1, whole.height / 2)),
                               Rect(x: whole.width - 1, y: whole.height - 1, width: 1, height: 1),
                               Rect(x: 1, y: 5 % whole.height, width: max(1, whole.width - 2), height: 1)] {
                    try Self.checkRegionDecode(data, shrink: shrink, region: region, whole: whole,
                                               label: String(file.split(separator: "/").last!))
                }
            }
        }
    }

    /// Regions reaching outside the image are clipped to it; regions entirely outside,
    /// empty, or absurd are a GeometryError, never a trap.
    func testRegionsOutsideTheImageAreClippedOrRefused() throws {
        for name in ["scene-640x427.jpg", "restart-420-4mcu-630x427.jpg"] {
            let data = try ImageFile.read(Fixtures.testImages + "/" + name)
            for parallel in [false, true] {
                let decoder = try JPEGDecoder(data)
                func decode(_ r: Rect) throws -> (PixelBuffer, Rect, ImageInfo) {
                    try RenderExecutor.collect(decoder, region: r, shrink: 2, options: DecodeOptions(), split: parallel)
                }
                let (w, h) = name.hasPrefix("scene") ? (320, 214) : (315, 214)
                let clipped = try decode(Rect(x: 10, y: 0, width: w - 10, height: 100))
                let outside = try decode(Rect(x: 10, y: -50, width: 5000, height: 150))
                XCTAssertEqual(clipped.1, outside.1, name)
                XCTAssertEqual(clipped.0, outside.0, name)
                let left = try decode(Rect(x: -40, y: h - 60, width: 50, height: 100))
                XCTAssertEqual(left.1.x, 0)
                XCTAssertEqual(left.1.maxY, h)
                for bad in [Rect(x: w, y: 0, width: 5, height: 5), Rect(x: -9, y: -9, width: 5, height: 5), Rect(x: 3, y: 3, width: 0, height: 5),
                            Rect(x: Int.max - 1, y: Int.max - 1, width: Int.max, height: Int.max), Rect(x: Int.min, y: 0, width: 1, height: -7)] {
                    XCTAssertThrowsError(try decode(bad), "\(name) \(bad)") {
                        XCTAssertTrue($0 is GeometryError, "\($0)")
                    }
                }
            }
        }
    }

    /// `crop` of a JPEG decodes only its region; the result must equal cropping the
    /// whole upright decode, in every orientation and either origin.
    func testJPEGCropEqualsCroppingTheWholeImage() throws {
        var files = ["scene-640x427.jpg", "gradient-rgb-64x48.jpg"].map { Fixtures.testImages + "/" + $0 }
            + RestartIntervalCutTests.restartFiles.map { Fixtures.testImages + "/" + $0 }
        if let dir = try? Fixtures.shared("exif-orientation") {
            files += (0...8).flatMap { ["Landscape_\($0).jpg", "Portrait_\($0).jpg"] }.map { dir + "/" + $0 }
        }
        for file in Sweep.sample(files, every: 3) {
            let data = try ImageFile.read(file)
            let (decoded, info) = try ImageCodec.decode(data)
            let upright = Orienter.upright(decoded, info.orientation)
            let (w, h) = (upright.width, upright.height)
            for rect in [Rect(x: w / 3, y: h / 4, width: w / 5 + 1, height: h / 3 + 1), Rect(x: -5, y: -7, width: 20, height: 30),
                         Rect(x: w - 9, y: h - 2, width: 50, height: 50), Rect(x: 0, y: 0, width: w, height: h), Rect(x: 3, y: h / 2, width: w - 6, height: 1)] {
                for origin in [CoordinateOrigin.topLeft, .bottomLeft] {
                    let op = ImageOperation.crop(rect, origin: origin)
                    let (got, _) = try op.perform(on: data)
                    let expected = try Scaling.crop(upright, to: rect, origin: origin)
                    XCTAssertEqual(got, expected, "\(file.split(separator: "/").last!) \(rect) \(origin)")
                }
            }
        }
    }

    /// Decodes `region` of `data` at 1/`shrink` and checks it against `whole`, the whole
    /// image decoded at that scale: rows exactly, columns covering the region.
    static func checkRegionDecode(_ data: [UInt8], shrink: Int, region: Rect, whole: PixelBuffer, label: String,
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        let (part, origin, _) = try JPEGCodec.decode(data, options: DecodeOptions(shrink: shrink), region: region)
        let context = "\(label) 1/\(shrink) \(region)"
        XCTAssertLessThanOrEqual(origin.x, region.x, context, file: file, line: line)
        XCTAssertGreaterThanOrEqual(origin.maxX, region.maxX, context, file: file, line: line)
        XCTAssertEqual(origin.y, region.y, context, file: file, line: line)
        XCTAssertEqual(origin.height, region.height, context, file: file, line: line)
        if let message = interiorMismatch(part, at: origin, of: whole) {
            XCTFail("\(context): \(message)", file: file, line: line)
        }
    }

    /// Where `part` (decoded at `origin`) differs from `whole`, leaving out the pixels
    /// within `ShrinkOnLoad.cropSlack` of a crop edge: fancy upsampling has no neighbour
    /// beyond the edge there, and the window keeps them unread.
    static func interiorMismatch(_ part: PixelBuffer, at origin: Rect, of whole: PixelBuffer) -> String? {
        let k = ShrinkOnLoad.cropSlack
        let left = origin.x == 0 ? 0 : k, top = origin.y == 0 ? 0 : k
        let innerW = origin.width - left - (origin.maxX == whole.width ? 0 : k)
        let innerH = origin.height - top - (origin.maxY == whole.height ? 0 : k)
        guard innerW > 0, innerH > 0 else { return nil }
        let interior = Rect(x: left, y: top, width: innerW, height: innerH)
        guard let got = try? Scaling.crop(part, to: interior),
              let expected = try? Scaling.crop(whole, to: Rect(x: origin.x + left, y: origin.y + top, width: innerW, height: innerH))
        else { return "interior \(interior) out of bounds" }
        guard got != expected else { return nil }
        let d = try! ImageDifference(got, expected)
        return "\(d.differingPixels) pixels differ, max \(d.maxDifference)"
    }

    func testStoredRectRoundTripsEveryOrientation() {
        // A 4x3 stored image; the upright pixel (1,0) of each orientation, by the
        // Orienter's pixel mapping, must be the stored rect storedRect returns.
        let stored = Size(width: 4, height: 3)
        var pixels: [UInt8] = []
        for i in 0..<12 { pixels.append(UInt8(i)) }
        let image = try! PixelBuffer(width: 4, height: 3, channels: 1, pixels: pixels)
        for o in Orientation.allCases {
            let upright = Orienter.upright(image, o)
            for y in 0..<upright.height {
                for x in 0..<upright.width {
                    let r = o.storedRect(SamplingRect(x: Double(x), y: Double(y), width: 1, height: 1), stored: stored)
                    XCTAssertEqual(r.width, 1)
                    XCTAssertEqual(Int(r.y) * 4 + Int(r.x), Int(upright[x, y][0]), "\(o) (\(x),\(y))")
                }
            }
        }
    }

    func testOrienterByHand() {
        // Stored 3x2:  a b c / d e f
        let image = try! PixelBuffer(width: 3, height: 2, channels: 1, pixels: [1, 2, 3, 4, 5, 6])
        let expected: [Orientation: (Int, [UInt8])] = [
            .up: (3, [1, 2, 3, 4, 5, 6]), .upMirrored: (3, [3, 2, 1, 6, 5, 4]),
            .down: (3, [6, 5, 4, 3, 2, 1]), .downMirrored: (3, [4, 5, 6, 1, 2, 3]),
            .leftMirrored: (2, [1, 4, 2, 5, 3, 6]), .right: (2, [4, 1, 5, 2, 6, 3]),
            .rightMirrored: (2, [6, 3, 5, 2, 4, 1]), .left: (2, [3, 6, 2, 5, 1, 4]),
        ]
        for (o, (width, pixels)) in expected {
            let out = Orienter.upright(image, o)
            XCTAssertEqual(out.width, width, "\(o)")
            XCTAssertEqual(out.pixels, pixels, "\(o)")
        }
    }
}
