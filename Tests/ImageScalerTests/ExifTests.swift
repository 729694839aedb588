import XCTest
import ImageScaler

/// Broken-EXIF cases built by hand: every one must give a reason, never a crash, and a
/// good block must give its orientation.
final class ExifTests: XCTestCase {
    /// A TIFF block with IFD0 holding one orientation entry, big- or little-endian.
    static func block(orientation: Int, bigEndian: Bool = true, thumbnail: [UInt8]? = nil) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
        var b: [UInt8] = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8)
        b += u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)
        guard let thumbnail else { return b + u32(0) }
        let ifd1 = b.count + 4
        b += u32(ifd1)
        let thumbAt = ifd1 + 2 + 2 * 12 + 4
        b += u16(2) + u16(0x0201) + u16(4) + u32(1) + u32(thumbAt) + u16(0x0202) + u16(4) + u32(1) + u32(thumbnail.count) + u32(0)
        return b + thumbnail
    }

    func testGoodBlocksBothByteOrders() {
        for o in Orientation.allCases {
            XCTAssertEqual(try ExifReader.orientation(in: Self.block(orientation: o.rawValue)).get(), o)
            XCTAssertEqual(try ExifReader.orientation(in: Self.block(orientation: o.rawValue, bigEndian: false)).get(), o)
        }
    }

    func testBrokenBlocksGiveReasons() {
        let good = Self.block(orientation: 6)
        var badOrder = good; badOrder[0] = 0x41
        var badMagic = good; badMagic[3] = 43
        var farIFD = good; farIFD[4] = 0x7F
        var loopIFD = good; loopIFD[7] = 0           // IFD0 at offset 0: inside the header
        var manyEntries = good; manyEntries[8] = 0xFF; manyEntries[11] = 0 // 65k entries in 26 bytes, no orientation among those present
        var badType = good; badType[13] = 4           // LONG instead of SHORT
        var badValue = good; badValue[19] = 9
        let cases: [([UInt8], ExifError)] = [
            ([], .truncated), (Array(good[0..<5]), .truncated), (badOrder, .badByteOrder), (badMagic, .badByteOrder),
            (farIFD, .offsetOutOfRange), (loopIFD, .offsetOutOfRange), (Array(good[0..<12]), .truncated),
            (manyEntries, .truncated), (badType, .badOrientationEntry), (badValue, .badOrientationValue(9)),
        ]
        for (block, error) in cases {
            XCTAssertEqual(ExifReader.orientation(in: block), .failure(error), "\(block)")
        }
        // Random garbage of every length never traps.
        var seed: UInt32 = 7
        for n in 0..<300 {
            var junk = [UInt8]()
            for _ in 0..<n { seed = seed &* 1664525 &+ 1013904223; junk.append(UInt8(seed >> 24)) }
            if n > 2 { junk[0] = 0x4D; junk[1] = 0x4D }
            _ = ExifReader.orientation(in: junk)
            _ = ExifEditor.forUprightOutput(junk)
        }
    }

    func testEditorResetsOrientationAndDropsThumbnail() throws {
        let thumb = [UInt8](repeating: 0xAB, count: 500)
        for bigEndian in [true, false] {
            let edited = try XCTUnwrap(ExifEditor.forUprightOutput(Self.block(orientation: 8, bigEndian: bigEndian, thumbnail: thumb)))
            XCTAssertEqual(try ExifReader.orientation(in: edited).get(), .up)
            XCTAssertFalse(edited.contains(0xAB), "thumbnail bytes are gone")
            XCTAssertLessThan(edited.count, 100)
        }
        XCTAssertEqual(String(decoding: ExifEditor.xmpForUprightOutput(Array("<x tiff:Orientation=\"6\"/>".utf8)), as: UTF8.self),
                       "<x tiff:Orientation=\"1\"/>")
    }

    func testBrokenExifInAJPEGIsAWarningNotAFailure() throws {
        let jpeg = try JPEGCodec.encode(try Fixtures.image("gradient-rgb-64x48.png"))
        var bad = Self.block(orientation: 6)
        bad[4] = 0x7F
        let payload = Array("Exif".utf8) + [0, 0] + bad
        let bytes = [0xFF, 0xD8, 0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload + jpeg[2...]
        let info = try JPEGCodec.info(bytes)
        XCTAssertEqual(info.orientation, .up)
        XCTAssertEqual(info.warnings, ["ignoring broken EXIF (EXIF IFD offset points outside the block); orientation 1 assumed"])
        XCTAssertEqual(try ImageCodec.decode(bytes).0.size, Size(width: 64, height: 48))
    }
}
