/// One vertical pass of Pillow's box blur over rows that come in order, top to bottom:
/// each output sample is `BoxLine`'s for its column (the 2r + 1 rows around it weighted
/// `ww`, the two beyond them `fw`, 24-bit fixed point, the first and last rows standing in
/// for rows past the ends). Pillow's running sum is an exact integer sum of each window,
/// so summing a window of rows gives the same bytes as summing down a column. Holds a
/// ring of the 2r + 3 rows one output reaches; row y leaves once row y + r + 1 (or the
/// last) is in.
final class BoxRows {
    private let line: BoxLine
    private let height: Int
    private let rowBytes: Int
    private let slots: Int
    private var ring: [UInt8]
    /// The window sum of the row made last, per sample.
    private var sums: [UInt32]
    private var out: [UInt8]
    private var received = 0
    private var made = 0

    init(_ line: BoxLine, height: Int, rowBytes: Int) {
        self.line = line
        self.height = height
        self.rowBytes = rowBytes
        slots = 2 * line.radius + 3
        ring = [UInt8](repeating: 0, count: slots * rowBytes)
        sums = [UInt32](repeating: 0, count: rowBytes)
        out = [UInt8](repeating: 0, count: rowBytes)
    }

    /// Takes the next row; hands on each row this one completes, in order.
    func add(_ row: UnsafePointer<UInt8>, emit: (UnsafePointer<UInt8>) throws -> Void) rethrows {
        precondition(received < height, "more rows than the image has")
        let rowBytes = rowBytes
        ring.withUnsafeMutableBufferPointer { r in
            (r.baseAddress! + (received % slots) * rowBytes).update(from: row, count: rowBytes)
        }
        received += 1
        let r = line.radius
        while made < height, received > min(made + r + 1, height - 1) {
            try make(made, emit: emit)
            made += 1
        }
    }

    private func make(_ y: Int, emit: (UnsafePointer<UInt8>) throws -> Void) rethrows {
        let r = line.radius, last = height - 1, rowBytes = rowBytes, slots = slots
        let (ww, fw) = (line.ww, line.fw)
        func clamp(_ i: Int) -> Int { min(max(i, 0), last) }
        try ring.withUnsafeBufferPointer { ring in
            func row(_ i: Int) -> UnsafePointer<UInt8> { ring.baseAddress! + (clamp(i) % slots) * rowBytes }
            try sums.withUnsafeMutableBufferPointer { sums in
                if y == 0 {
                    for i in 0..<rowBytes { sums[i] = 0 }
                    for k in -r...r {
                        let p = row(k)
                        for i in 0..<rowBytes { sums[i] &+= UInt32(p[i]) }
                    }
                } else {
                    let add = row(y + r), subtract = row(y - r - 1)
                    for i in 0..<rowBytes { sums[i] = sums[i] &+ UInt32(add[i]) &- UInt32(subtract[i]) }
                }
                let above = row(y - r - 1), below = row(y + r + 1)
                try out.withUnsafeMutableBufferPointer { out in
                    for i in 0..<rowBytes {
                        let bulk = sums[i] &* ww &+ (UInt32(above[i]) &+ UInt32(below[i])) &* fw
                        out[i] = UInt8(truncatingIfNeeded: (bulk &+ (1 << 23)) >> 24)
                    }
                    try emit(out.baseAddress!)
                }
            }
        }
    }
}
