/// The resampler fed one source row at a time, top to bottom, so a decoder can stream
/// into it and an encoder can stream out of it: neither the source nor (before it is
/// complete) the output has to exist whole. Each source row the vertical pass will read
/// is premultiplied (when there is alpha) and horizontally resampled on arrival, while
/// it is in cache, two at a time where they come together (the kernel shares its weight
/// loads between them); each output row is made as soon as its last source row has
/// arrived, so only the last `ring` horizontally resampled rows (a few more than the
/// vertical filter's widest window) are kept. Rows outside the vertical window are
/// ignored.
/// Output equals `Resampler.resample`.
///
/// A resampler may make only a band of the output rows (`outputRows`): two bands over
/// the same region, fed its top and bottom parts, make the rows one would, bit for bit,
/// each reading only the source rows its own windows cover.
///
/// Output rows `outputRows.lowerBound ..< rowsDone` are final, straight-alpha
/// `PixelBuffer` rows and may be read through `outputRow(_:)` from another thread while
/// later rows are being made. A `streamed` resampler keeps only the last
/// `storedRows` of them, in a ring: its caller feeds it with `add(_:take:)` (or adds at
/// most `feedRows` source rows between takings of every finished row), and never asks
/// for `finish`.
package final class RowResampler {
    let source: Size
    let channels: Int
    let target: Size
    /// The output rows this resampler makes.
    let outputRows: Range<Int>
    /// The source rows (from the region's top) they read; others are ignored.
    let rows: Range<Int>
    private let horizontal: ResampleWeights?
    /// `horizontal` for the multiply-add kernel (nil: the plain one).
    private let packed: UnsafeMutablePointer<Int32>?
    private let vertical: ResampleWeights
    private let needV: Bool
    private let tempWidth: Int
    /// Slots in `temp`: window row r lives in slot r % ring until row r + ring arrives.
    /// One more than `taps`, which no window reaches (Pillow's windows are at most
    /// taps - 1 rows), so that a pair's second row never overwrites a row the first one's
    /// output rows read, whatever the windows.
    private let ring: Int
    // Plain allocations, not arrays: a row costs a few nanoseconds of work when the
    // source is one pixel wide, and array access checks cost more than that.
    private let temp: UnsafeMutablePointer<UInt8>
    private let rowPointers: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    private let scratch: UnsafeMutablePointer<UInt8>
    /// One output row's vertical weights, when they are not tabled.
    private let columnWeights: UnsafeMutablePointer<Int32>
    private let weightScratch: UnsafeMutablePointer<Double>
    private let output: UnsafeMutablePointer<UInt8>
    /// Output rows `output` holds: the whole band, or when streamed as many as
    /// `feedRows` source rows can finish; row y sits in slot (y - band start) % storedRows.
    package let storedRows: Int
    /// The most source rows a streamed resampler's caller adds before taking the rows made.
    package static let feedRows = 16
    private var received = 0
    /// One past the last output row finished so far.
    package private(set) var rowsDone: Int

    /// Resamples `rect` (in the image's coordinates) to `target`, fed the rows of
    /// `region`, the part of the image a decoder delivers (the whole image by default);
    /// row numbers given to `add` count from the region's top, pixels from its left.
    convenience init(source: Size, channels: Int, rect: SamplingRect, target: Size, filter: ResampleFilter = .bilinear) {
        self.init(region: Rect(size: source), channels: channels, rect: rect, target: target, filter: filter)
    }

    /// Makes only `band` of the output rows when given.
    package init(region: Rect, channels: Int, rect: SamplingRect, target: Size, filter: ResampleFilter = .bilinear, band: Range<Int>? = nil,
         streamed: Bool = false) {
        precondition(target.width > 0 && target.height > 0, "empty target")
        precondition(rect.width > 0 && rect.height > 0, "empty source rect")
        let (needH, needV) = RowResampler.passes(region: region, rect: rect, target: target)
        self.needV = needV
        let source = region.size
        self.source = source
        self.channels = channels
        self.target = target
        vertical = ResampleWeights(inSize: source.height, offset: region.y, start: rect.y, length: rect.height,
                                   outSize: target.height, filter: filter)
        horizontal = needH ? ResampleWeights(inSize: source.width, offset: region.x, start: rect.x, length: rect.width,
                                             outSize: target.width, filter: filter) : nil
        packed = horizontal.flatMap { Resampler.packWeights($0, channels: channels) }
        // A resample that changes nothing is a copy, as Pillow's resize to its own size:
        // premultiplying there and back would move colour under low alpha.
        premultiplies = (channels == 2 || channels == 4) && filter.premultiplies && (needH || needV)
        let band = band ?? 0..<target.height
        precondition(band.lowerBound >= 0 && band.upperBound <= target.height && !band.isEmpty, "band outside the output")
        outputRows = band
        rowsDone = band.lowerBound
        rows = needV ? RowResampler.sourceRows(of: band, vertical) : band
        tempWidth = needH ? target.width : source.width
        // Output row y reads window rows first[y] ..< first[y] + count[y], count <= taps,
        // and is made as soon as its last row arrives; windows only move down. So when
        // row r arrives, no unmade output row still needs row r - taps.
        ring = needV ? max(1, min(vertical.taps + 1, rows.count)) : 2
        temp = .allocate(capacity: ring * tempWidth * channels)
        rowPointers = .allocate(capacity: ring)
        rowPointers.initialize(repeating: nil, count: ring)
        scratch = .allocate(capacity: channels == 2 || channels == 4 ? 2 * source.width * channels : 1)
        let lazyTaps = needV && !vertical.isTabled ? vertical.taps : 1
        columnWeights = .allocate(capacity: lazyTaps)
        weightScratch = .allocate(capacity: lazyTaps)
        storedRows = streamed ? RowResampler.rowsFinished(byAdding: RowResampler.feedRows, band: band, vertical: needV ? vertical : nil)
                              : band.count
        output = .allocate(capacity: target.width * storedRows * channels)
    }

    /// The most output rows of `band` that `count` consecutive source rows can finish:
    /// those whose windows end among them (windows only move down).
    private static func rowsFinished(byAdding count: Int, band: Range<Int>, vertical: ResampleWeights?) -> Int {
        guard let vertical else { return min(count, band.count) }
        func end(_ y: Int) -> Int { Int(vertical.first[y] + vertical.count[y]) }
        var most = 1, low = band.lowerBound
        for y in band {
            while end(low) <= end(y) - count { low += 1 }
            most = max(most, y - low + 1)
        }
        return most
    }

    deinit {
        output.deallocate()
        packed?.deallocate()
        temp.deallocate()
        rowPointers.deallocate()
        scratch.deallocate()
        columnWeights.deallocate()
        weightScratch.deallocate()
    }

    /// The source rows the windows of output rows `band` cover.
    private static func sourceRows(of band: Range<Int>, _ vertical: ResampleWeights) -> Range<Int> {
        var end = 0
        for y in band { end = max(end, Int(vertical.first[y] + vertical.count[y])) }
        return Int(vertical.first[band.lowerBound])..<end
    }

    /// The first output row whose window reaches source row `row` or below (counted from
    /// the region's top) - where a band fed only the rows above `row` must stop - and the
    /// first source row any later output row reads, from which the band below must be fed.
    package static func split(region: Rect, rect: SamplingRect, target: Size, filter: ResampleFilter, at row: Int) -> (output: Int, from: Int) {
        guard RowResampler.passes(region: region, rect: rect, target: target).vertical else { return (row, row) }
        let v = ResampleWeights(inSize: region.height, offset: region.y, start: rect.y, length: rect.height,
                                outSize: target.height, filter: filter)
        var y = 0
        while y < target.height && Int(v.first[y] + v.count[y]) <= row { y += 1 }
        return (y, y < target.height ? Int(v.first[y]) : row)
    }

    /// Which passes change anything: a pass mapping the whole axis onto the same size
    /// is the identity and is skipped.
    static func passes(region: Rect, rect: SamplingRect, target: Size) -> (horizontal: Bool, vertical: Bool) {
        (target.width != region.width || rect.x != Double(region.x) || rect.width != Double(region.width),
         target.height != region.height || rect.y != Double(region.y) || rect.height != Double(region.height))
    }

    /// Alpha present and the filter weights colour by it (all but nearest).
    private let premultiplies: Bool

    /// Takes source row `y` (top-left origin, straight alpha, `source.width` pixels).
    package func add(row y: Int, _ pixels: UnsafePointer<UInt8>) {
        add(rows: y, count: 1, pixels, bytesPerRow: 0)
    }

    /// Takes source rows `y ..< y + count`, `bytesPerRow` apart from `pixels`.
    package func add(rows y: Int, count: Int, _ pixels: UnsafePointer<UInt8>, bytesPerRow: Int) {
        let from = max(y, rows.lowerBound), to = min(y + count, rows.upperBound)
        var row = from
        while row < to {
            let pair = row + 1 < to && horizontal != nil ? 2 : 1
            // The next pair's rows, fetched while this pair is convolved: read first by the
            // premultiply or opaque check, they would otherwise wait on memory (16 Mpx RGBA:
            // premultiplying took 4.1 ms from memory, 2.2 from cache).
            let next = min(2, to - row - pair)
            convolve(row: row, pair: pair, pixels + (row - y) * bytesPerRow, bytesPerRow: bytesPerRow,
                     ahead: next > 0 ? pixels + (row + pair - y) * bytesPerRow : nil,
                     aheadBytes: next > 0 ? (next - 1) * bytesPerRow + source.width * channels : 0)
            received = row + pair - rows.lowerBound
            row += pair
            emitReadyRows()
        }
    }

    /// Premultiplies and horizontally resamples source row `y` (and `y + 1`, `bytesPerRow`
    /// on, when `pair` is 2) into their ring slots.
    private func convolve(row y: Int, pair: Int, _ pixels: UnsafePointer<UInt8>, bytesPerRow: Int, ahead: UnsafePointer<UInt8>?,
                          aheadBytes: Int) {
        let bytes = source.width * channels
        let out = temp + (y - rows.lowerBound) % ring * tempWidth * channels
        var line = pixels, second = pixels + bytesPerRow
        // An opaque row premultiplied is itself, and photos with an alpha channel are
        // mostly such rows: the check only reads the row (16 Mpx RGBA, all opaque: 23 ms
        // to 21).
        if premultiplies && !AlphaPremultiplier.isOpaque(pixels, pixels: source.width, channels: channels) {
            AlphaPremultiplier.premultiply(pixels, into: scratch, pixels: source.width, channels: channels)
            line = UnsafePointer(scratch)
        }
        if premultiplies && pair == 2 && !AlphaPremultiplier.isOpaque(second, pixels: source.width, channels: channels) {
            AlphaPremultiplier.premultiply(second, into: scratch + bytes, pixels: source.width, channels: channels)
            second = UnsafePointer(scratch + bytes)
        }
        guard let horizontal else {
            out.update(from: line, count: bytes)
            return
        }
        if pair == 2 {
            let out2 = temp + (y + 1 - rows.lowerBound) % ring * tempWidth * channels
            Resampler.convolveRows(line, second, bytes: bytes, into: out, out2, channels: channels, weights: horizontal, packed: packed,
                                   ahead: ahead, aheadBytes: aheadBytes)
        } else {
            Resampler.convolveRow(line, bytes: bytes, into: out, channels: channels, weights: horizontal, packed: packed)
        }
    }

    /// Takes every row of a chunk.
    func add(_ chunk: RowChunk) {
        add(rows: chunk.firstRow, count: chunk.count, chunk.pixels, bytesPerRow: chunk.bytesPerRow)
    }

    /// Takes every row of a chunk, calling `take` after each `feedRows` of them (and at
    /// the end) to take the rows made: how a streamed resampler is fed.
    func add(_ chunk: RowChunk, take: () throws -> Void) rethrows {
        var first = 0
        while first < chunk.count {
            let count = min(RowResampler.feedRows, chunk.count - first)
            add(rows: chunk.firstRow + first, count: count, chunk.pixels + first * chunk.bytesPerRow, bytesPerRow: chunk.bytesPerRow)
            try take()
            first += count
        }
    }

    /// Output row `y`; valid once `rowsDone > y` (when streamed, until `feedRows` more
    /// source rows are added).
    package func outputRow(_ y: Int) -> UnsafePointer<UInt8> {
        UnsafePointer(output + (y - outputRows.lowerBound) % storedRows * target.width * channels)
    }

    /// How many finished rows from `y` on follow one another in memory from `outputRow(y)`.
    package func contiguousRows(from y: Int) -> Int {
        min(rowsDone - y, storedRows - (y - outputRows.lowerBound) % storedRows)
    }

    /// The finished output: this resampler's rows, then `below`'s, which must together
    /// be every row. Every source row of the windows must have been added.
    package func finish(below: RowResampler? = nil) -> PixelBuffer {
        let bands = [self] + (below.map { [$0] } ?? [])
        precondition(bands.allSatisfy { $0.storedRows == $0.outputRows.count }, "a streamed resampler keeps no output")
        precondition(bands.allSatisfy { $0.rowsDone == $0.outputRows.upperBound }, "source rows missing")
        precondition(outputRows.lowerBound == 0 && (below?.outputRows.upperBound ?? outputRows.upperBound) == target.height
                     && below.map { $0.outputRows.lowerBound == outputRows.upperBound } ?? true, "bands do not cover the output")
        let rowBytes = target.width * channels
        let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * target.height) { buf, initialized in
            for band in bands {
                (buf.baseAddress! + band.outputRows.lowerBound * rowBytes).update(from: band.output, count: band.outputRows.count * rowBytes)
            }
            initialized = rowBytes * target.height
        }
        return PixelBuffer(width: target.width, height: target.height, channels: channels, validPixels: pixels)
    }

    /// Makes every output row whose source rows have all arrived.
    private func emitReadyRows() {
        let rowBytes = tempWidth * channels
        while rowsDone < outputRows.upperBound {
            let y = rowsDone
            let out = output + (y - outputRows.lowerBound) % storedRows * rowBytes
            if needV {
                let first = Int(vertical.first[y]) - rows.lowerBound, count = Int(vertical.count[y])
                guard first + count <= received else { return }
                for t in 0..<count { rowPointers[t] = UnsafePointer(temp + (first + t) % ring * rowBytes) }
                if vertical.isTabled {
                    vertical.coefficients.withUnsafeBufferPointer {
                        Resampler.convolveColumn(rowPointers, rowBytes: rowBytes, count: count, weights: $0.baseAddress! + y * vertical.taps, into: out)
                    }
                } else {
                    vertical.weights(y, scratch: weightScratch, into: columnWeights)
                    Resampler.convolveColumn(rowPointers, rowBytes: rowBytes, count: count, weights: columnWeights, into: out)
                }
            } else {
                guard y - rows.lowerBound < received else { return }
                out.update(from: temp + (y - rows.lowerBound) % ring * rowBytes, count: rowBytes)
            }
            if premultiplies { AlphaPremultiplier.unpremultiply(out, pixels: target.width, channels: channels) }
            rowsDone += 1
        }
    }
}
