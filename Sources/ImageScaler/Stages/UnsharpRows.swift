/// `UnsharpMask` over rows that come in order, top to bottom, so a streamed output can be
/// sharpened: each row is blurred along itself at once (three `BoxLine` passes), then down
/// the columns by three `BoxRows` passes, and each sample moved away from its blurred
/// value as Pillow does. Row y leaves once row y + 3(r + 1) (or the last) is in; about
/// 9r + 13 rows are held, whatever the height. Pixels of 1-4 channels, every channel
/// alike, alpha too (Pillow's L, LA, RGB and RGBA).
final class UnsharpRows {
    private let mask: UnsharpMask
    private let rowBytes: Int
    private let channels: Int
    private let across: BoxLine?
    private let down: [BoxRows]
    /// The rows as they came, until their blurred rows are made.
    private var sources: [UInt8]
    private let sourceSlots: Int
    private var received = 0
    private var made = 0
    private var blurredRow: [UInt8]
    /// `BoxLine.blur`'s working rows.
    private var scratch: [UInt8]
    private var sums: [UInt32]
    private var out: [UInt8]
    /// `diff * percent / 100` (C's truncating division) for each diff from -255 to 255.
    private let moved: [Int]

    init(_ mask: UnsharpMask, width: Int, height: Int, channels: Int) {
        self.mask = mask
        self.channels = channels
        rowBytes = width * channels
        let box = UnsharpMask.boxRadius(mask.radius, passes: 3)
        if box != 0 {
            across = BoxLine(radius: box, length: width)
            let column = BoxLine(radius: box, length: height)
            down = (0..<3).map { _ in BoxRows(column, height: height, rowBytes: width * channels) }
            sourceSlots = 3 * (column.radius + 1) + 1
        } else {
            // Pillow skips a zero box: the blur is the image, and nothing moves.
            across = nil
            down = []
            sourceSlots = 1
        }
        let scratchCount = across?.scratchCount(channels: channels) ?? 0
        scratch = [UInt8](repeating: 0, count: scratchCount)
        sums = [UInt32](repeating: 0, count: scratchCount)
        sources = [UInt8](repeating: 0, count: sourceSlots * width * channels)
        blurredRow = [UInt8](repeating: 0, count: width * channels)
        out = [UInt8](repeating: 0, count: width * channels)
        moved = (-255...255).map { $0 * mask.percent / 100 }
    }

    /// Takes the next row; hands on each sharpened row this one completes, in order.
    func add(_ row: UnsafePointer<UInt8>, emit: (UnsafePointer<UInt8>) throws -> Void) rethrows {
        let rowBytes = rowBytes
        sources.withUnsafeMutableBufferPointer { s in
            (s.baseAddress! + (received % sourceSlots) * rowBytes).update(from: row, count: rowBytes)
        }
        received += 1
        guard let across else { return try emit(row) }
        blurredRow.withUnsafeMutableBufferPointer { b in
            scratch.withUnsafeMutableBufferPointer { scratch in
                sums.withUnsafeMutableBufferPointer { sums in
                    b.baseAddress!.update(from: row, count: rowBytes)
                    across.blur(b.baseAddress!, channels: channels, passes: 3, scratch: scratch.baseAddress!, sums: sums.baseAddress!)
                }
            }
        }
        try blurredRow.withUnsafeBufferPointer { b in
            try down[0].add(b.baseAddress!) { first in
                try down[1].add(first) { second in
                    try down[2].add(second) { blurred in try finish(blurred, emit: emit) }
                }
            }
        }
    }

    /// The next row out, from its source and its blur.
    private func finish(_ blurred: UnsafePointer<UInt8>, emit: (UnsafePointer<UInt8>) throws -> Void) rethrows {
        let rowBytes = rowBytes, threshold = mask.threshold
        let slot = (made % sourceSlots) * rowBytes
        made += 1
        try sources.withUnsafeBufferPointer { s in
            try moved.withUnsafeBufferPointer { moved in
                try out.withUnsafeMutableBufferPointer { o in
                    let source = s.baseAddress! + slot, table = moved.baseAddress! + 255, o = o.baseAddress!
                    for i in 0..<rowBytes {
                        let value = Int(source[i]), diff = value - Int(blurred[i])
                        o[i] = abs(diff) > threshold ? UInt8(clamping: value + table[diff]) : source[i]
                    }
                    try emit(o)
                }
            }
        }
    }
}
