import XCTest
import ImageScaler
import ImageCompare

final class CodecTests: XCTestCase {
    func testSniffDecidesByContentNotName() {
        XCTAssertEqual(ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]), .png)
        XCTAssertEqual(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]), .jpeg)
        XCTAssertNil(ImageFormat.sniff(Array("hello".utf8)))
        XCTAssertEqual(ImageFormat.fromExtension(of: "a/b.JPEG"), .jpeg)
        XCTAssertEqual(ImageFormat.fromExtension(of: "x.Png"), .png)
        XCTAssertEqual(ImageFormat.fromExtension(of: "x.gif"), .gif)
        XCTAssertEqual(ImageFormat.fromExtension(of: "x.TIF"), .tiff)
        XCTAssertNil(ImageFormat.fromExtension(of: "x.bmp"))
        XCTAssertTrue(ImageFormat.gif.isWritable)
        XCTAssertFalse(ImageFormat.isUnwritableImageExtension(of: "x.GIF"))
        XCTAssertTrue(ImageFormat.isUnwritableImageExtension(of: "x.svg"))
        XCTAssertEqual(ImageFormat.sniff(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)), .webp)
        XCTAssertEqual(ImageFormat.sniff(Array("GIF89a".utf8)), .gif)
        XCTAssertEqual(ImageFormat.sniff([0, 0, 0, 24] + Array("ftypheic\0\0\0\0mif1heic".utf8)), .heic)
        XCTAssertEqual(ImageFormat.sniff([0, 0, 0, 24] + Array("ftypmif1\0\0\0\0mif1avif".utf8)), .avif, "an AV1 compatible brand")
        XCTAssertNil(ImageFormat.sniff([0, 0, 0, 24] + Array("ftypisom\0\0\0\0isomavc1".utf8)), "an MP4 is not an image")
        XCTAssertNil(ImageFormat.fromExtension(of: "dir.png/file"))
    }

    func testPNGRoundTripEveryChannelCount() throws {
        for channels in 1...4 {
            let pixels = (0..<(7 * 5 * channels)).map { UInt8(($0 * 37) & 0xFF) }
            let image = try PixelBuffer(width: 7, height: 5, channels: channels, pixels: pixels)
            for level in [0, 6, 9] {
                let bytes = try PNGCodec.encode(image, compression: level)
                let (back, info) = try ImageCodec.decode(bytes)
                XCTAssertEqual(back, image, "channels \(channels) level \(level)")
                XCTAssertEqual(info.channels, channels)
            }
        }
    }

    func testPNGEncodingIsDeterministic() throws {
        let image = try Fixtures.image("scene-640x427.png")
        XCTAssertEqual(try PNGCodec.encode(image), try PNGCodec.encode(image))
        XCTAssertEqual(try JPEGCodec.encode(image), try JPEGCodec.encode(image))
    }

    func testSixteenBitSamplesAreRoundedNotTruncated() throws {
        let image = try Fixtures.image("gray16-33x17.png")
        for y in 0..<17 {
            for x in 0..<33 {
                let v16 = (x * 2000 + y * 77) % 65536
                // libpng's png_set_scale_16: (v * 255 + 32895) >> 16 rounds v/257.
                let expected = (v16 * 255 + 32895) >> 16
                XCTAssertEqual(Int(image[x, y].first!), expected, "(\(x),\(y)) from \(v16)")
            }
        }
    }

    func testPaletteWithTRNSGainsAlpha() throws {
        let image = try Fixtures.image("palette-trns-20x20.png")
        XCTAssertEqual(image.channels, 4)
        XCTAssertEqual(Array(image[0, 0]), [255, 0, 0, 255])
        XCTAssertEqual(Array(image[5, 0]), [0, 255, 0, 128])
        XCTAssertEqual(Array(image[10, 0]), [0, 0, 255, 0])
    }

    func testGrayAlphaAndGrayStayNarrow() throws {
        XCTAssertEqual(try Fixtures.image("gray-alpha-31x29.png").channels, 2)
        XCTAssertEqual(try Fixtures.image("checker-1px-64x64.png").channels, 1)
    }

    func testJPEGRoundTripIsClose() throws {
        let image = try Fixtures.image("scene-640x427.png")
        let bytes = try JPEGCodec.encode(image, quality: 90)
        let (back, info) = try ImageCodec.decode(bytes)
        XCTAssertEqual(info.format, .jpeg)
        XCTAssertEqual(back.size, image.size)
        XCTAssertGreaterThan(try ImageDifference(image, back).psnr, 35)
    }

    func testJPEGOptionsProduceValidFiles() throws {
        let image = try Fixtures.image("gradient-rgb-64x48.png")
        for sub in ChromaSubsampling.allCases {
            for progressive in [false, true] {
                let bytes = try JPEGCodec.encode(image, quality: 92, progressive: progressive, subsampling: sub)
                let (back, info) = try ImageCodec.decode(bytes)
                XCTAssertEqual(info.interlaced, progressive)
                XCTAssertGreaterThan(try ImageDifference(image, back).psnr, 30, "\(sub) \(progressive)")
            }
        }
    }

    func testGrayJPEGStaysGray() throws {
        let gray = try Fixtures.image("checker-1px-64x64.png")
        let (back, _) = try ImageCodec.decode(try JPEGCodec.encode(gray))
        XCTAssertEqual(back.channels, 1)
    }

    func testAlphaIsFlattenedOntoTheBackgroundForJPEG() throws {
        let image = try PixelBuffer(width: 2, height: 1, channels: 4, pixels: [255, 0, 0, 255, 0, 255, 0, 0])
        let flat = Flattener.flatten(image, onto: RGBColor(hex: "0000ff")!)
        XCTAssertEqual(flat.pixels, [255, 0, 0, 0, 0, 255])
        let half = try PixelBuffer(width: 1, height: 1, channels: 2, pixels: [0, 128])
        XCTAssertEqual(Flattener.flatten(half, onto: .white).pixels, [127])
        var options = EncodeOptions()
        options.background = RGBColor(hex: "000000")!
        let (back, _) = try ImageCodec.decode(try ImageCodec.encode(try Fixtures.image("alpha-disc-100x100.png"), as: .jpeg, options: options))
        XCTAssertEqual(back.channels, 3)
        XCTAssertLessThan(Int(back[1, 1][1]), 10, "transparent corner is black, not hidden green")
    }

    func testICCProfileIsCarried() throws {
        var profile = [UInt8](repeating: 0, count: 200)
        profile[16..<20] = ArraySlice("RGB ".utf8)
        let image = try Fixtures.image("gradient-rgb-64x48.png")
        let jpeg = try JPEGCodec.encode(image, iccProfile: profile)
        XCTAssertEqual(try JPEGCodec.info(jpeg).iccProfile, profile)
        // Profiles bigger than one APP2 segment are split and reassembled.
        let big = profile + [UInt8](repeating: 7, count: 150_000)
        XCTAssertEqual(try JPEGCodec.info(try JPEGCodec.encode(image, iccProfile: big)).iccProfile, big)
    }

    func testBadInputsAreErrorsNotCrashes() throws {
        XCTAssertThrowsError(try ImageCodec.decode([])) { XCTAssertEqual($0 as? DecodeError, .empty) }
        XCTAssertThrowsError(try ImageCodec.decode(Array("just text\n".utf8))) { XCTAssertEqual($0 as? DecodeError, .unknownFormat) }
        let png = try ImageFile.read(Fixtures.testImages + "/scene-640x427.png")
        let jpeg = try ImageFile.read(Fixtures.testImages + "/scene-640x427.jpg")
        for cut in [9, 20, 33, 40, 100, png.count / 2, png.count - 13, png.count - 1] {
            XCTAssertThrowsError(try ImageCodec.decode(Array(png[0..<cut])), "png cut at \(cut)")
        }
        for cut in [3, 20, 200, 700, jpeg.count / 2, jpeg.count - 200] {
            XCTAssertThrowsError(try ImageCodec.decode(Array(jpeg[0..<cut])), "jpeg cut at \(cut)") { error in
                XCTAssertTrue("\(error)".hasPrefix("invalid JPEG"), "\(error)")
            }
        }
        var garbage = Array(png[0..<8])
        var seed: UInt32 = 12345
        for _ in 0..<4000 { seed = seed &* 1103515245 &+ 12345; garbage.append(UInt8(seed >> 24)) }
        XCTAssertThrowsError(try ImageCodec.decode(garbage))
        var flipped = png
        flipped[20] ^= 0xFF  // inside IHDR: its CRC no longer matches
        XCTAssertThrowsError(try ImageCodec.decode(flipped)) { XCTAssertTrue("\(String(describing: $0))".contains("CRC"), "\($0)") }
    }

    func testPixelLimitIsCheckedFromTheHeader() throws {
        let png = try ImageFile.read(Fixtures.testImages + "/scene-640x427.png")
        XCTAssertThrowsError(try ImageCodec.decode(png, options: DecodeOptions(maxPixels: 1000))) {
            XCTAssertEqual($0 as? DecodeError, .tooManyPixels(Size(width: 640, height: 427), limit: 1000))
        }
        XCTAssertNoThrow(try ImageCodec.decode(png, options: DecodeOptions(maxPixels: 0)))
    }

    func testShrinkOnLoadDecodesSmaller() throws {
        let jpeg = try ImageFile.read(Fixtures.testImages + "/scene-640x427.jpg")
        for (shrink, size) in [(1, Size(width: 640, height: 427)), (2, Size(width: 320, height: 214)),
                               (4, Size(width: 160, height: 107)), (8, Size(width: 80, height: 54))] {
            XCTAssertEqual(try JPEGCodec.decode(jpeg, options: DecodeOptions(shrink: shrink)).0.size, size)
        }
    }

    func testCMYKConversion() {
        func convert(_ cmyk: [UInt8], inverted: Bool) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: cmyk.count / 4 * 3)
            out.withUnsafeMutableBufferPointer { ColorStage.cmykToRGB(cmyk, $0.baseAddress!, pixels: cmyk.count / 4, inverted: inverted) }
            return out
        }
        XCTAssertEqual(convert([0, 0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 255], inverted: false), [255, 255, 255, 0, 255, 255, 0, 0, 0])
        XCTAssertEqual(convert([255, 255, 255, 255, 0, 255, 255, 255], inverted: true), [255, 255, 255, 0, 255, 255])
        XCTAssertEqual(convert([0, 0, 0, 128], inverted: false), [127, 127, 127])
    }
}
