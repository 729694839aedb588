import XCTest
import ImageScaler

/// The parts of `--optimize` by hand: the integer DCT against the definition in doubles,
/// the trellis at λ = 0 (plain rounding) and at a λ no coefficient is worth, and the
/// Huffman lengths of known counts.
final class OptimizingJPEGTests: XCTestCase {
    /// 8 x the orthonormal DCT-II of samples scaled by 4 and centred (ITU T.81 A.3.3).
    private func reference(_ s: [Int32]) -> [Double] {
        (0..<64).map { i in
            let (v, u) = (i / 8, i % 8)
            var sum = 0.0
            for y in 0..<8 {
                for x in 0..<8 {
                    sum += Double(s[8 * y + x]) / 4 * cos(Double(2 * x + 1) * Double(u) * .pi / 16) * cos(Double(2 * y + 1) * Double(v) * .pi / 16)
                }
            }
            let cu = u == 0 ? 1 / 2.squareRoot() : 1, cv = v == 0 ? 1 / 2.squareRoot() : 1
            return 8 * 0.25 * cu * cv * sum
        }
    }

    /// SplitMix64: the same blocks on every run, so a failure can be repeated.
    private struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func testDCTMatchesTheDefinition() {
        var rng = SeededGenerator(state: 2026)
        var worst = 0.0
        var out = [Int16](repeating: 0, count: 64)
        // A flat block is its DC alone: 255 is 508 at scale 4, DC 8 x 8 x 127 = 8128, within
        // the unit that 13-bit cosines leave (√(1/8) x 2^13 is 2896.3).
        let flat = [Int32](repeating: 508, count: 64)
        ForwardDCT.transform(flat, into: &out)
        XCTAssertLessThanOrEqual(abs(Int(out[0]) - 8128), 1)
        XCTAssertEqual(out[1...].map { abs($0) }.max(), 0)
        // 13-bit cosines and one rounding per pass: within 1.5 units (measured: at most
        // 1.14 over 10^5 random blocks, so a bound of 1.0 failed now and then).
        for _ in 0..<2000 {
            let s = (0..<64).map { _ in Int32.random(in: -512...508, using: &rng) }
            ForwardDCT.transform(s, into: &out)
            let r = reference(s)
            for i in 0..<64 {
                worst = max(worst, abs(Double(out[i]) - r[i]))
                XCTAssertLessThanOrEqual(abs(Double(out[i]) - r[i]), 1.5, "coefficient \(i)")
            }
        }
        XCTAssertGreaterThan(worst, 0.5, "the blocks are random enough to show the rounding")
    }

    func testTrellisAtZeroLambdaRoundsAndAtHugeLambdaKeepsOnlyDC() {
        let table = QuantizationTables.standard(quality: 75).luma
        let counts = [Int](repeating: 10, count: 256)
        let cost = HuffmanCost(counts: counts, codable: HuffmanCost.acSymbols)
        let exact = TrellisQuantizer(table: table, cost: cost, lambda: 0)
        let greedy = TrellisQuantizer(table: table, cost: cost, lambda: 1 << 40)
        var rng = SystemRandomNumberGenerator()
        var a = [Int16](repeating: 0, count: 64), b = a, c = a
        for _ in 0..<500 {
            // Exactly half a step is a tie the trellis may break the other way: none here.
            let block = (0..<64).map { i -> Int16 in
                let v = Int16.random(in: -3000...3000, using: &rng), step = Int16(table[i]) * 8
                return abs(v) % step == step / 2 ? v + 1 : v
            }
            exact.round(block, into: &a)
            exact.quantize(block, into: &b)
            XCTAssertEqual(a, b)
            greedy.quantize(block, into: &c)
            XCTAssertEqual(c[0], a[0])
            XCTAssertEqual(c[1...].map { abs($0) }.max(), 0)
        }
        // Halves round away from zero: table step 8 x 16 at DC (quality 50's Annex K).
        let half = TrellisQuantizer(table: QuantizationTables.standard(quality: 50).luma, cost: cost, lambda: 0)
        var block = [Int16](repeating: 0, count: 64)
        block[0] = 64
        block[1] = -44  // step 8 x 11: -0.5 step
        half.round(block, into: &a)
        XCTAssertEqual(a[0], 1)
        XCTAssertEqual(a[1], -1)
    }

    func testHuffmanLengths() {
        // Counts 1, 1, 2, 4 (each one more than seen): lengths 3, 3, 2, 1.
        var counts = [Int](repeating: 0, count: 256)
        counts[1] = 1; counts[2] = 3
        let cost = HuffmanCost(counts: counts, codable: [0, 0xF0, 1, 2])
        XCTAssertEqual([cost.bits[0], cost.bits[0xF0], cost.bits[1], cost.bits[2]], [3, 3, 2, 1])
    }

    /// A hand-made stream: SOI, two DQT and three DHT segments back to back, an APP
    /// segment between, a scan with a stuffed zero, a restart and fill bytes, then EOI.
    func testTableSegmentsPackWhereTheyMeet() {
        let dqt1: [UInt8] = [0xFF, 0xDB, 0x00, 0x04, 0x00, 0x01]
        let dqt2: [UInt8] = [0xFF, 0xDB, 0x00, 0x05, 0x01, 0x02, 0x03]
        let dht1: [UInt8] = [0xFF, 0xC4, 0x00, 0x03, 0x10]
        let dht2: [UInt8] = [0xFF, 0xC4, 0x00, 0x04, 0x11, 0x12]
        let app: [UInt8] = [0xFF, 0xE1, 0x00, 0x03, 0x7F]
        let sos: [UInt8] = [0xFF, 0xDA, 0x00, 0x03, 0x01, 0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0xFF, 0xFF]
        let file: [UInt8] = [0xFF, 0xD8] + dqt1 + dqt2 + dht1 + app + dht2 + dht1 + sos + dht1 + dht2 + [0xFF, 0xD9]
        let packed = TableSegmentPacking.packed(file)
        let expected: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x07, 0x00, 0x01, 0x01, 0x02, 0x03] + dht1 + app
            + [0xFF, 0xC4, 0x00, 0x05, 0x11, 0x12, 0x10] + Array(sos.dropLast(2)) + [0xFF, 0xC4, 0x00, 0x05, 0x10, 0x11, 0x12, 0xFF, 0xD9]
        XCTAssertEqual(packed, expected)
        // Truncated or foreign input comes back untouched.
        XCTAssertEqual(TableSegmentPacking.packed(Array(file.prefix(9))), Array(file.prefix(9)))
        XCTAssertEqual(TableSegmentPacking.packed([1, 2, 3]), [1, 2, 3])
    }

    /// The trellis and the scan scripts' trials split over threads give one thread's
    /// bytes: a frame small enough that every script writes it whole, one tall enough
    /// that the scripts are tried on sampled rows, and gray.
    func testSameBytesAtAnyThreadCount() throws {
        var random = SeededGenerator(state: 5)
        for (width, height, channels) in [(300, 200, 3), (72, 1100, 3), (200, 150, 1)] {
            // A gradient with noise: most blocks keep several coefficients to weigh.
            let pixels = (0..<width * height * channels).map { i in
                UInt8(truncatingIfNeeded: i % (width * channels) / 3 + i / (width * channels) / 5 + Int(random.next() % 24))
            }
            let image = try PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
            var options = EncodeOptions()
            options.optimize = true
            options.threads = 1
            let one = try ImageFile.encode(image, as: .jpeg, options: options)
            for threads in [2, 3, 16] {
                options.threads = threads
                XCTAssertEqual(try ImageFile.encode(image, as: .jpeg, options: options), one, "\(width)x\(height)x\(channels) at \(threads) threads")
            }
        }
    }
}
