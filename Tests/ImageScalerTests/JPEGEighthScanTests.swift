import CJPEGOwnDecoders
import CJPEGShim
import XCTest
import TestReferences
import ImageScaler

/// The 1/8 decoder outside libjpeg must give djpeg -scale 1/8's bytes, on one thread or
/// two wherever the second starts, and leave every file it does not expect to libjpeg.
final class JPEGEighthScanTests: XCTestCase {
    /// The 1/8 image by `JPEGEighthScan` alone, and whether the two threads met; nil
    /// when it declines the file.
    func eighth(_ jpeg: [UInt8], thread: LentThread? = nil, splitFrom: Int? = nil) throws -> (PixelBuffer, Bool)? {
        try jpeg.withUnsafeBufferPointer { buf in
            var raw = cjpeg_info()
            var message = ShimMessage()
            let reader = try XCTUnwrap(message.with { cjpeg_reader_open(buf.baseAddress, buf.count, 0, Int32(CJPEG_SEVERITY_WARNING), &raw, $0, $1) })
            defer { cjpeg_reader_close(reader) }
            var layout = cjpeg_eighth_layout()
            var output = cjpeg_output()
            guard message.with({ cjpeg_reader_start_eighth(reader, &layout, &output, $0, $1) }) == 1,
                  let scan = JPEGEighthScan.make(layout, budget: .max, thread: thread, splitFrom: splitFrom, splitSize: 0) else { return nil }
            var pixels = [UInt8](repeating: 0, count: scan.width * scan.height * scan.channels)
            var state = JPEGEighthScan.RowState()
            try pixels.withUnsafeMutableBufferPointer {
                try scan.rows(0..<scan.height, x: 0, width: scan.width, state: &state, into: $0.baseAddress!)
            }
            return (try PixelBuffer(width: scan.width, height: scan.height, channels: scan.channels, pixels: pixels), scan.met)
        }
    }

    func djpegEighth(_ jpeg: [UInt8]) throws -> PixelBuffer {
        let path = NSTemporaryDirectory() + "/eighth-\(getpid()).jpg"
        try ImageFile.write(jpeg, to: path)
        defer { unlink(path) }
        guard let out = Fixtures.run(["djpeg", "-scale", "1/8", path]).flatMap(Fixtures.pnm) else {
            throw missingReference("djpeg is not installed (scripts/install-deps --test installs it)")
        }
        return out
    }

    func testGeneratedJPEGsEqualDjpegAtOneEighth() throws {
        for (name, jpeg) in Sweep.sample(try Fixtures.cjpegVariants(), every: 4) {
            let reference = try djpegEighth(jpeg)
            let ours = try XCTUnwrap(try eighth(jpeg), "\(name): declined")
            XCTAssertEqual(ours.0, reference, name)
            XCTAssertEqual(try JPEGCodec.decode(jpeg, options: DecodeOptions(shrink: 8)).0, reference, name)
        }
    }

    func testProjectAndSharedJPEGsEqualDjpegAtOneEighth() throws {
        var files = Fixtures.files(in: Fixtures.testImages).filter { $0.hasSuffix(".jpg") }.map { Fixtures.testImages + "/" + $0 }
        var shared = false
        for dir in ["jpeg", "photos", "exif-orientation"] {
            guard let path = try? Fixtures.shared(dir) else { continue }
            shared = true
            files += Fixtures.files(in: path).filter { $0.hasSuffix(".jpg") && $0 != "monkey12.jpg" }.map { path + "/" + $0 }
        }
        var fast = 0
        for file in files {
            let jpeg = try ImageFile.read(file)
            let reference = try djpegEighth(jpeg)
            if let ours = try eighth(jpeg) {
                fast += 1
                XCTAssertEqual(ours.0, reference, file)
            }
            XCTAssertEqual(try JPEGCodec.decode(jpeg, options: DecodeOptions(shrink: 8)).0, reference, file)
        }
        // Everything but progressive, arithmetic and CMYK files takes the fast path.
        XCTAssertGreaterThanOrEqual(fast, files.count - (shared ? 4 : 0))
        if !shared { try partlyMissing("../shared/testdata is not present; only TestImages were compared at 1/8") }
    }

    /// The second thread may begin anywhere: inside a code, between an FF and its 00,
    /// just before a restart marker. The result never changes, and the threads meet.
    func testSecondThreadGivesTheSameBytesFromAnyStart() throws {
        let thread = RenderExecutor.lentThread()
        var tried = 0, met = 0
        for (name, jpeg) in try Fixtures.cjpegVariants() where name.hasPrefix("640x427") {
            let (whole, _) = try XCTUnwrap(try eighth(jpeg), name)
            let scan = try XCTUnwrap((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
            // Where the second starts: anywhere but the last bytes, which hold too few MCUs.
            for k in 1..<24 {
                let from = (jpeg.count - scan) * k / 26 + k
                let (split, together) = try XCTUnwrap(try eighth(jpeg, thread: thread, splitFrom: from), "\(name) from \(from)")
                XCTAssertEqual(split, whole, "\(name) from \(from)")
                tried += 1
                met += together ? 1 : 0
                if !together { print("no meeting: \(name) from \(from) of \(jpeg.count)") }
            }
        }
        XCTAssertGreaterThan(met, tried * 9 / 10, "the threads met in \(met) of \(tried) splits")
    }

    /// A file large enough for the decode to take a second thread: the lower rows come
    /// from the second thread's records, made on the lent thread from where the two met,
    /// over the whole image and over regions.
    func testLentThreadDecodesEqualDjpegAndRegionsEqualCrops() throws {
        let thread = RenderExecutor.lentThread()
        let ppm = NSTemporaryDirectory() + "/eighth-noise-\(getpid()).ppm"
        defer { unlink(ppm) }
        let (w, h) = (1600, 1200)
        var noise = Array("P6\n\(w) \(h)\n255\n".utf8)
        var seed: UInt32 = 12345
        for i in 0..<(w * h * 3) {
            seed = seed &* 1664525 &+ 1013904223
            // Smooth where it is not noisy, so the rows differ in their cost.
            noise.append(i / (w * 3) < h / 3 ? UInt8(truncatingIfNeeded: seed >> 24) : UInt8(truncatingIfNeeded: i / 97))
        }
        try ImageFile.write(noise, to: ppm)
        for restart in [[], ["-restart", "1"]] {
            let jpeg = try XCTUnwrap(Fixtures.run(["cjpeg", "-quality", "95"] + restart + [ppm]), "cjpeg")
            XCTAssertGreaterThan(jpeg.count, 1 << 18)
            let reference = try djpegEighth(jpeg)
            func decode(_ region: Rect?) throws -> (PixelBuffer, Rect) {
                var collector = RowCollector()
                let options = DecodeOptions(shrink: 8)
                _ = try JPEGCodec.decodeRows(jpeg, options: options, region: region, restarts: RestartIntervalCut.Index(jpeg),
                                             thread: thread, begin: { collector.begin($0) }, rows: { collector.add($0) })
                return (collector.image, collector.region.rect)
            }
            XCTAssertEqual(try decode(nil).0, reference, "\(restart)")
            for region in [Rect(x: 0, y: 0, width: 200, height: 150), Rect(x: 17, y: 33, width: 150, height: 100),
                           Rect(x: 0, y: 70, width: 200, height: 80)] {
                let (part, at) = try decode(region)
                XCTAssertEqual(part, try Scaling.crop(reference, to: at), "\(restart) \(region)")
                XCTAssertEqual(at.intersection(region), region, "\(restart) \(region): \(at)")
            }
        }
    }

    /// Whatever the decoder does not expect, libjpeg decodes instead and reports.
    func testDamagedDataIsLeftToLibjpeg() throws {
        let jpeg = try ImageFile.read(Fixtures.testImages + "/scene-640x427.jpg")
        let scanStart = try XCTUnwrap((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        XCTAssertNotNil(try eighth(jpeg))
        let thread = RenderExecutor.lentThread()
        var broken: [(String, [UInt8])] = [("truncated", Array(jpeg[0..<(jpeg.count * 2 / 3)])),
                                           ("no EOI", Array(jpeg[0..<(jpeg.count - 2)]))]
        // Stuffed FF bytes: all ones, which no Huffman code is.
        var garbage = jpeg
        let from = try XCTUnwrap((jpeg.count / 2..<jpeg.count).first { jpeg[$0 - 1] != 0xFF })
        for i in stride(from: from, to: from + 64, by: 2) {
            garbage[i] = 0xFF
            garbage[i + 1] = 0x00
        }
        broken.append(("garbage", garbage))
        var marker = jpeg
        marker[scanStart + 400] = 0xFF
        marker[scanStart + 401] = 0xD3
        broken.append(("stray marker", marker))
        for (name, data) in broken {
            XCTAssertNil(try eighth(data), name)
            XCTAssertNil(try eighth(data, thread: thread, splitFrom: data.count / 2), name)
            XCTAssertThrowsError(try JPEGCodec.decode(data, options: DecodeOptions(shrink: 8)), name) {
                XCTAssertTrue("\($0)".contains("JPEG"), "\(name): \($0)")
            }
            // Decoded anyway when asked to, as libjpeg does.
            var lenient = DecodeOptions(shrink: 8)
            lenient.failOn = .none
            XCTAssertEqual(try JPEGCodec.decode(data, options: lenient).0.size, Size(width: 80, height: 54), name)
        }
    }
}
