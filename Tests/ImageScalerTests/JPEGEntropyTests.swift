import XCTest
import TestReferences
import ImageScaler

/// imgscale's Huffman decoder in libjpeg's place (jpeg_entropy.c) must leave libjpeg's
/// bytes: on every file cjpeg writes, at every scale, whole and in regions, and on
/// damaged files, where libjpeg takes over the rest of the scan and reports.
final class JPEGEntropyTests: XCTestCase {
    /// The decode's pixels in the region asked for (a decoder may give more around it),
    /// or its error's text.
    struct Outcome: Equatable, CustomStringConvertible {
        var image: PixelBuffer?
        var error: String?

        var description: String {
            guard let image else { return "error: \(error ?? "")" }
            return "\(image.width)x\(image.height)x\(image.channels), sum \(image.pixels.reduce(0) { $0 &+ Int($1) })"
        }
    }

    /// `piped`: Huffman decoding runs ahead on a lent thread, however few the MCUs.
    func decode(_ jpeg: [UInt8], shrink: Int, region: Rect? = nil, libjpegOnly: Bool = false, lenient: Bool = false,
                piped: Bool = false) -> Outcome {
        var options = DecodeOptions(shrink: shrink)
        options.libjpegOnly = libjpegOnly
        if lenient { options.failOn = .none }
        do {
            if piped { options.pipelineMCUs = 1 }
            let (image, at, _) = try JPEGCodec.decode(jpeg, options: options, region: region,
                                                      thread: piped ? RenderExecutor.lentThread() : nil)
            guard let region else { return Outcome(image: image, error: nil) }
            let inside = Rect(x: region.x - at.x, y: region.y - at.y, width: region.width, height: region.height)
            return Outcome(image: try Scaling.crop(image, to: inside), error: nil)
        } catch {
            return Outcome(image: nil, error: "\(error)")
        }
    }

    /// Ours against libjpeg alone at every scale, whole and in regions touching each edge.
    func assertSameAsLibjpeg(_ jpeg: [UInt8], _ name: String, shrinks: [Int] = [1, 2, 4, 8], lenient: Bool = false,
                             file: StaticString = #filePath, line: UInt = #line) {
        // A header libjpeg refuses: then both must refuse the whole image alike.
        let size = (try? JPEGCodec.info(jpeg))?.size ?? Size(width: 1, height: 1)
        for shrink in shrinks {
            let w = (size.width + shrink - 1) / shrink, h = (size.height + shrink - 1) / shrink
            var regions: [Rect?] = [nil]
            if w >= 8, h >= 8 {
                regions += [Rect(x: w / 3, y: h / 4, width: w / 3, height: h / 2), Rect(x: 0, y: 0, width: w / 5 + 1, height: h),
                            Rect(x: w - w / 4 - 1, y: h / 2, width: w / 4 + 1, height: h - h / 2)]
            }
            for region in regions {
                let ours = decode(jpeg, shrink: shrink, region: region, lenient: lenient)
                let theirs = decode(jpeg, shrink: shrink, region: region, libjpegOnly: true, lenient: lenient)
                let piped = decode(jpeg, shrink: shrink, region: region, lenient: lenient, piped: true)
                let place = "\(name) at 1/\(shrink) in \(region.map { "\($0)" } ?? "whole")"
                XCTAssertEqual(ours, theirs, place, file: file, line: line)
                XCTAssertEqual(piped, theirs, "\(place), decoded ahead on a second thread", file: file, line: line)
            }
        }
    }

    func testEveryFileCjpegWritesDecodesAsLibjpegAlone() throws {
        for (name, jpeg) in Sweep.sample(try Fixtures.cjpegVariants(), every: 4) {
            assertSameAsLibjpeg(jpeg, name)
        }
        for name in Fixtures.files(in: Fixtures.testImages) where name.hasSuffix(".jpg") {
            assertSameAsLibjpeg(try ImageFile.read(Fixtures.testImages + "/" + name), name)
        }
    }

    /// Noise at quality 100 puts a value at the last coefficient of most blocks, where
    /// the code after it is the next block's, not a second code of this one: the
    /// decoder's lookup of two codes at once must take only the first there.
    func testBlocksEndingAtTheLastCoefficientDecodeAsLibjpegAlone() throws {
        let (w, h) = (96, 40)
        var ppm = Array("P6\n\(w) \(h)\n255\n".utf8)
        var state: UInt32 = 12345
        for _ in 0 ..< w * h * 3 {
            state = state &* 1_103_515_245 &+ 12345
            ppm.append(UInt8(truncatingIfNeeded: state >> 16))
        }
        let path = NSTemporaryDirectory() + "/entropy-noise-\(getpid()).ppm"
        defer { unlink(path) }
        try ImageFile.write(ppm, to: path)
        for sample in ["1x1", "2x2"] {
            guard let jpeg = Fixtures.run(["cjpeg", "-quality", "100", "-sample", sample, path]) else {
                throw missingReference("cjpeg is not installed (scripts/install-deps --test installs it)")
            }
            assertSameAsLibjpeg(jpeg, "noise at quality 100, \(sample)", shrinks: [1, 4])
        }
    }

    /// Files the fuzzer found a difference in.
    func testFuzzFindingsDecodeAsLibjpegAlone() throws {
        let dir = Fixtures.testImages + "/regressions"
        for name in Fixtures.files(in: dir) where name.hasPrefix("jpeg-") {
            let jpeg = try ImageFile.read(dir + "/" + name)
            for lenient in [false, true] {
                assertSameAsLibjpeg(jpeg, "\(name)\(lenient ? " leniently" : "")", lenient: lenient)
            }
        }
    }

    /// And as djpeg, the outside reference, at full size and at 1/4.
    func testGeneratedFilesEqualDjpeg() throws {
        let path = NSTemporaryDirectory() + "/entropy-\(getpid()).jpg"
        defer { unlink(path) }
        for (name, jpeg) in try Fixtures.cjpegVariants() where name.hasPrefix("333x91") || name.hasPrefix("640x427 2x1") {
            try ImageFile.write(jpeg, to: path)
            for shrink in [1, 4] {
                guard let reference = Fixtures.run(["djpeg", "-scale", "1/\(shrink)", path]).flatMap(Fixtures.pnm) else {
                    throw missingReference("djpeg is not installed (scripts/install-deps --test installs it)")
                }
                XCTAssertEqual(decode(jpeg, shrink: shrink).image, reference, "\(name) at 1/\(shrink)")
            }
        }
    }

    func testSharedJPEGsDecodeAsLibjpegAlone() throws {
        let dir = try Fixtures.shared("jpeg")
        for name in Sweep.sample(Fixtures.files(in: dir).filter { $0.hasSuffix(".jpg") }, every: 2) {
            assertSameAsLibjpeg(try ImageFile.read(dir + "/" + name), name)
        }
        let photos = try Fixtures.shared("photos")
        for name in Sweep.sample(Fixtures.files(in: photos).filter { $0.hasSuffix(".jpg") }, every: 2) {
            assertSameAsLibjpeg(try ImageFile.read(photos + "/" + name), name, shrinks: [2, 4])
        }
    }

    /// A scan far larger than the pages decoded ahead: read whole, the rows match
    /// libjpeg's; read only at the top, the reader stops while the decoding ahead is
    /// waiting for room, and it is stopped before the reader closes.
    func testDecodingAheadOfALargeScanStopsWithTheReader() throws {
        var seed: UInt32 = 11
        let noise = (0..<2048 * 2048 * 3).map { _ -> UInt8 in
            seed = seed &* 1664525 &+ 1013904223
            return UInt8(truncatingIfNeeded: seed >> 24)
        }
        let jpeg = try JPEGCodec.encode(try PixelBuffer(width: 2048, height: 2048, channels: 3, pixels: noise), quality: 95)
        for region in [nil, Rect(x: 0, y: 0, width: 64, height: 16), Rect(x: 1000, y: 600, width: 48, height: 40)] {
            XCTAssertEqual(decode(jpeg, shrink: 1, region: region, piped: true), decode(jpeg, shrink: 1, region: region, libjpegOnly: true),
                           region.map { "\($0)" } ?? "whole")
        }
    }

    /// Damage of every kind, with restart markers and without: the same error, or with
    /// `--fail-on none` the same concealed pixels, as libjpeg alone gives.
    func testDamagedFilesDecodeAndReportAsLibjpegAlone() throws {
        var damaged: [(String, [UInt8])] = []
        var sources = [("restart", try ImageFile.read(Fixtures.testImages + "/restart-422-row-640x427.jpg")),
                       ("plain", try ImageFile.read(Fixtures.testImages + "/scene-640x427.jpg"))]
        if let q100 = try Fixtures.cjpegVariants().first(where: { $0.0 == "640x427 quality 100" }) { sources.append(q100) }
        for (base, jpeg) in sources {
            let scan = try XCTUnwrap((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA }) + 20
            let eoi = jpeg.count - 2
            damaged.append(("\(base) cut at 40%", Array(jpeg[0..<(scan + (eoi - scan) * 2 / 5)])))
            damaged.append(("\(base) cut before EOI", Array(jpeg[0..<eoi])))
            damaged.append(("\(base) cut mid-last byte", Array(jpeg[0..<(eoi - 1)])))
            damaged.append(("\(base) bytes before EOI", Array(jpeg[0..<eoi]) + [0x12, 0x34, 0xFF, 0xD9]))
            var ones = jpeg
            let from = try XCTUnwrap((scan + (eoi - scan) / 2..<eoi).first { jpeg[$0 - 1] != 0xFF && jpeg[$0] != 0xFF })
            for i in stride(from: from, to: from + 40, by: 2) {
                ones[i] = 0xFF
                ones[i + 1] = 0x00
            }
            damaged.append(("\(base) all-ones codes", ones))
            var marker = jpeg
            marker[from] = 0xFF
            marker[from + 1] = 0xD6
            damaged.append(("\(base) stray RST", marker))
            var seed: UInt32 = 7
            for round in 0..<6 {
                var flipped = jpeg
                for _ in 0..<3 {
                    seed = seed &* 1664525 &+ 1013904223
                    let at = scan + Int(seed >> 8) % (eoi - scan)
                    flipped[at] ^= UInt8(truncatingIfNeeded: 1 << (seed % 8))
                }
                damaged.append(("\(base) flipped bits \(round)", flipped))
            }
            let restarts = (scan..<eoi - 1).filter { jpeg[$0] == 0xFF && (0xD0...0xD7).contains(jpeg[$0 + 1]) }
            if restarts.count > 10 {
                let at = restarts[restarts.count / 2]
                var wrong = jpeg
                wrong[at + 1] = 0xD0 + (jpeg[at + 1] - 0xD0 + 3) % 8
                damaged.append(("\(base) wrong RST number", wrong))
                damaged.append(("\(base) byte before RST", Array(jpeg[0..<at]) + [0x5A] + Array(jpeg[at...])))
                damaged.append(("\(base) RST dropped", Array(jpeg[0..<at]) + Array(jpeg[(at + 2)...])))
                damaged.append(("\(base) fill before RST", Array(jpeg[0..<at]) + [0xFF] + Array(jpeg[at...])))
            }
        }
        for (name, jpeg) in damaged {
            for lenient in [false, true] {
                assertSameAsLibjpeg(jpeg, "\(name)\(lenient ? " leniently" : "")", shrinks: [1, 4], lenient: lenient)
            }
        }
        // Some of them must have been refused, and concealed when asked.
        let refused = damaged.filter { decode($0.1, shrink: 4).error != nil }
        XCTAssertGreaterThan(refused.count, damaged.count / 2)
        for (name, jpeg) in refused {
            XCTAssertNotNil(decode(jpeg, shrink: 4, lenient: true).image, name)
        }
    }
}
