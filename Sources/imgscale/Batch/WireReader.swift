/// Reads what `WireWriter` wrote. It never traps on a short or damaged message: a read
/// past the end gives 0 or nil and sets `bad`, and the caller treats the whole message
/// as lost (as if the worker had died).
struct WireReader {
    private let bytes: [UInt8]
    private var at = 0
    private(set) var bad = false

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether every byte was read and none was missing.
    var complete: Bool { !bad && at == bytes.count }

    mutating func int() -> Int {
        guard bytes.count - at >= 8 else { bad = true; return 0 }
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(bytes[at + i]) << (8 * i) }
        at += 8
        return Int(Int64(bitPattern: v))
    }

    mutating func string() -> String? {
        let n = int()
        guard n >= 0 else { return nil }
        guard n <= bytes.count - at else { bad = true; return nil }
        defer { at += n }
        return String(decoding: bytes[at ..< at + n], as: UTF8.self)
    }

    /// A count no larger than the bytes left, so a damaged count cannot ask for a
    /// huge array.
    mutating func count() -> Int? {
        let n = int()
        guard !bad, n >= 0, n <= bytes.count - at else { bad = true; return nil }
        return n
    }

    mutating func strings() -> [String] {
        guard let n = count() else { return [] }
        return (0..<n).map { _ in string() ?? "" }
    }
}
