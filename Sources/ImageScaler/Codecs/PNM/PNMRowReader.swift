/// Reads a netpbm raster one row at a time into 8-bit samples (gray, gray+alpha, RGB or
/// RGBA, straight alpha), from the header's raster offset on.
struct PNMRowReader {
    let header: PNMHeader
    private var tokens: PNMTokens
    /// 8-bit value of every sample 0...maxval, rounded to nearest.
    private let scale: [UInt8]

    /// What went wrong with a row: the damage's kind and, given the row and the height,
    /// its message.
    struct Problem {
        let kind: FailOn
        let what: (Int, Int) -> String
    }

    init(header: PNMHeader, data: [UInt8]) {
        self.header = header
        tokens = PNMTokens(data, from: header.rasterOffset)
        let maxval = header.maxval
        scale = header.kind == .bitmap ? [255, 0] : (0...maxval).map { UInt8(($0 * 255 + maxval / 2) / maxval) }
    }

    /// Fills `row`; on damage fills what it can (missing samples 0, samples above maxval
    /// clamped) and says what it was.
    mutating func read(into row: UnsafeMutableBufferPointer<UInt8>) -> Problem? {
        header.plain ? readPlain(into: row) : readRaw(into: row)
    }

    private mutating func readRaw(into row: UnsafeMutableBufferPointer<UInt8>) -> Problem? {
        let data = tokens.data, start = tokens.at
        let available = max(0, min(header.rawRowBytes, data.count - start))
        tokens.at += header.rawRowBytes
        var problem: Problem? = nil
        if available < header.rawRowBytes {
            row.update(repeating: 0)
            problem = Problem(kind: .truncated) { y, h in "truncated raster: the data ends in row \(y) of \(h)" }
        }
        if header.kind == .bitmap {
            for x in 0..<min(header.width, available * 8) {
                row[x] = scale[Int(data[start + (x >> 3)] >> (7 - UInt8(x & 7)) & 1)]
            }
            return problem
        }
        let maxval = header.maxval
        var high = false
        if maxval > 255 {
            for i in 0..<min(row.count, available / 2) {
                let v = Int(data[start + 2 * i]) << 8 | Int(data[start + 2 * i + 1])
                if v > maxval { high = true }
                row[i] = scale[min(v, maxval)]
            }
        } else if maxval == 255 {
            for i in 0..<min(row.count, available) { row[i] = data[start + i] }
        } else {
            for i in 0..<min(row.count, available) {
                let v = Int(data[start + i])
                if v > maxval { high = true }
                row[i] = scale[min(v, maxval)]
            }
        }
        if high && problem == nil {
            problem = Problem(kind: .error) { y, _ in "a sample in row \(y) is above the maxval \(maxval)" }
        }
        return problem
    }

    private mutating func readPlain(into row: UnsafeMutableBufferPointer<UInt8>) -> Problem? {
        let maxval = header.maxval
        var problem: Problem? = nil
        for i in 0..<row.count {
            tokens.skipSpace()
            let value: Int?
            if header.kind == .bitmap {
                // Plain PBM's digits need no space between them.
                if tokens.at < tokens.data.count, tokens.data[tokens.at] == UInt8(ascii: "0") || tokens.data[tokens.at] == UInt8(ascii: "1") {
                    value = Int(tokens.data[tokens.at] - UInt8(ascii: "0"))
                    tokens.at += 1
                } else {
                    value = nil
                }
            } else {
                value = tokens.decimal(limit: 0x7fff_ffff)
            }
            guard let v = value else {
                let ended = tokens.at >= tokens.data.count
                for j in i..<row.count { row[j] = 0 }
                // The rest of the raster is unreadable either way: the rows after are black.
                tokens.at = tokens.data.count
                return Problem(kind: .truncated) { y, h in
                    ended ? "truncated raster: the data ends in row \(y) of \(h)" : "row \(y) of \(h) holds a byte that is not a sample"
                }
            }
            if v > maxval && problem == nil {
                problem = Problem(kind: .error) { y, _ in "a sample in row \(y) is above the maxval \(maxval)" }
            }
            row[i] = scale[min(v, maxval)]
        }
        return problem
    }
}
