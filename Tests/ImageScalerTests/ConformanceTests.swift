import XCTest
import TestReferences
import ImageScaler
import ImageCompare

/// Decoding checked against outside references: PngSuite's reference decodes, djpeg,
/// and IJG's own testorig.ppm. Runs when ../shared/testdata is present.
final class ConformanceTests: XCTestCase {
    func testPngSuiteMatchesReferenceDecodes() throws {
        let dir = try Fixtures.shared("pngsuite")
        let names = Fixtures.files(in: dir + "/png").filter { $0.hasSuffix(".png") && !$0.hasPrefix("x") }
        XCTAssertEqual(names.count, 161)
        var checked = 0
        for name in names {
            let stem = String(name.dropLast(4))
            // 16-bit files have an 8-bit reference in *_to8.json; the plain one is 16-bit.
            let candidates = ["\(dir)/json/\(stem)_to8.json", "\(dir)/json/\(stem).json"]
            guard let jsonPath = candidates.first(where: { access($0, R_OK) == 0 }) else {
                XCTFail("no reference for \(name)"); continue
            }
            var reference = try parseNumbers(try ImageFile.read(jsonPath))
            if reference.contains(where: { $0 > 255 }) {
                // A 16-bit reference with no _to8 variant: round it as png_set_scale_16 does.
                reference = reference.map { ($0 * 255 + 32895) >> 16 }
            }
            let image: PixelBuffer
            do { image = try ImageCodec.decode(try ImageFile.read("\(dir)/png/\(name)")).0 } catch {
                XCTFail("\(name): \(error)"); continue
            }
            let rgba = image.rgba()
            guard rgba.count == reference.count else {
                XCTFail("\(name): \(rgba.count) samples, reference has \(reference.count)"); continue
            }
            var worst = 0
            for i in 0..<rgba.count {
                // Fully transparent pixels carry no colour in the reference convention.
                if reference[i - i % 4 + 3] == 0 && rgba[i - i % 4 + 3] == 0 { continue }
                worst = max(worst, abs(Int(rgba[i]) - reference[i]))
            }
            XCTAssertLessThanOrEqual(worst, 1, "\(name) differs from the reference by \(worst)")
            checked += 1
        }
        XCTAssertEqual(checked, 161)
    }

    func testCorruptPngSuiteFilesAreRefused() throws {
        let dir = try Fixtures.shared("pngsuite/png")
        let names = Fixtures.files(in: dir).filter { $0.hasPrefix("x") && $0.hasSuffix(".png") }
        XCTAssertEqual(names.count, 14)
        for name in names {
            XCTAssertThrowsError(try ImageCodec.decode(try ImageFile.read("\(dir)/\(name)")), name)
        }
    }

    func testTestorigMatchesDjpegExactlyAndIJGWithin3() throws {
        let dir = try Fixtures.shared("jpeg")
        let ours = try ImageCodec.decode(try ImageFile.read(dir + "/testorig.jpg")).0
        let ppm = Fixtures.pnm(try ImageFile.read(dir + "/testorig.ppm"))!
        XCTAssertEqual(ours.size, ppm.size)
        XCTAssertLessThanOrEqual(try ImageDifference(ours, ppm).maxDifference, 3)
        guard let djpeg = Fixtures.run(["djpeg", dir + "/testorig.jpg"]).flatMap(Fixtures.pnm) else {
            throw missingReference("djpeg is not installed (scripts/install-deps --test installs it)")
        }
        XCTAssertEqual(ours, djpeg, "byte for byte like djpeg")
    }

    func testOtherJPEGsAgreeWithDjpeg() throws {
        let dir = try Fixtures.shared("jpeg")
        guard Fixtures.run(["djpeg", "-version"]) != nil || Fixtures.run(["which", "djpeg"]) != nil else {
            throw missingReference("djpeg is not installed")
        }
        for name in ["testimgint.jpg", "testimgari.jpg", "gray.jpg", "progressive.jpg", "restart.jpg", "sub444.jpg", "sub422.jpg"] {
            let ours = try ImageCodec.decode(try ImageFile.read("\(dir)/\(name)")).0
            let theirs = Fixtures.pnm(Fixtures.run(["djpeg", "\(dir)/\(name)"])!)!
            XCTAssertEqual(ours.channels, theirs.channels, name)
            XCTAssertGreaterThanOrEqual(try ImageDifference(ours, theirs).psnr, 45, name)
        }
        for denom in [2, 4, 8] {
            let ours = try JPEGCodec.decode(try ImageFile.read(dir + "/testorig.jpg"), options: DecodeOptions(shrink: denom)).0
            let theirs = Fixtures.pnm(Fixtures.run(["djpeg", "-scale", "1/\(denom)", dir + "/testorig.jpg"])!)!
            XCTAssertEqual(ours, theirs, "shrink-on-load 1/\(denom) like djpeg -scale")
        }
    }

    func testCMYKComesOutCloseToTheOriginal() throws {
        let dir = try Fixtures.shared("jpeg")
        let (cmyk, info) = try ImageCodec.decode(try ImageFile.read(dir + "/cmyk.jpg"))
        XCTAssertEqual(info.colorModel, .cmyk)
        let orig = try ImageCodec.decode(try ImageFile.read(dir + "/testorig.jpg")).0
        let psnr = try ImageDifference(cmyk, orig).psnr
        XCTAssertGreaterThan(psnr, 25, "not inverted, colours close: \(psnr) dB")
    }

    func testTwelveBitJPEGIsRefusedClearly() throws {
        let dir = try Fixtures.shared("jpeg")
        XCTAssertThrowsError(try ImageCodec.decode(try ImageFile.read(dir + "/monkey12.jpg"))) {
            XCTAssertTrue("\($0)".contains("12-bit JPEG is not supported"), "\($0)")
        }
    }

    func testPNGToJPEGRoundTrip() throws {
        let dir = try Fixtures.shared("jpeg")
        // monkey16 is a photo. vgl_5674_0098 is dithered pixel art, JPEG's worst case
        // (about 20 dB at 4:2:0): it only has to survive the trip recognisably.
        for (name, minimum) in [("monkey16.png", 35.0), ("vgl_5674_0098.png", 18.0)] {
            let png = try ImageCodec.decode(try ImageFile.read("\(dir)/\(name)")).0
            let back = try ImageCodec.decode(try ImageCodec.encode(png, as: .jpeg, options: {
                var o = EncodeOptions(); o.quality = 90; return o }())).0
            XCTAssertGreaterThanOrEqual(try ImageDifference(png, back).psnr, minimum, name)
        }
    }

    private func parseNumbers(_ bytes: [UInt8]) throws -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(bytes.count / 3)
        var value = -1
        for b in bytes {
            if b >= 48 && b <= 57 {
                value = (value < 0 ? 0 : value * 10) + Int(b - 48)
            } else if value >= 0 {
                out.append(value)
                value = -1
            }
        }
        if value >= 0 { out.append(value) }
        return out
    }
}
