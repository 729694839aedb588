import XCTest
import TestReferences
import Foundation
import ImageScaler

/// The PNG paths that bypass libpng's row handling: the encoder's own filtering and
/// deflate strategy (`png_idat.c`) and the decoder's inflate-aside unfiltering
/// (`png_fast.c`, `png_unfilter.c`). Checked against libpng's decode and Pillow's, and the
/// encoder's sizes against Pillow's zlib level 6 with adaptive filtering.
final class PNGFastPathTests: XCTestCase {
    /// Noise (every filter wins somewhere), a smooth field (Paeth and Average win), and
    /// flat runs, for every channel count.
    static func image(width: Int, height: Int, channels: Int, kind: Int, seed: UInt64 = 1) -> PixelBuffer {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func next() -> UInt8 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    let i = (y * width + x) * channels + c
                    switch kind {
                    case 0: pixels[i] = next()
                    case 1: pixels[i] = UInt8(truncatingIfNeeded: (x * (c + 3) + y * (5 - c)) / 3 + Int(next() % 3))
                    default: pixels[i] = (x / 7 + y / 5) % 3 == 0 ? 200 : UInt8(truncatingIfNeeded: c * 60)
                    }
                }
            }
        }
        return try! PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// PNG's chunk CRC (ISO 3309), bit by bit: test data is small.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    /// libpng's own decode of `png` (no fast path).
    func libpng(_ png: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        _ = try PNGCodec.decodeRows(png, slow: true, begin: { _ in }, rows: { chunk in
            out += UnsafeBufferPointer(start: chunk.pixels, count: chunk.count * chunk.bytesPerRow)
        })
        return out
    }

    /// The fast path's decode, inflating on a lent thread or not.
    func fast(_ png: [UInt8], lent: Bool) throws -> [UInt8] {
        var out: [UInt8] = []
        _ = try PNGCodec.decodeRows(png, thread: lent ? RenderExecutor.lentThread() : nil, begin: { _ in }, rows: { chunk in
            out += UnsafeBufferPointer(start: chunk.pixels, count: chunk.count * chunk.bytesPerRow)
        })
        return out
    }

    func testEncoderRoundTripsThroughLibpngAndTheFastPathAtEverySize() throws {
        for channels in 1...4 {
            for width in [1, 2, 3, 5, 16, 17, 33, 255, 257] {
                for height in [1, 2, 7, 40] {
                    for kind in 0..<3 {
                        let image = Self.image(width: width, height: height, channels: channels, kind: kind)
                        let png = try PNGCodec.encode(image)
                        let label = "\(width)x\(height)x\(channels) kind \(kind)"
                        XCTAssertEqual(try libpng(png), image.pixels, label)
                        XCTAssertEqual(try fast(png, lent: false), image.pixels, label)
                        XCTAssertEqual(try fast(png, lent: true), image.pixels, label)
                    }
                }
            }
        }
    }

    /// A PNG of random filtered rows as stored (any bytes are a valid filtered row),
    /// row y with filter `filters[y % filters.count]`, its zlib stream in stored blocks.
    static func filteredPNG(width: Int, height: Int, channels: Int, filters: [UInt8], seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(filters[y % filters.count])
            for _ in 0..<width * channels {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                raw.append(UInt8(truncatingIfNeeded: state))
            }
        }
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return be32(body.count) + typed + be32(Int(crc32(typed[...])))
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var at = 0
        repeat {
            let n = min(65535, raw.count - at)
            zlib += [at + n == raw.count ? 1 : 0, UInt8(n & 255), UInt8(n >> 8), UInt8(~n & 255), UInt8(~n >> 8 & 255)]
            zlib += raw[at..<at + n]
            at += n
        } while at < raw.count
        var a = 1, b = 0
        for x in raw { a = (a + Int(x)) % 65521; b = (b + a) % 65521 }
        zlib += be32(b << 16 | a)
        let colourType: UInt8 = [1: 0, 2: 4, 3: 2, 4: 6][channels]!
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be32(width) + be32(height) + [8, colourType, 0, 0, 0])
            + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    /// Each filter alone and all five in turn, for every channel count and the widths
    /// around the unfilterer's steps (its last pixel is handled apart): libpng's pixels.
    func testEveryFilterUndoneAsLibpngDoes() throws {
        for channels in 1...4 {
            for width in [1, 2, 3, 4, 5, 8, 15, 16, 17, 31, 100] {
                for filters: [UInt8] in [[0], [1], [2], [3], [4], [0, 1, 2, 3, 4], [4, 3, 1]] {
                    let png = Self.filteredPNG(width: width, height: 9, channels: channels, filters: filters,
                                               seed: UInt64(width * 31 + channels))
                    let label = "\(width) px x\(channels) filters \(filters)"
                    let reference = try libpng(png)
                    XCTAssertEqual(reference.count, width * 9 * channels, label)
                    XCTAssertEqual(try fast(png, lent: false), reference, label)
                    XCTAssertEqual(try fast(png, lent: true), reference, label)
                }
            }
        }
    }

    /// `png` with its zlib stream in new IDAT chunks cut at `cuts` (offsets into the
    /// stream), `extra` bytes put between the deflate data and the Adler-32, and that
    /// off by `checksumError`.
    static func restreamed(_ png: [UInt8], cuts: [Int], extra: [UInt8] = [], checksumError: UInt32 = 0) -> [UInt8] {
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func chunk(_ type: String, _ body: ArraySlice<UInt8>) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return be32(UInt32(body.count)) + typed + be32(crc32(typed[...]))
        }
        var (head, stream, tail) = parts(png)
        let sum = stream.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } ^ checksumError
        stream = stream.dropLast(4) + extra + be32(sum)
        let bounds = [0] + cuts.filter { $0 > 0 && $0 < stream.count } + [stream.count]
        return head + zip(bounds, bounds.dropFirst()).flatMap { chunk("IDAT", stream[$0..<$1]) } + tail
    }

    /// The chunks before the image data, its zlib stream, and the chunks after.
    static func parts(_ png: [UInt8]) -> (head: [UInt8], stream: [UInt8], tail: [UInt8]) {
        var head: [UInt8] = Array(png[0..<8]), stream: [UInt8] = [], tail: [UInt8] = []
        var at = 8
        while at < png.count {
            let length = Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3])
            let type = String(decoding: png[at + 4..<at + 8], as: UTF8.self)
            if type == "IDAT" { stream += png[at + 8..<at + 8 + length] } else if stream.isEmpty { head += png[at..<at + 12 + length] } else { tail += png[at..<at + 12 + length] }
            at += 12 + length
        }
        return (head, stream, tail)
    }

    /// The stream cut into IDAT chunks anywhere: through the zlib header (left to
    /// libpng), through the Adler-32 (which the fast path reads itself, feeding ISA-L
    /// only the deflate data), a byte a chunk; stored blocks and the encoder's Huffman
    /// ones. libpng's pixels on every path. A wrong Adler-32 (summed on the unfiltering
    /// side), or bytes between the deflate data and it, are refused on every path: in
    /// libpng's words where libpng reads that far, as damaged where it stops at the
    /// chunk of the last row.
    func testStreamCutAnywhereAndItsEndChecked() throws {
        let stored = Self.filteredPNG(width: 13, height: 7, channels: 3, filters: [0, 1, 2, 3, 4], seed: 7)
        let coded = try PNGCodec.encode(Self.image(width: 40, height: 30, channels: 4, kind: 1))
        for (name, png) in [("stored", stored), ("coded", coded)] {
            let size = Self.parts(png).stream.count
            var splits: [[Int]] = [[], [1], [2], [3], Array(1..<size)]
            for k in 1...6 { splits.append([size - k]) }
            splits.append([size - 6, size - 3, size - 1])
            for cuts in splits {
                let label = "\(name), IDATs cut at \(cuts.count > 12 ? "every byte" : "\(cuts)") of \(size)"
                let good = Self.restreamed(png, cuts: cuts)
                let reference = try libpng(good)
                XCTAssertEqual(reference, try libpng(png), label)
                XCTAssertEqual(try fast(good, lent: false), reference, label)
                XCTAssertEqual(try fast(good, lent: true), reference, label)
                for (error, extra): (UInt32, [UInt8]) in [(1, []), (0x10000, []), (0, [0]), (0, [UInt8](repeating: 0x55, count: 9))] {
                    let bad = Self.restreamed(png, cuts: cuts, extra: extra, checksumError: error)
                    var expected = "invalid PNG: damaged image data"
                    do { _ = try libpng(bad) } catch { expected = "\(error)" }
                    for lent in [false, true] {
                        XCTAssertThrowsError(try fast(bad, lent: lent), "\(label), error \(error), \(extra.count) extra, lent \(lent)") {
                            XCTAssertEqual("\($0)", expected)
                        }
                    }
                }
            }
        }
    }

    /// Large enough for many chunks of rows and many deflate segments, both strategies.
    func testLargeImagesDecodeTheSameEveryWay() throws {
        for (channels, kind) in [(3, 1), (4, 0), (1, 2), (2, 1)] {
            let image = Self.image(width: 1531, height: 677, channels: channels, kind: kind, seed: UInt64(channels))
            let png = try PNGCodec.encode(image)
            XCTAssertEqual(try libpng(png), image.pixels)
            XCTAssertEqual(try fast(png, lent: false), image.pixels)
            XCTAssertEqual(try fast(png, lent: true), image.pixels)
            XCTAssertEqual(try PNGCodec.encode(image), png, "the same bytes every time")
        }
    }

    /// Pillow, the outside reference, reads what the encoder writes as the same pixels.
    func testPillowReadsTheEncodersFiles() throws {
        let script = """
        import sys
        from PIL import Image
        im = Image.open(sys.argv[1])
        im.load()
        sys.stdout.buffer.write(im.tobytes())
        """
        let path = NSTemporaryDirectory() + "imgscale-pngfast-\(getpid()).png"
        defer { unlink(path) }
        for channels in 1...4 {
            for kind in 0..<3 {
                let image = Self.image(width: 301, height: 97, channels: channels, kind: kind)
                try ImageFile.write(try PNGCodec.encode(image), to: path)
                guard let theirs = Fixtures.python(script, [path]) else {
                    throw missingReference("python3 with Pillow is not available (scripts/install-deps --test installs it)")
                }
                XCTAssertEqual(theirs, image.pixels, "\(channels) channels, kind \(kind)")
            }
        }
    }

    /// Damage the fast path finds on either thread is reported as libpng reports it.
    func testDamageGivesLibpngsMessageOnEveryPath() throws {
        let image = Self.image(width: 400, height: 300, channels: 3, kind: 1)
        let png = try PNGCodec.encode(image)
        // The first IDAT's data, damaged in the middle, with its CRC made right again so
        // that the fast path takes the file and meets the damage while inflating.
        var at = 8
        while String(decoding: png[(at + 4)..<(at + 8)], as: UTF8.self) != "IDAT" {
            at += 12 + Int(png[at]) << 24 + Int(png[at + 1]) << 16 + Int(png[at + 2]) << 8 + Int(png[at + 3])
        }
        let length = Int(png[at]) << 24 + Int(png[at + 1]) << 16 + Int(png[at + 2]) << 8 + Int(png[at + 3])
        for offset in [2, length / 2, length - 3] {
            var bad = png
            for k in 0..<8 where offset + k < length { bad[at + 8 + offset + k] ^= 0x5A }
            let crc = Self.crc32(bad[(at + 4)..<(at + 8 + length)])
            for k in 0..<4 { bad[at + 8 + length + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * k)) }
            var expected = ""
            do { _ = try libpng(bad) } catch { expected = "\(error)" }
            XCTAssertFalse(expected.isEmpty, "libpng finds the damage at \(offset)")
            for lent in [false, true] {
                XCTAssertThrowsError(try fast(bad, lent: lent), "offset \(offset), lent \(lent)") {
                    XCTAssertEqual("\($0)", expected)
                }
            }
        }
    }

    /// Chunks after the image data are libpng's to judge (the fast path does not read
    /// them): a second IHDR there is its error, on every path.
    func testChunksAfterTheImageDataGoToLibpng() throws {
        let png = try PNGCodec.encode(Self.image(width: 50, height: 40, channels: 3, kind: 1))
        let iend = png.count - 12
        var chunk = Array(png[8..<33])  // IHDR: length, type, data, CRC
        chunk[chunk.count - 4..<chunk.count] = [0, 0, 0, 0]
        let crc = Self.crc32(chunk[4..<21])
        for k in 0..<4 { chunk[21 + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * k)) }
        let bad = Array(png[..<iend]) + chunk + Array(png[iend...])
        for lent in [false, true] {
            XCTAssertThrowsError(try fast(bad, lent: lent), "lent \(lent)") {
                XCTAssertTrue("\($0)".contains("IHDR: out of place"), "\($0)")
            }
        }
    }

    /// Pillow's PNG at zlib level 6 with adaptive filtering: the size the encoder must
    /// stay within 5% of.
    func pillowLevel6Size(_ image: PixelBuffer) throws -> Int {
        let script = """
        import io, sys
        from PIL import Image
        mode, w, h, path = sys.argv[1:]
        im = Image.frombytes(mode, (int(w), int(h)), open(path, 'rb').read())
        out = io.BytesIO()
        im.save(out, 'PNG', compress_level=6)
        print(len(out.getvalue()))
        """
        let path = NSTemporaryDirectory() + "imgscale-pngsize-\(getpid()).raw"
        try ImageFile.write(image.pixels, to: path)
        defer { unlink(path) }
        let modes = [1: "L", 2: "LA", 3: "RGB", 4: "RGBA"]
        guard let out = Fixtures.python(script, [modes[image.channels]!, "\(image.width)", "\(image.height)", path]),
              let size = Int(String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw missingReference("python3 with Pillow is not available (scripts/install-deps --test installs it)")
        }
        return size
    }

    /// A screenshot-like image (glyph-like blocks repeated across a flat page, boxes):
    /// run-length deflate would be several times larger here; the encoder must see that.
    func testSyntheticPagesStayWithinFivePercentOfLevel6() throws {
        var page = try PixelBuffer(width: 900, height: 600, channels: 3, pixels: [UInt8](repeating: 242, count: 900 * 600 * 3))
        let glyphs = (0..<12).map { Self.image(width: 6, height: 9, channels: 1, kind: 0, seed: UInt64(40 + $0)).pixels.map { $0 > 150 } }
        var pick = 7
        for line in 0..<40 {
            for slot in 0..<120 {
                pick = (pick * 31 + 11) % 97
                guard pick % 9 != 0 else { continue }
                let glyph = glyphs[pick % 12]
                for y in 0..<9 {
                    for x in 0..<6 where glyph[y * 6 + x] {
                        let i = ((line * 14 + 10 + y) * 900 + slot * 7 + 10 + x) * 3
                        page.pixels[i] = 20; page.pixels[i + 1] = 20; page.pixels[i + 2] = 30
                    }
                }
            }
        }
        for box in 0..<15 {
            let x0 = box * 53 % 700, y0 = box * 37 % 500
            for x in x0..<(x0 + 150) {
                for y in [y0, y0 + 80] { page.pixels[(y * 900 + x) * 3] = 200 }
            }
        }
        let ours = try PNGCodec.encode(page).count, theirs = try pillowLevel6Size(page)
        XCTAssertLessThanOrEqual(Double(ours), Double(theirs) * 1.05, "page: \(ours) vs Pillow level 6 \(theirs)")
        for kind in 1...2 {
            let image = Self.image(width: 700, height: 500, channels: 3, kind: kind)
            let ours = try PNGCodec.encode(image).count, theirs = try pillowLevel6Size(image)
            XCTAssertLessThanOrEqual(Double(ours), Double(theirs) * 1.05, "kind \(kind): \(ours) vs Pillow level 6 \(theirs)")
        }
    }

    /// Real photos, where the run-length strategy is used: within 5% of level 6.
    func testPhotosStayWithinFivePercentOfLevel6() throws {
        let dir = try Fixtures.shared("photos")
        for name in Sweep.sample(Fixtures.files(in: dir).filter { $0.hasSuffix(".jpg") }, every: 2) {
            let (photo, _) = try ImageCodec.decode(try ImageFile.read(dir + "/" + name))
            let image = try ImageOperation.fit(Size(width: 1200, height: 1200)).apply(photo)
            let ours = try PNGCodec.encode(image).count, theirs = try pillowLevel6Size(image)
            XCTAssertLessThanOrEqual(Double(ours), Double(theirs) * 1.05, "\(name): \(ours) vs Pillow level 6 \(theirs)")
        }
    }
}
