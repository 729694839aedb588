/// The error-message buffer handed to a C shim call. 320 bytes holds libjpeg's longest
/// formatted message (JMSG_LENGTH_MAX = 200) with the shim's explanatory prefix.
package struct ShimMessage {
    static let capacity = 320

    package init() {}
    private var bytes = [CChar](repeating: 0, count: capacity)

    /// Runs `body` with a pointer to the buffer and its size.
    package mutating func with<T>(_ body: (UnsafeMutablePointer<CChar>, Int) -> T) -> T {
        bytes.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
    }

    package var text: String {
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        let s = String(decoding: bytes[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return s.isEmpty ? "unknown error" : s
    }
}
