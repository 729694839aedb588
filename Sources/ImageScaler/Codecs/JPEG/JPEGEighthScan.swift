import CJPEGOwnDecoders
import CJPEGShim
import Glibc

/// A single-scan Huffman JPEG's entropy-coded data decoded at 1/8 by `jpeg_eighth.c`
/// into per-MCU records (DC differences and what the AC terms add to 2x2-scaled
/// chroma), then turned into libjpeg's 1/8 pixels row by row: gray, or RGB in
/// libjpeg's channel order, top row first. Every MCU is decoded before any pixel is
/// made, so data libjpeg would warn about (anything the decoder does not expect) is
/// found first, and the caller lets libjpeg decode instead: `make` returns nil.
///
/// With a lent thread the data is decoded from both ends of its middle at once: the
/// second thread starts after a restart marker near the middle, or without markers at
/// a byte there, not knowing which MCU it is at; the first decodes from the start until
/// it stands at an MCU's start where the second also stood, and from there the two
/// decodes are the same (a Huffman decoder's state at an MCU's start is its bit
/// position), so the second's records are taken for the rest.
///
/// Once made it is not changed, so threads may make rows from it at once.
package final class JPEGEighthScan: @unchecked Sendable {  // immutable once made
    private let layout: UnsafeMutablePointer<cjpeg_eighth_layout>
    private let decoder: OpaquePointer
    private let recordSize: Int
    private let total: Int
    private var records: [Int32] = []
    /// The second thread's records, used from MCU `lowerFirst` on (its `lowerOffset`th).
    private var lower: [Int32] = []
    private var lowerFirst = Int.max
    private var lowerOffset = 0
    /// The DC predictors at the start of MCU `lowerFirst`, from the first thread.
    private var meetingPredictors: [Int32] = [0, 0, 0]

    /// nil when the layout's tables are refused, the records would pass `budget` bytes,
    /// or the data holds anything unexpected.
    /// `splitFrom` is the byte of the data from which the second thread's start is
    /// sought (default: 52% in: the second thread also finds its bearings and grows its
    /// buffers, and so finishes with the first), and the split is tried only on data of
    /// at least `splitSize` bytes.
    package static func make(_ layout: cjpeg_eighth_layout, budget: Int, thread: LentThread?,
                     splitFrom: Int? = nil, splitSize: Int = 1 << 18) -> JPEGEighthScan? {
        let scan = JPEGEighthScan(layout)
        guard let scan else { return nil }
        let bytes = scan.total.multipliedReportingOverflow(by: scan.recordSize * 4)
        // The second thread's records may cover half the image again.
        guard !bytes.overflow, bytes.partialValue / 2 * 3 <= budget else { return nil }
        let from = splitFrom ?? layout.scan_size / 100 * 52
        return scan.decode(thread: layout.scan_size >= splitSize ? thread : nil, from: from) ? scan : nil
    }

    /// Whether the two threads met (for tests: the second thread's work was used).
    package private(set) var met = false

    private init?(_ layout: cjpeg_eighth_layout) {
        self.layout = .allocate(capacity: 1)
        self.layout.initialize(to: layout)
        guard let decoder = cjpeg_eighth_make(self.layout) else {
            self.layout.deallocate()
            return nil
        }
        self.decoder = decoder
        recordSize = Int(cjpeg_eighth_record_size(decoder))
        total = Int(layout.mcus_per_row) * Int(layout.mcu_rows)
    }

    deinit {
        cjpeg_eighth_free(decoder)
        layout.deallocate()
    }

    /// Rows of the 1/8 image, as libjpeg gives them.
    package var width: Int { Int(layout.pointee.out_width) }
    package var height: Int { Int(layout.pointee.out_height) }
    package var channels: Int { Int(layout.pointee.components) }

    private func decode(thread: LentThread?, from: Int) -> Bool {
        guard total > 0 else { return false }
        let decoder = self.decoder, recordSize = self.recordSize, size = total * recordSize
        // Every record is written before it is read.
        records = [Int32](unsafeUninitializedCapacity: size) { _, count in count = size }
        var cursor = cjpeg_eighth_cursor()
        cjpeg_eighth_cursor_start(decoder, &cursor)
        var done = 0
        /// The MCUs from `done` on, by this thread alone; whether the data ends with them.
        func decodeRest() -> Bool {
            let rest = total - done
            done += records.withUnsafeMutableBufferPointer {
                cjpeg_eighth_decode(decoder, &cursor, rest, $0.baseAddress! + done * recordSize, nil, nil, 0)
            }
            return done == total && cjpeg_eighth_at_end(decoder, &cursor) != 0
        }
        // Splitting pays once the data takes milliseconds to decode.
        guard let thread, let start = secondStart(from: from) else { return decodeRest() }
        let scan = UnsafeBufferPointer(start: layout.pointee.scan, count: layout.pointee.scan_size)
        let second = SecondHalf(decoder: decoder, scan: scan, recordSize: recordSize, limit: total, start: start)
        // Its share of the MCUs, by bytes, with room to spare: no copying as it grows.
        let share = min(total, Int(Double(total) * Double(scan.count - start.cursor.pos) / Double(scan.count) * 1.25) + 4096)
        second.reserve(share)
        let work = thread.start { second.run() }
        // A work item may be waited on once only.
        var waited = false
        func join() {
            if !waited { work.wait() }
            waited = true
        }
        defer { join() }
        // To where the second began, then MCU by MCU until both stood at the same place.
        var matched: (mcu: Int, index: Int)? = nil
        var j = 0
        // The predictors, carried while the records just made are in cache: the second
        // thread's rows start from them where the two met.
        var predictors: [Int32] = [0, 0, 0]
        while done < total {
            let position = cjpeg_eighth_position(&cursor)
            if position >= start.position {
                join()
                while j < second.probed && second.positions[j] < position { j += 1 }
                if j == second.probed { break }
                if second.positions[j] == position {
                    matched = (done, j)
                    break
                }
            }
            let step = position >= start.position ? 1 : min(total - done, 64)
            let n = records.withUnsafeMutableBufferPointer {
                let made = $0.baseAddress! + done * recordSize
                let n = cjpeg_eighth_decode(decoder, &cursor, step, made, nil, nil, 0)
                cjpeg_eighth_carry(decoder, made, UInt64(done), UInt64(n), &predictors)
                return n
            }
            done += n
            if n < step { break }
        }
        join()
        // The second decoded on past the last MCU into the padding, or stopped there;
        // the data must end where the last MCU does.
        if let (mcu, index) = matched, index + total - mcu <= second.count, var end = second.cursor(after: index + total - mcu - 1),
           cjpeg_eighth_at_end(decoder, &end) != 0 {
            // Kept where they are: copying them would cost more than the rows they make.
            lower = second.records
            lowerFirst = mcu
            lowerOffset = index
            meetingPredictors = predictors
            met = true
            return true
        }
        // No meeting: the first decodes on alone, as without a second thread.
        return decodeRest()
    }

    /// Where the second thread begins: after the first restart marker past the middle
    /// of the data, or without markers at the middle (never between FF and its 00).
    private func secondStart(from: Int) -> SecondHalf.Start? {
        let l = layout.pointee
        let scan = UnsafeBufferPointer(start: l.scan, count: l.scan_size)
        var at = max(1, min(from, scan.count - 1))
        if l.restart_interval > 0 {
            while at + 1 < scan.count {
                if scan[at] == 0xFF, (0xD0...0xD7).contains(scan[at + 1]) {
                    return SecondHalf.Start(decoder: decoder, at: at + 2, marker: Int32(scan[at + 1] - 0xD0))
                }
                at += 1
            }
            return nil
        }
        while at < scan.count, scan[at - 1] == 0xFF { at += 1 }
        return at < scan.count - 2 ? SecondHalf.Start(decoder: decoder, at: at, marker: -1) : nil
    }

    /// Gray or RGB rows `firstRow ..< firstRow + count` of the 1/8 image, columns
    /// `x ..< x + width`, into `out` (rows of `width * channels` bytes). Rows must be
    /// asked for top to bottom; `state` carries the DC predictors between calls.
    package func rows(_ rows: Range<Int>, x: Int, width: Int, state: inout RowState, into out: UnsafeMutablePointer<UInt8>) throws {
        let l = layout.pointee
        let bandRows = Int(l.max_v), stride = width * channels
        var y = rows.lowerBound
        while y < rows.upperBound {
            let band = y / bandRows
            if band != state.band {
                // Bands above carry their predictors down; their pixels are not kept.
                while state.band + 1 < band {
                    state.band += 1
                    withBand(state.band) { r in
                        cjpeg_eighth_carry(decoder, r, UInt64(state.band * Int(l.mcus_per_row)), UInt64(l.mcus_per_row), &state.predictors)
                    }
                }
                state.band = band
                let count = min(bandRows, height - band * bandRows)
                if state.pixels.count < bandRows * stride { state.pixels = [UInt8](repeating: 0, count: bandRows * stride) }
                let status = withBand(band) { r in
                    state.pixels.withUnsafeMutableBufferPointer { p in
                        cjpeg_eighth_rows(decoder, r, UInt64(band * Int(l.mcus_per_row)), &state.predictors, UInt32(x), UInt32(width),
                                          p.baseAddress, stride, UInt32(count))
                    }
                }
                // Stale rows from the band before must never pass for this one's.
                guard status == 0 else { throw DecodeError.outOfMemory(Int(l.mcus_per_row) * bandRows * 4) }
            }
            let inBand = y - band * bandRows
            let take = min(bandRows - inBand, rows.upperBound - y)
            state.pixels.withUnsafeBufferPointer { p in
                (out + (y - rows.lowerBound) * stride).update(from: p.baseAddress! + inBand * stride, count: take * stride)
            }
            y += take
        }
    }

    /// The records of MCU row `band`: the first thread's, the second's, or a copy of
    /// both when the row holds the MCU where they met.
    private func withBand<T>(_ band: Int, _ body: (UnsafePointer<Int32>) -> T) -> T {
        let per = Int(layout.pointee.mcus_per_row), first = band * per
        if first + per <= lowerFirst {
            return records.withUnsafeBufferPointer { body($0.baseAddress! + first * recordSize) }
        }
        if first >= lowerFirst {
            return lower.withUnsafeBufferPointer { body($0.baseAddress! + (lowerOffset + first - lowerFirst) * recordSize) }
        }
        let joined = Array(records[first * recordSize ..< lowerFirst * recordSize])
            + lower[lowerOffset * recordSize ..< (lowerOffset + first + per - lowerFirst) * recordSize]
        return joined.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// The first row of the first MCU row wholly decoded by the second thread, and the
    /// state for making rows from there (the predictors known without reading the
    /// records above); nil unless the threads met.
    func secondRows() -> (row: Int, state: RowState)? {
        guard met else { return nil }
        let per = Int(layout.pointee.mcus_per_row)
        let band = (lowerFirst + per - 1) / per
        guard band < Int(layout.pointee.mcu_rows) else { return nil }
        var state = RowState()
        state.predictors = meetingPredictors
        let count = band * per - lowerFirst
        lower.withUnsafeBufferPointer {
            cjpeg_eighth_carry(decoder, $0.baseAddress! + lowerOffset * recordSize, UInt64(lowerFirst), UInt64(count), &state.predictors)
        }
        // The predictors are those after the MCU row above.
        state.band = band - 1
        return (band * Int(layout.pointee.max_v), state)
    }

    /// Rows `rows` made on `thread` into a buffer while the caller makes those above,
    /// from `state` (see `secondRows`) or the top.
    func rows(_ rows: Range<Int>, x: Int, width: Int, from state: RowState = RowState(), on thread: LentThread) -> LowerRows {
        let lower = LowerRows(count: rows.count * width * channels)
        lower.work = thread.start { [self] in
            var state = state
            do {
                try lower.pixels.withUnsafeMutableBufferPointer { try self.rows(rows, x: x, width: width, state: &state, into: $0.baseAddress!) }
            } catch {
                lower.failure = error
            }
        }
        return lower
    }

    /// Rows made on another thread; `wait` before reading `pixels`.
    final class LowerRows: @unchecked Sendable {  // filled by the lent thread, read after `wait`
        var pixels: [UInt8]
        /// Why `pixels` are not all made; read after `wait`.
        var failure: Error?
        fileprivate var work: LentWork?

        fileprivate init(count: Int) {
            pixels = PixelBuffer.samples(count: count)
        }

        func wait() {
            work?.wait()
            work = nil
        }
    }

    /// The DC predictors and the last MCU row made, between `rows` calls.
    package struct RowState {
        package init() {}
        var band = -1
        var predictors: [Int32] = [0, 0, 0]
        var pixels: [UInt8] = []
    }
}

/// The second thread's decode from the middle of the data: records and each MCU's
/// starting position, from its start to the end of the data. When it meets data it
/// cannot decode (it began inside a code, or the file is damaged), it drops what it
/// has and begins again after that point.
private final class SecondHalf: @unchecked Sendable {  // written by its own thread only; read after `wait`
    struct Start {
        let cursor: cjpeg_eighth_cursor
        let position: UInt64
        let marker: Int32

        init(decoder: OpaquePointer, at: Int, marker: Int32) {
            self.marker = marker
            var c = cjpeg_eighth_cursor()
            cjpeg_eighth_cursor_at(decoder, &c, at, marker)
            cursor = c
            position = cjpeg_eighth_position(&c)
        }
    }

    let decoder: OpaquePointer
    let scan: UnsafeBufferPointer<UInt8>
    let recordSize: Int
    let limit: Int
    let start: Start
    // Written by the second thread only, read by the first after waiting for it.
    /// Records of `count` MCUs (the array's elements past them are not initialized).
    var records: [Int32] = []
    var count = 0
    /// Where the first `probed` MCUs began: the first thread meets the second among
    /// them (once in step a decode stays in step, so a few thousand are plenty).
    var positions = [UInt64](repeating: 0, count: 8192)
    var probed = 0
    /// The cursors after the last MCUs (`CJPEG_EIGHTH_ENDS` of them), in a ring.
    private var ends = [cjpeg_eighth_cursor](repeating: cjpeg_eighth_cursor(), count: Int(CJPEG_EIGHTH_ENDS))

    init(decoder: OpaquePointer, scan: UnsafeBufferPointer<UInt8>, recordSize: Int, limit: Int, start: Start) {
        self.decoder = decoder
        self.scan = scan
        self.recordSize = recordSize
        self.limit = limit
        self.start = start
    }

    /// Room for `mcus` records, uninitialized: each is written before it is read.
    func reserve(_ mcus: Int) {
        let size = mcus * recordSize
        var grown = [Int32](unsafeUninitializedCapacity: size) { _, n in n = size }
        if count > 0 {
            grown.withUnsafeMutableBufferPointer { to in
                records.withUnsafeBufferPointer { to.baseAddress!.update(from: $0.baseAddress!, count: count * recordSize) }
            }
        }
        records = grown
    }

    func cursor(after index: Int) -> cjpeg_eighth_cursor? {
        index < count && index >= count - Int(CJPEG_EIGHTH_ENDS) ? ends[index % Int(CJPEG_EIGHTH_ENDS)] : nil
    }

    func run() {
        var cursor = start.cursor
        let chunk = 2048
        var failures = 0
        while count < limit {
            let step = min(chunk, limit - count)
            if (count + step) * recordSize > records.count { reserve(min(limit, 2 * (count + step))) }
            let probe = min(step, positions.count - probed)
            let have = count
            // The positions while they are probed, then the rest without them.
            var n = 0
            if probe > 0 {
                n = records.withUnsafeMutableBufferPointer { r in
                    positions.withUnsafeMutableBufferPointer { p in
                        ends.withUnsafeMutableBufferPointer { e in
                            cjpeg_eighth_decode(decoder, &cursor, probe, r.baseAddress! + have * recordSize, p.baseAddress! + have,
                                                e.baseAddress, UInt64(have))
                        }
                    }
                }
                probed += n
            }
            if n == probe {
                let more = step - probe, from = have + n
                n += records.withUnsafeMutableBufferPointer { r in
                    ends.withUnsafeMutableBufferPointer { e in
                        cjpeg_eighth_decode(decoder, &cursor, more, r.baseAddress! + from * recordSize, nil, e.baseAddress, UInt64(from))
                    }
                }
            }
            count += n
            if n == step { continue }
            // Stopped at the end of the data, on damage (after a marker it was in step
            // from its start), or out of step with the codes: then nothing so far can
            // be trusted, and it begins again further on.
            let tail = scan[cursor.pos..<min(cursor.pos + 16, scan.count)]
            if zip(tail, tail.dropFirst()).contains(where: { $0 == 0xFF && $1 == 0xD9 }) || start.marker >= 0 { return }
            failures += 1
            guard failures < 64 else { return }
            count = 0
            probed = 0
            var at = cursor.pos + 1
            while at < scan.count, scan[at - 1] == 0xFF { at += 1 }
            guard at < scan.count - 2 else { return }
            cjpeg_eighth_cursor_at(decoder, &cursor, at, -1)
        }
    }
}
