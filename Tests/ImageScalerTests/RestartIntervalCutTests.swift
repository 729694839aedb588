import XCTest
import ImageScaler

/// Cutting restart intervals out of the compressed data must change which bytes
/// libjpeg reads, never which pixels a region decode returns.
final class RestartIntervalCutTests: XCTestCase {
    static let restartFiles = ["restart-420-4mcu-630x427.jpg", "restart-422-row-640x427.jpg",
                               "restart-gray-4mcu-640x427.jpg", "restart-444-wrap-640x427.jpg"]

    func data(_ name: String) throws -> [UInt8] {
        try ImageFile.read(Fixtures.testImages + "/" + name)
    }

    func testCutsOnlyWhereIntervalsTileTheRows() throws {
        let middle = Rect(x: 200, y: 150, width: 100, height: 80)
        // 4:2:0, 40 MCUs of 16 px a row, 4 MCUs an interval: columns 192..<320, rows 144..<240.
        let c420 = try XCTUnwrap(RestartIntervalCut(try data("restart-420-4mcu-630x427.jpg"), region: middle, margin: 0))
        XCTAssertEqual(c420.originX, 192)
        XCTAssertEqual(c420.originY, 144)
        XCTAssertEqual(c420.fullSize, Size(width: 630, height: 427))
        XCTAssertEqual(try JPEGCodec.info(c420.data).size, Size(width: 128, height: 96))
        // 4:2:2 (MCUs 8 rows tall), one interval a row: only rows can go, 144..<232.
        let row = try XCTUnwrap(RestartIntervalCut(try data("restart-422-row-640x427.jpg"), region: middle, margin: 0))
        XCTAssertEqual(row.originX, 0)
        XCTAssertEqual(row.originY, 144)
        XCTAssertEqual(try JPEGCodec.info(row.data).size, Size(width: 640, height: 88))
        // Gray: one 8x8 block per MCU, 80 a row, 4 an interval.
        let gray = try XCTUnwrap(RestartIntervalCut(try data("restart-gray-4mcu-640x427.jpg"), region: middle, margin: 3))
        XCTAssertEqual(gray.originX, 192)
        XCTAssertEqual(gray.originY, 144)
        XCTAssertEqual(try JPEGCodec.info(gray.data).size, Size(width: 128, height: 96))
        // The bottom-right corner keeps the partial last MCU column and row.
        let corner = try XCTUnwrap(RestartIntervalCut(try data("restart-420-4mcu-630x427.jpg"), region: Rect(x: 629, y: 426, width: 1, height: 1), margin: 0))
        XCTAssertEqual(corner.originX, 576)
        XCTAssertEqual(corner.originY, 416)
        XCTAssertEqual(try JPEGCodec.info(corner.data).size, Size(width: 54, height: 11))

        // Intervals of 7 MCUs wrap across rows of 80; no markers at all; nothing to leave out.
        XCTAssertNil(RestartIntervalCut(try data("restart-444-wrap-640x427.jpg"), region: middle, margin: 0))
        XCTAssertNil(RestartIntervalCut(try data("scene-640x427.jpg"), region: middle, margin: 0))
        XCTAssertNil(RestartIntervalCut(try data("restart-420-4mcu-630x427.jpg"), region: Rect(x: 0, y: 0, width: 630, height: 427), margin: 0))
    }

    /// A sweep of regions over every layout and scale: region decodes (which cut when
    /// they can) equal a whole decode, except within `cropSlack` of a crop edge.
    func testRegionDecodesEqualWholeDecodes() throws {
        for name in Self.restartFiles {
            let jpeg = try data(name)
            var cuts = 0, decodes = 0
            for shrink in [1, 2, 4, 8] {
                let whole = try JPEGCodec.decode(jpeg, options: DecodeOptions(shrink: shrink)).0
                var regions: [Rect] = []
                for x in stride(from: 0, to: whole.width, by: max(1, whole.width / 5)) {
                    for y in stride(from: 0, to: whole.height, by: max(1, whole.height / 4)) {
                        for (w, h) in [(1, 1), (7, 3), (whole.width / 3, whole.height / 5), (whole.width, 2)] {
                            regions.append(Rect(x: x, y: y, width: max(1, min(w, whole.width - x)), height: max(1, min(h, whole.height - y))))
                        }
                    }
                }
                for region in regions {
                    let full = Rect(x: region.x * shrink, y: region.y * shrink, width: region.width * shrink, height: region.height * shrink)
                    if RestartIntervalCut(jpeg, region: full, margin: 0) != nil { cuts += 1 }
                    decodes += 1
                    try RegionDecodeTests.checkRegionDecode(jpeg, shrink: shrink, region: region, whole: whole, label: name)
                }
            }
            if name.contains("wrap") {
                XCTAssertEqual(cuts, 0)
            } else {
                XCTAssertGreaterThan(cuts, decodes / 2, name)
            }
        }
    }

    /// A region split into halves decoded at once (the executor's two-thread path): the
    /// same region and bytes as one decode, for every layout, scale and a sweep of regions.
    func testParallelHalvesEqualOneDecode() throws {
        var files = Self.restartFiles.map { Fixtures.testImages + "/" + $0 }
        if let dir = try? Fixtures.shared("photos") { files.append(dir + "/street-4032x3024.jpg") }
        for file in files {
            let jpeg = try ImageFile.read(file)
            for shrink in [1, 2, 4, 8] {
                let size = try JPEGCodec.info(jpeg).size
                let (w, h) = ((size.width + shrink - 1) / shrink, (size.height + shrink - 1) / shrink)
                for region in [Rect(x: 0, y: 0, width: w, height: h), Rect(x: w / 4, y: h / 5, width: w / 2, height: h / 2),
                               Rect(x: 1, y: h - 33, width: w - 2, height: 33), Rect(x: w - 3, y: 0, width: 3, height: 32)] {
                    guard region.y >= 0, region.height > 0, region.width > 0 else { continue }
                    let one = try JPEGCodec.decode(jpeg, options: DecodeOptions(shrink: shrink), region: region)
                    let two = try RenderExecutor.collect(JPEGDecoder(jpeg), region: region, shrink: shrink, options: DecodeOptions(), split: true)
                    let label = "\(file.split(separator: "/").last!) 1/\(shrink) \(region)"
                    XCTAssertEqual(one.1, two.1, label)
                    XCTAssertEqual(one.0, two.0, label)
                }
            }
        }
    }

    /// The split row that balances the work halves the compressed bytes of the region's
    /// intervals: the cut above it holds at least as many as the cut below, and one MCU
    /// row higher it would not (give or take the two-byte markers).
    func testBalancedRowHalvesTheCompressedBytes() throws {
        var files = Self.restartFiles.map { Fixtures.testImages + "/" + $0 }
        if let dir = try? Fixtures.shared("photos") { files.append(dir + "/street-4032x3024.jpg") }
        for file in files {
            let jpeg = try ImageFile.read(file)
            let size = try JPEGCodec.info(jpeg).size
            // Intervals that wrap from one MCU row to the next cannot be cut as columns.
            guard let index = RestartIntervalCut.Index(jpeg) else { continue }
            let m = index.mcuHeight
            for region in [Rect(size: size), Rect(x: size.width / 4, y: size.height / 5, width: size.width / 2, height: size.height / 2)] {
                let row = try XCTUnwrap(index.balancedRow(region), "\(file) \(region)")
                let label = "\(file) \(region) split at \(row)"
                XCTAssertEqual(row % m, 0, label)
                XCTAssertGreaterThan(row, region.y, label)
                XCTAssertLessThan(row, region.maxY + m, label)
                func bytes(_ from: Int, _ to: Int) throws -> Int {
                    guard to > from else { return 0 }
                    return try XCTUnwrap(index.cut(Rect(x: region.x, y: from, width: region.width, height: to - from), margin: 0)).data.count
                }
                let start = region.y / m * m, end = min(size.height, (region.maxY + m - 1) / m * m)
                let markers = jpeg.count / 25
                XCTAssertGreaterThanOrEqual(try bytes(start, row) + markers, try bytes(row, end), label)
                if row - m > start {
                    XCTAssertLessThan(try bytes(start, row - m), try bytes(row - m, end) + markers, label)
                }
            }
        }
    }

    /// Damage in either half fails a parallel decode, with libjpeg's words.
    func testParallelHalvesReportDamage() throws {
        let jpeg = try data("restart-420-4mcu-630x427.jpg")
        let region = Rect(x: 0, y: 0, width: 630, height: 427)
        func split(_ data: [UInt8]) throws {
            _ = try RenderExecutor.collect(JPEGDecoder(data), region: region, shrink: 1, options: DecodeOptions(), split: true)
        }
        let markers = (0..<(jpeg.count - 1)).filter { jpeg[$0] == 0xFF && (0xD0...0xD7).contains(jpeg[$0 + 1]) }
        for at in [markers[markers.count / 10], markers[markers.count * 9 / 10]] {
            var broken = jpeg
            // A marker out of sequence: the cut declines, libjpeg decodes the original.
            broken[at + 1] = broken[at + 1] == 0xD7 ? 0xD0 : broken[at + 1] + 1
            XCTAssertThrowsError(try split(broken)) {
                XCTAssertTrue("\($0)".contains("RST"), "\($0)")
            }
            // Garbage inside an interval: the cut is made, and the half holding it fails.
            broken = jpeg
            for i in (at - 24)..<at where broken[i - 1] != 0xFF { broken[i] = 0x00 }
            XCTAssertNotNil(RestartIntervalCut(broken, region: Rect(x: 0, y: 0, width: 630, height: 200), margin: 0))
            XCTAssertThrowsError(try split(broken))
            XCTAssertThrowsError(try JPEGCodec.decode(broken, options: DecodeOptions(), region: region))
            // The render's split, whose bottom part resamples its own band, fails the same way.
            var settings = RenderSettings()
            settings.threads = 2
            XCTAssertThrowsError(try ImageOperation.fit(Size(width: 300, height: 300)).render(broken, as: .png, decode: DecodeOptions(), settings: settings))
        }
    }

    /// The cut declines any stream whose markers are not RST0-7 in order ending at
    /// EOI, and libjpeg then decodes the original and says what is wrong with the rows
    /// it reads (damage below a region is never read, with or without a cut).
    func testDamagedMarkersFallBackToLibjpeg() throws {
        let jpeg = try data("restart-420-4mcu-630x427.jpg")
        let region = Rect(x: 10, y: 400, width: 20, height: 20)
        XCTAssertNotNil(RestartIntervalCut(jpeg, region: region, margin: 0))

        // The last RST marker renumbered.
        var wrongMarker = jpeg
        let last = try XCTUnwrap((0..<(jpeg.count - 1)).last { jpeg[$0] == 0xFF && (0xD0...0xD7).contains(jpeg[$0 + 1]) })
        wrongMarker[last + 1] = wrongMarker[last + 1] == 0xD0 ? 0xD1 : 0xD0
        XCTAssertNil(RestartIntervalCut(wrongMarker, region: region, margin: 0))
        XCTAssertThrowsError(try JPEGCodec.decode(wrongMarker, options: DecodeOptions(), region: region)) {
            XCTAssertTrue("\($0)".contains("RST"), "\($0)")
        }

        // Truncated in the last rows, far below the region.
        let truncated = Array(jpeg[0..<(jpeg.count - 500)])
        XCTAssertNil(RestartIntervalCut(truncated, region: region, margin: 0))
        XCTAssertThrowsError(try JPEGCodec.decode(truncated, options: DecodeOptions(), region: region))

        // A stray marker inside the scan.
        var stray = jpeg
        stray[last + 1] = 0xFE
        XCTAssertNil(RestartIntervalCut(stray, region: region, margin: 0))
    }
}
