/// Builds a message for the pipe from a worker process to its parent: integers as 8
/// bytes little-endian, a string as its UTF-8 length and bytes, nil as length -1. A
/// path's escaped bytes are scalars of the string, so a name comes back exactly.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    mutating func int(_ v: Int) {
        withUnsafeBytes(of: Int64(v).littleEndian) { bytes += $0 }
    }

    mutating func string(_ s: String?) {
        guard let s else { return int(-1) }
        let utf8 = Array(s.utf8)
        int(utf8.count)
        bytes += utf8
    }

    mutating func strings(_ list: [String]) {
        int(list.count)
        list.forEach { string($0) }
    }
}
