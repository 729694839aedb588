/// Reads a netpbm header's tokens and a plain raster's numbers from bytes in memory:
/// whitespace separates them and '#' starts a comment to the end of the line. Every
/// read stops at the end of the data, so a comment without end costs one pass.
struct PNMTokens {
    let data: [UInt8]
    /// The next byte to read.
    var at: Int

    init(_ data: [UInt8], from: Int) {
        self.data = data
        at = from
    }

    /// Skips whitespace and comments.
    mutating func skipSpace() {
        while at < data.count {
            if data[at] == UInt8(ascii: "#") {
                skipLine()
            } else if PNMHeader.isSpace(data[at]) {
                at += 1
            } else {
                return
            }
        }
    }

    /// Moves past the rest of the line, newline included.
    mutating func skipLine() {
        while at < data.count && data[at] != 0x0A { at += 1 }
        if at < data.count { at += 1 }
    }

    /// A positive decimal header field, at most 2^31-1.
    mutating func number(_ what: String) throws(PNMHeaderError) -> Int {
        skipSpace()
        guard at < data.count else { throw .init("the header ends before its \(what)") }
        guard let value = decimal(limit: 0x7fff_ffff) else { throw .init("the \(what) is not a number below 2^31") }
        guard value > 0 || what == "maxval" else { throw .init("the \(what) is 0") }
        return value
    }

    /// Digits at the cursor as a number no larger than `limit`, or nil (no digits, or more).
    mutating func decimal(limit: Int) -> Int? {
        var value = 0, digits = 0
        while at < data.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(data[at]) {
            value = value * 10 + Int(data[at] - UInt8(ascii: "0"))
            if value > limit { return nil }
            at += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// The next run of non-space bytes, at most 64 of them, or nil at the end.
    mutating func word() throws(PNMHeaderError) -> String? {
        skipSpace()
        guard at < data.count else { return nil }
        let start = at
        while at < data.count && !PNMHeader.isSpace(data[at]) {
            at += 1
            if at - start > 64 { throw .init("a PAM header field is longer than 64 bytes") }
        }
        return String(decoding: data[start..<at], as: UTF8.self)
    }
}
