#if canImport(Glibc)
import Glibc
#endif

/// Reads the lines of one stretch of a report file, `start` to `end`, in order through a
/// buffer of its own, so many stretches of many files can be read side by side in
/// little memory. A line is its bytes without the newline; the last may lack one.
struct ReportCursor {
    let fd: Int32
    private(set) var offset: Int
    let end: Int
    private var buffer: [UInt8] = []
    private var used = 0
    private var bufferStart: Int
    private let chunk: Int

    init(fd: Int32, start: Int, end: Int, chunk: Int = 1 << 16) {
        self.fd = fd
        offset = start
        bufferStart = start
        self.end = end
        self.chunk = chunk
    }

    /// The next line and where it starts in the file; nil at the end of the stretch.
    /// A read error ends the stretch too (`failed` says so).
    mutating func next() -> (line: ArraySlice<UInt8>, at: Int)? {
        guard offset < end else { return nil }
        while true {
            let from = offset - bufferStart
            if let nl = buffer[from..<used].firstIndex(of: 0x0A) {
                let line = buffer[from..<nl]
                let at = offset
                offset = bufferStart + nl + 1
                return (line, at)
            }
            if bufferStart + used >= end {
                // The last line, without its newline.
                let line = buffer[from..<used]
                let at = offset
                offset = end
                return line.isEmpty ? nil : (line, at)
            }
            // A line past `maxLine` is no report line: its head is returned (damaged) and
            // the rest passed over, so a hostile file costs no more memory than that.
            if used - from > ReportCursor.maxLine {
                let head = Array(buffer[from..<from + ReportCursor.maxLine])
                let at = offset
                var cursor = bufferStart + used
                var scratch = [UInt8](repeating: 0, count: chunk)
                while cursor < end {
                    let want = min(chunk, end - cursor)
                    let got = scratch.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, want, off_t(cursor)) }
                    if got <= 0 { failed = got < 0; cursor = end; break }
                    if let nl = scratch[0..<got].firstIndex(of: 0x0A) { cursor += nl + 1; break }
                    cursor += got
                }
                offset = min(cursor, end)
                buffer = []
                used = 0
                bufferStart = offset
                return (head[...], at)
            }
            // Keep the part line, then read more after it (growing for a long line).
            let keep = Array(buffer[from..<used])
            let size = max(chunk, keep.count * 2)
            buffer = keep + [UInt8](repeating: 0, count: size - keep.count)
            bufferStart = offset
            used = keep.count
            let want = min(size - used, end - (bufferStart + used))
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + used, want, off_t(bufferStart + used)) }
            if got <= 0 {
                failed = got < 0
                offset = end
                return keep.isEmpty ? nil : (keep[...], bufferStart)
            }
            used += got
        }
    }

    private(set) var failed = false

    /// The longest line read whole: a report line is a few hundred bytes.
    static let maxLine = 1 << 20
}
