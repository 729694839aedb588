import XCTest
import ImageScaler

/// Several outputs over one decoder: the decodes are counted at the decoder itself (a
/// PNG once, a JPEG once per shrink factor), and every output equals its own render.
final class SharedDecodeTests: XCTestCase {
    /// Forwards to a real decoder and counts the decodes started (a split decode, whose
    /// halves the executor runs, counts once).
    struct CountingDecoder: RowDecoder {
        let inner: any RowDecoder
        let count = Locked(0)
        var info: ImageInfo { inner.info }
        var capabilities: DecoderCapabilities { inner.capabilities }

        func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                    begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
            count.withLock { $0 += 1 }
            return try inner.decode(region: region, shrink: shrink, options: options, begin: begin, rows: rows)
        }

        func halves(of region: Rect, shrink: Int, options: DecodeOptions, split: Int, overlap: Int) -> RegionHalves? {
            let h = inner.halves(of: region, shrink: shrink, options: options, split: split, overlap: overlap)
            if h != nil { count.withLock { $0 += 1 } }
            return h
        }
    }

    /// A gradient with stripes, so every tap shows.
    private func scene(_ width: Int, _ height: Int) -> PixelBuffer {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                pixels[i] = UInt8(x * 255 / (width - 1))
                pixels[i + 1] = UInt8(y * 255 / (height - 1))
                pixels[i + 2] = (x / 4 + y / 3) % 2 == 0 ? 230 : 20
            }
        }
        return try! PixelBuffer(width: width, height: height, channels: 3, pixels: pixels)
    }

    private func run(_ data: [UInt8], _ operations: [ImageOperation], as format: ImageFormat, threads: Int,
                     split: Bool = true) throws -> ([RenderResult], decodes: Int) {
        let decoder = CountingDecoder(inner: try ImageFormat.decoder(for: data))
        let plans = try operations.map {
            try RenderPlan($0, info: decoder.info, capabilities: decoder.capabilities, dataBytes: data.count,
                           format: format, autoOrient: true)
        }
        let executor = RenderExecutor(decoder: decoder, plans: plans, options: DecodeOptions(), threads: threads, splitRegions: split)
        let results = try executor.render(plans.map { _ in .init(format: format, encoding: { _ in EncodeOptions() }) }).map { try $0.get() }
        return (results, decoder.count.withLock { $0 })
    }

    func testPNGDecodesOnceForEveryOutput() throws {
        let png = try ImageCodec.encode(scene(900, 600), as: .png)
        let sizes = [Size(width: 450, height: 450), Size(width: 180, height: 180), Size(width: 64, height: 32), Size(width: 20, height: 20)]
        let operations = sizes.map { ImageOperation.fill($0, from: nil, origin: .topLeft, gravity: .centre) }
        for threads in [1, 2] {
            let (results, decodes) = try run(png, operations, as: .png, threads: threads)
            XCTAssertEqual(decodes, 1, "threads \(threads)")
            for (operation, result) in zip(operations, results) {
                var settings = RenderSettings()
                settings.threads = threads
                XCTAssertEqual(result.bytes, try operation.render(png, as: .png, decode: DecodeOptions(), settings: settings).bytes)
            }
        }
    }

    func testJPEGDecodesOncePerShrinkFactor() throws {
        var options = EncodeOptions()
        options.quality = 95
        let jpeg = try ImageCodec.encode(scene(2000, 1500), as: .jpeg, options: options)
        // Widths 1000 and 800 decode at full size, 320 at 1/2, 160 and 150 at 1/4.
        try assertDecodesOncePerFactor(jpeg, widths: [1000, 800, 320, 160, 150], scales: [1, 1, 2, 4, 4])
        // Restart markers: with two threads each pass is split in halves decoded at once.
        let restart = try ImageFile.read(Fixtures.testImages + "/restart-420-4mcu-630x427.jpg")
        try assertDecodesOncePerFactor(restart, widths: [300, 200, 150, 70], scales: [1, 1, 2, 4])
    }

    private func assertDecodesOncePerFactor(_ jpeg: [UInt8], widths: [Int], scales: [Int], line: UInt = #line) throws {
        let operations = widths.map { ImageOperation.fit(Size(width: $0, height: Size.unbounded)) }
        // Each operation rendered alone, once: what every way of sharing must give.
        let alone = try operations.map { try $0.render(jpeg, as: .jpeg).bytes }
        for (threads, split) in [(1, false), (2, false), (2, true)] {
            let (results, decodes) = try run(jpeg, operations, as: .jpeg, threads: threads, split: split)
            XCTAssertEqual(decodes, Set(scales).count, "threads \(threads), split \(split)", line: line)
            XCTAssertEqual(results.map(\.decodeScale), scales, line: line)
            for (i, result) in results.enumerated() {
                XCTAssertEqual(result.bytes, alone[i], "\(operations[i]), threads \(threads), split \(split)", line: line)
            }
        }
    }

    func testTheUnionOfWindowsGivesEachWindowsBytes() throws {
        // Fills from far-apart corners: the shared decode covers both windows and more.
        var options = EncodeOptions()
        options.quality = 95
        let jpeg = try ImageCodec.encode(scene(1200, 900), as: .jpeg, options: options)
        let operations = [
            ImageOperation.fill(Size(width: 100, height: 100), from: Rect(x: 0, y: 0, width: 301, height: 207), origin: .topLeft, gravity: .centre),
            .fill(Size(width: 90, height: 60), from: Rect(x: 811, y: 595, width: 389, height: 305), origin: .topLeft, gravity: .centre),
            .fill(Size(width: 77, height: 77), from: Rect(x: 333, y: 101, width: 413, height: 777), origin: .topLeft, gravity: .south),
        ]
        let (results, decodes) = try run(jpeg, operations, as: .png, threads: 1)
        XCTAssertEqual(decodes, Set(results.map(\.decodeScale)).count)
        for (operation, result) in zip(operations, results) {
            XCTAssertEqual(result.bytes, try operation.render(jpeg, as: .png).bytes, "\(operation)")
        }
    }

    func testPassesGroupByFactorAndUniteWindows() throws {
        let jpeg = try ImageCodec.encode(scene(2000, 1500), as: .jpeg)
        let decoder = try ImageFormat.decoder(for: jpeg)
        let plans = try [1000, 320, 800, 160].map {
            try RenderPlan(.fit(Size(width: $0, height: Size.unbounded)), info: decoder.info, capabilities: decoder.capabilities,
                           dataBytes: jpeg.count, format: .jpeg, autoOrient: true)
        }
        let passes = DecodePass.passes(plans)
        XCTAssertEqual(passes.map(\.shrink), [1, 2, 4])
        XCTAssertEqual(passes.map(\.outputs), [[0, 2], [1], [3]])
        XCTAssertEqual(passes[0].window, Rect(x: 0, y: 0, width: 2000, height: 1500))
    }

    /// While a costlier output has not started, one of two permits is kept for it; once it
    /// has started, or been withdrawn (it failed), cheaper outputs go on.
    func testEncodeGateKeepsAPermitForTheCostliest() {
        let gate = EncodeGate(permits: 2, costs: [0: 100, 1: 50, 2: 1, 3: 1])
        let started = Locked([Int]())
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchGroup()
        func start(_ i: Int, _ body: @escaping @Sendable () -> Void = {}) {
            DispatchQueue.global().async(group: done) { gate.run(index: i) { started.withLock { $0.append(i) }; body() } }
        }
        func waitFor(_ i: Int) -> Bool {
            for _ in 0..<400 where !started.withLock({ $0.contains(i) }) { usleep(5000) }
            return started.withLock { $0.contains(i) }
        }
        start(2) { holding.signal(); release.wait() }
        holding.wait()
        start(3)
        usleep(100_000)
        XCTAssertEqual(started.withLock { $0 }, [2], "the second permit is kept for outputs 0 and 1")
        start(0)
        XCTAssertTrue(waitFor(0), "the costliest takes the kept permit")
        usleep(100_000)
        XCTAssertFalse(started.withLock { $0.contains(3) }, "output 1 has not started: its permit is kept")
        gate.withdraw(1)
        XCTAssertTrue(waitFor(3), "nothing costlier is left to wait for")
        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(started.withLock { $0 }, [2, 0, 3])
    }
}
