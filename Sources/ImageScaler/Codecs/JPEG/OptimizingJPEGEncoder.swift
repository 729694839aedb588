import CJPEGShim
import Glibc

/// JPEG from rows, smaller for the same quality (`--optimize`): imgscale transforms the
/// blocks itself (`ForwardDCT`), quantises them by rate and distortion (`TrellisQuantizer`)
/// against Huffman codes fitted to a first rounding of them, and libjpeg writes the
/// coefficients with its own fitted codes, as whichever scan script (`ScanScript`) makes
/// the smallest file. Rows in: gray or RGB, 8 bits, top first; YCbCr out as JFIF
/// defines it. Every coefficient is held until the last row (2 bytes each). The blocks'
/// trellis and the scripts' trials run on `options.threads` threads: each block and
/// each trial is computed alone, so the bytes are the same at any count.
final class OptimizingJPEGEncoder: RowEncoder {
    private let width: Int
    private let height: Int
    private let channels: Int
    private let options: EncodeOptions
    private var planes: [CoefficientPlane]
    /// Luma's sampling factors: the MCU is 8h x 8v pixels.
    private let h: Int
    private let v: Int
    /// The rows of the MCU row being gathered, as Y, Cb and Cr (or gray) times 4, each
    /// row `paddedWidth` long, its end repeating the last pixel; component c from
    /// c x `bandSize` on.
    private let band: UnsafeMutablePointer<Int32>
    private let bandSize: Int
    private let paddedWidth: Int
    private var bandRows = 0
    private var mcuRow = 0

    init(width: Int, height: Int, channels: Int, options: EncodeOptions) throws {
        guard channels == 1 || channels == 3 else { throw EncodeError.failed(.jpeg, "JPEG holds no alpha; \(channels) channels must be flattened first") }
        self.width = width
        self.height = height
        self.channels = channels
        self.options = options
        if channels == 1 {
            (h, v) = (1, 1)
        } else {
            h = options.subsampling == .s444 ? 1 : 2
            v = options.subsampling == .s420 ? 2 : 1
        }
        paddedWidth = (width + 8 * h - 1) / (8 * h) * 8 * h
        planes = [CoefficientPlane(width: width, height: height, h: h, v: v, maxH: h, maxV: v)]
        if channels == 3 {
            for _ in 0..<2 { planes.append(CoefficientPlane(width: width, height: height, h: 1, v: 1, maxH: h, maxV: v)) }
        }
        bandSize = paddedWidth * 8 * v
        band = .allocate(capacity: bandSize * channels)
    }

    deinit { band.deallocate() }

    func write(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        for r in 0..<count {
            let row = rows + r * bytesPerRow
            let at = bandRows * paddedWidth
            let y = band + at
            if channels == 1 {
                for x in 0..<width { y[x] = Int32(row[x]) << 2 }
            } else {
                let cb = y + bandSize, cr = cb + bandSize
                // JFIF's YCbCr, times 4, in 1/65536ths: each row of weights sums to 2^18.
                for x in 0..<width {
                    let red = Int32(row[3 * x]), green = Int32(row[3 * x + 1]), blue = Int32(row[3 * x + 2])
                    let half: Int32 = 32768, offset: Int32 = (512 << 16) &+ 32768
                    let yr: Int32 = 78381 &* red, yg: Int32 = 153879 &* green, yb: Int32 = 29884 &* blue
                    y[x] = (yr &+ yg &+ yb &+ half) >> 16
                    let br: Int32 = -44233 &* red, bg: Int32 = 86839 &* green, bb: Int32 = 131072 &* blue
                    cb[x] = (br &- bg &+ bb &+ offset) >> 16
                    let rr: Int32 = 131072 &* red, rg: Int32 = 109757 &* green, rb: Int32 = 21315 &* blue
                    cr[x] = (rr &- rg &- rb &+ offset) >> 16
                }
            }
            for c in 0..<channels {
                let p = y + c * bandSize
                for x in width..<paddedWidth { p[x] = p[width - 1] }
            }
            bandRows += 1
            if bandRows == 8 * v { transformBand() }
        }
    }

    /// The band's blocks into the planes; a short last band repeats its last row.
    private func transformBand() {
        let rows = 8 * v
        for c in 0..<channels {
            let b = band + c * bandSize
            for r in bandRows..<rows { (b + r * paddedWidth).update(from: b + (bandRows - 1) * paddedWidth, count: paddedWidth) }
        }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 64) { block in
            let samples = block.baseAddress!
            for c in 0..<channels {
                // The geometry apart: holding the plane itself would copy its coefficients on write.
                let (ph, pv, wide, high) = (planes[c].h, planes[c].v, planes[c].blocksWide, planes[c].blocksHigh)
                let (sh, sv) = (h / ph, v / pv)
                let b = band + c * bandSize
                planes[c].coefficients.withUnsafeMutableBufferPointer { out in
                    for by in 0..<pv {
                        let blockRow = mcuRow * pv + by
                        guard blockRow < high else { continue }
                        for bx in 0..<wide {
                            // Each sample the mean of sh x sv pixels, kept at scale 4.
                            for y in 0..<8 {
                                let top = b + (by * 8 + y) * sv * paddedWidth + bx * 8 * sh
                                let s = samples + 8 * y
                                switch (sh, sv) {
                                case (1, 1):
                                    for x in 0..<8 { s[x] = top[x] - 512 }
                                case (2, 1):
                                    for x in 0..<8 { s[x] = (top[2 * x] + top[2 * x + 1] + 1) >> 1 - 512 }
                                default:
                                    let bottom = top + paddedWidth
                                    for x in 0..<8 { s[x] = (top[2 * x] + top[2 * x + 1] + bottom[2 * x] + bottom[2 * x + 1] + 2) >> 2 - 512 }
                                }
                            }
                            ForwardDCT.transform(samples, into: out.baseAddress! + (blockRow * wide + bx) * 64)
                        }
                    }
                }
            }
        }
        bandRows = 0
        mcuRow += 1
    }

    /// What one bit is worth in squared steps of the table, in 1/65536ths (0.053): at
    /// equal SSIM on the camera photos, 0.053 and 0.076 gave files 0.5-1% smaller than
    /// 0.035 at every size and SSIM (most at SSIM 0.93-0.95), 0.053 the smaller of the two
    /// at 256 wide (scripts/jpeg-optimize-study).
    static let lambda: Int64 = 3500
    /// Blocks counted for the first pricing at most: past it every nth block is counted,
    /// which prices the symbols as well at a fraction of the work.
    static let countedBlocks = 1 << 16
    /// The scan scripts are tried on this many MCU rows, evenly spread, when the frame
    /// has four times as many: a 12 MP photo's scripts rank the same on 16 of its 189.
    static let sampledRows = 16

    func finish() throws -> [UInt8] {
        if bandRows > 0 { transformBand() }
        let tables = QuantizationTables.optimized(quality: options.quality ?? JPEGEncoder.defaultQuality)
        let tableOf = (0..<channels).map { $0 == 0 ? tables.luma : tables.chroma }
        // A first rounding, its symbols counted, prices them for the trellis.
        var acCounts = [[Int]](repeating: [Int](repeating: 0, count: 256), count: 2)
        withUnsafeTemporaryAllocation(of: Int16.self, capacity: 64) { scratch in
            for c in 0..<channels {
                let rounder = TrellisQuantizer(table: tableOf[c], cost: HuffmanCost(counts: [Int](repeating: 0, count: 256), codable: []), lambda: 0)
                let count = planes[c].blocksWide * planes[c].blocksHigh
                let stride = max(1, count / OptimizingJPEGEncoder.countedBlocks)
                planes[c].coefficients.withUnsafeBufferPointer { blocks in
                    for b in Swift.stride(from: 0, to: count, by: stride) {
                        rounder.round(blocks.baseAddress! + 64 * b, into: scratch.baseAddress!)
                        OptimizingJPEGEncoder.count(scratch.baseAddress!, into: &acCounts[min(c, 1)])
                    }
                }
            }
        }
        for c in 0..<channels {
            let table = tableOf[c], cost = HuffmanCost(counts: acCounts[min(c, 1)], codable: HuffmanCost.acSymbols)
            let count = planes[c].blocksWide * planes[c].blocksHigh
            planes[c].coefficients.withUnsafeMutableBufferPointer { blocks in
                let base = blocks.baseAddress!
                ParallelLoop.split(count, threads: options.threads, atLeast: OptimizingJPEGEncoder.blocksAThread) { range in
                    let trellis = TrellisQuantizer(table: table, cost: cost, lambda: OptimizingJPEGEncoder.lambda)
                    withUnsafeTemporaryAllocation(of: Int16.self, capacity: 64) { scratch in
                        for b in range {
                            trellis.quantize(base + 64 * b, into: scratch.baseAddress!)
                            (base + 64 * b).update(from: scratch.baseAddress!, count: 64)
                        }
                    }
                }
            }
        }
        let scripts = ScanScript.candidates(components: channels)
        let mcuRows = (height + 8 * v - 1) / (8 * v)
        if mcuRows >= 4 * OptimizingJPEGEncoder.sampledRows {
            // Tried on every nth whole MCU row, then the script that made the smallest
            // sample writes the whole frame.
            let stride = (mcuRows - 1) / OptimizingJPEGEncoder.sampledRows
            let rows = Array(Swift.stride(from: 0, to: mcuRows - 1, by: stride).prefix(OptimizingJPEGEncoder.sampledRows))
            let sample = planes.map { p in
                var s = CoefficientPlane(blocksWide: p.blocksWide, blocksHigh: rows.count * p.v, h: p.h, v: p.v)
                p.coefficients.withUnsafeBufferPointer { from in
                    s.coefficients.withUnsafeMutableBufferPointer { to in
                        for (i, r) in rows.enumerated() {
                            let n = p.blocksWide * p.v * 64
                            (to.baseAddress! + i * n).update(from: from.baseAddress! + r * n, count: n)
                        }
                    }
                }
                return s
            }
            let sizes = try ParallelLoop.each(scripts.count, threads: options.threads) {
                try write(sample, width: width, height: rows.count * 8 * v, tables: tableOf, scans: scripts[$0]).count
            }
            return try write(planes, width: width, height: height, tables: tableOf, scans: scripts[OptimizingJPEGEncoder.first(smallest: sizes)])
        }
        let files = try ParallelLoop.each(scripts.count, threads: options.threads) {
            try write(planes, width: width, height: height, tables: tableOf, scans: scripts[$0])
        }
        return files[OptimizingJPEGEncoder.first(smallest: files.map(\.count))]
    }

    /// Blocks a thread's share of the trellis is worth starting it for (about 0.5 ms).
    static let blocksAThread = 256

    /// The index of the first of the smallest: an earlier script wins a tie.
    private static func first(smallest sizes: [Int]) -> Int {
        var best = 0
        for i in sizes.indices where sizes[i] < sizes[best] { best = i }
        return best
    }


    /// Counts the AC symbols of a quantised block (natural order) as a sequential scan codes them.
    private static func count(_ block: UnsafePointer<Int16>, into counts: inout [Int]) {
        var run = 0
        for k in 1..<64 {
            let value = Int32(block[TrellisQuantizer.zigzag[k]])
            if value == 0 { run += 1; continue }
            while run >= 16 { counts[0xF0] += 1; run -= 16 }
            let m = value < 0 ? -value : value
            counts[run << 4 | (32 - m.leadingZeroBitCount)] += 1
            run = 0
        }
        if run > 0 { counts[0x00] += 1 }
    }

    /// The planes' quantised coefficients as a file, through libjpeg, in `scans`.
    private func write(_ planes: [CoefficientPlane], width: Int, height: Int, tables: [[UInt16]], scans: ScanScript) throws -> [UInt8] {
        var message = ShimMessage()
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var c = cjpeg_coefficients()
        c.components = Int32(channels)
        let p = (0..<3).map { $0 < planes.count ? planes[$0] : nil }
        c.h = (Int32(p[0]?.h ?? 1), Int32(p[1]?.h ?? 1), Int32(p[2]?.h ?? 1))
        c.v = (Int32(p[0]?.v ?? 1), Int32(p[1]?.v ?? 1), Int32(p[2]?.v ?? 1))
        c.width_in_blocks = (UInt32(p[0]?.blocksWide ?? 0), UInt32(p[1]?.blocksWide ?? 0), UInt32(p[2]?.blocksWide ?? 0))
        c.height_in_blocks = (UInt32(p[0]?.blocksHigh ?? 0), UInt32(p[1]?.blocksHigh ?? 0), UInt32(p[2]?.blocksHigh ?? 0))
        c.num_scans = Int32(scans.count)
        let fields = scans.fields
        let status: Int32 = OptimizingJPEGEncoder.with(planes, 0) { b0 in
            OptimizingJPEGEncoder.with(planes, 1) { b1 in
                OptimizingJPEGEncoder.with(planes, 2) { b2 in
                    tables[0].withUnsafeBufferPointer { luma in
                        tables[min(1, channels - 1)].withUnsafeBufferPointer { chroma in
                            fields.withUnsafeBufferPointer { f in
                                c.blocks = (b0, b1, b2)
                                c.quant = (luma.baseAddress, chroma.baseAddress, chroma.baseAddress)
                                c.scans = f.baseAddress
                                return options.withMetadata { i, e, x in
                                    var metadata = cjpeg_metadata(icc: i.baseAddress, icc_length: UInt32(i.count), exif: e.baseAddress,
                                                                  exif_length: UInt32(e.count), xmp: x.baseAddress, xmp_length: UInt32(x.count))
                                    return message.with { cjpeg_write_coefficients(UInt32(width), UInt32(height), &c, &metadata, &out, &size, $0, $1) }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard status == 0, let bytes = out else { throw EncodeError.failed(.jpeg, message.text) }
        defer { cjpeg_free(bytes) }
        return TableSegmentPacking.packed(Array(UnsafeBufferPointer(start: bytes, count: size)))
    }

    /// Plane `i`'s coefficients for C, or nil past the last plane.
    private static func with<T>(_ planes: [CoefficientPlane], _ i: Int, _ body: (UnsafePointer<Int16>?) throws -> T) rethrows -> T {
        guard i < planes.count else { return try body(nil) }
        return try planes[i].coefficients.withUnsafeBufferPointer { try body($0.baseAddress) }
    }
}
