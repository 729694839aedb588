import XCTest
@testable import ImageScaler

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
        for name in Fixtures.files(in: dir) where name.hasSuffix(".jpg") {
            let data = try ImageFile.read(dir + "/" + name)
            for size in [Size(width: 256, height: 256), Size(width: 200, height: 120)] {
                let operation = ImageOperation.fill(size, from: nil, origin: .topLeft, gravity: .centre)
                let (fast, info) = try operation.perform(on: data)
                let full = Orienter.upright(try JPEGCodec.decode(data).0, info.orientation)
                let reference = try ImageScaler.scaleToFill(full, in: size)
                let psnr = ImageDifference(fast, reference).psnr
                print("shrink-on-load \(name) \(size): PSNR \(psnr) dB")
                XCTAssertGreaterThanOrEqual(psnr, 40, "\(name) \(size): \(psnr) dB")
            }
        }
    }

    func testReducedSamplingRectFollowsOrientation() throws {
        // An odd-sized JPEG in every orientation: shrink-on-load must land on the same
        // content as a full decode, whichever axes the orientation reverses.
        let base = try Fixtures.image("scene-640x427.png")
        let odd = try ImageScaler.crop(base, to: Rect(x: 0, y: 0, width: 613, height: 419))
        let jpeg = try JPEGCodec.encode(odd, quality: 95)
        for orientation in Orientation.allCases {
            let stored = Orienter.upright(odd, inverse(orientation))
            let bytes = try withOrientation(try JPEGCodec.encode(stored, quality: 95), orientation)
            let operation = ImageOperation.fill(Size(width: 40, height: 40), from: nil, origin: .topLeft, gravity: .centre)
            let (fast, _) = try operation.perform(on: bytes)
            let (reference, _) = try operation.perform(on: jpeg)
            XCTAssertGreaterThan(ImageDifference(fast, reference).psnr, 35, "\(orientation)")
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
