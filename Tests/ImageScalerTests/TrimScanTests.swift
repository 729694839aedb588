import XCTest
import TestReferences
import ImageScaler

/// `TrimScan`, the box found from the decoder's rows, against `TrimFinder` over the
/// picture decoded whole and upright (itself checked against libvips's find_trim by
/// `TrimTests`): a picture stored in each EXIF orientation, its background grey or white
/// by where the upright top-left pixel lies; every PngSuite file (gray, palette, alpha, 16-bit, interlaced), the EXIF
/// orientation set (the background read from the last stored row for four of them),
/// libjpeg-turbo's images and the shared WebP, HEIC, AVIF and GIF files, at the default
/// threshold and at 40 against a given colour.
final class TrimScanTests: XCTestCase {
    func testRowsGiveTheBoxOfThePictureDecodedWhole() throws {
        let sanitized = ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] != nil
        var files: [String] = []
        // Under the sanitizers every fourth PngSuite file and the orientations alone.
        for sub in sanitized ? ["pngsuite/png", "exif-orientation"] : ["pngsuite/png", "exif-orientation", "jpeg", "formats"] {
            let dir = try Fixtures.shared(sub)
            files += Fixtures.files(in: dir).sorted().enumerated().filter { i, name in
                // The portrait set repeats the landscape one's orientations.
                !name.contains("broken") && !name.hasPrefix("Portrait") && (!sanitized || sub != "pngsuite/png" || i % 4 == 0)
            }.map { dir + "/" + $0.1 }
        }
        // Each orientation of a picture whose border is white below a grey band across
        // the stored top: where the upright top-left pixel lies decides the background.
        let crafted = NSTemporaryDirectory() + "trimscan-\(getpid())"
        try FileManager.default.createDirectory(atPath: crafted, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: crafted) }
        guard Fixtures.python(#"""
            import sys, numpy as np
            from PIL import Image
            a = np.full((90, 140, 3), 255, np.uint8); a[:12] = 120; a[30:55, 85:120] = [200, 20, 30]
            for o in range(1, 9):
                exif = Image.Exif(); exif[0x0112] = o
                Image.fromarray(a).save(sys.argv[1] + "/o%d.jpg" % o, quality=95, exif=exif)
            """#, [crafted]) != nil else { throw missingReference("python3 with Pillow and numpy cannot be started") }
        files += (1...8).map { crafted + "/o\($0).jpg" }
        var compared = 0, orientations = Set<Int>(), unsupported: [String] = [], boxes = Set<String>()
        for file in files {
            // A directory (formats/ref) is passed over; so is a camera's 12 MP file.
            guard let data = try? ImageFile.read(file), data.count < 1 << 20 else { continue }
            guard let decoder = try? ImageFormat.decoder(for: data, options: DecodeOptions()),
                  let (whole, _) = try? ImageOperation.convert.perform(on: data, decode: DecodeOptions()) else { continue }
            for options in [TrimFinder.Options(), TrimFinder.Options(threshold: 40, color: RGBColor(red: 250, green: 250, blue: 250))] {
                let want = TrimFinder.bounds(whole, options: options)
                switch try TrimScan.bounds(decoder, options: options, decode: DecodeOptions(), orientation: decoder.info.orientation) {
                case .box(let got):
                    XCTAssertEqual(got, want, "\(file) \(options)")
                    if file.hasPrefix(crafted) { boxes.insert("\(got)") }
                case .uniform: XCTAssertNil(want, "\(file) \(options)")
                case .unsupported:
                    unsupported.append(file)
                    continue
                }
                compared += 1
                orientations.insert(decoder.info.orientation.rawValue)
            }
        }
        XCTAssertGreaterThan(compared, sanitized ? 60 : 250)
        XCTAssertEqual(orientations.count, 8, "every EXIF orientation compared")
        XCTAssertGreaterThanOrEqual(boxes.count, 6, "the crafted orientations' boxes differ: \(boxes)")
        // CMYK ink alone is decoded whole.
        XCTAssertTrue(Set(unsupported).allSatisfy { $0.hasSuffix("cmyk.jpg") }, "\(Set(unsupported))")
    }
}
