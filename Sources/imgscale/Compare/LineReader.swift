import Glibc

/// Lines from a file descriptor as they arrive: `next(atMost:)` waits for one line, then
/// takes the others already readable without waiting, so a client sending one request
/// at a time is answered at once and one sending thousands is served in batches. A line
/// longer than `maxLine` is cut there and flagged, not held without bound.
struct LineReader {
    let fd: Int32
    static let maxLine = 1 << 20
    private var buffer: [UInt8] = []
    private var ended = false

    init(fd: Int32) { self.fd = fd }

    /// Up to `limit` lines (without their newline; `overlong` when cut), empty at the end.
    mutating func next(atMost limit: Int) -> [(text: String, overlong: Bool)] {
        var lines: [(String, Bool)] = []
        var wait = true
        while lines.count < limit {
            if let cut = take() {
                lines.append(cut)
                wait = false
                continue
            }
            if ended {
                if start < buffer.count { lines.append((String(decoding: buffer[start...], as: UTF8.self), false)) }
                buffer = []
                start = 0
                break
            }
            if !wait {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, 0) <= 0 { break }
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { ended = true; continue }
            buffer.append(contentsOf: chunk[..<n])
        }
        return lines
    }

    /// Where the unread part of `buffer` starts: lines are taken by moving it, and the
    /// buffer is compacted only when a read needs the room.
    private var start = 0

    private mutating func take() -> (String, Bool)? {
        let rest = buffer[start...]
        if let nl = rest.firstIndex(of: 0x0A), nl - start <= LineReader.maxLine {
            let line = String(decoding: buffer[start..<nl], as: UTF8.self)
            start = nl + 1
            return (line, false)
        }
        guard rest.count > LineReader.maxLine else {
            buffer.removeSubrange(..<start)
            start = 0
            return nil
        }
        // Cut: the rest of that line is dropped as it arrives.
        let line = String(decoding: buffer[start..<start + LineReader.maxLine], as: UTF8.self)
        if let nl = rest.firstIndex(of: 0x0A) { start = nl + 1 } else { buffer = []; start = 0; skipToNewline() }
        return (line, true)
    }

    /// Drops bytes up to the next newline at read speed, 64 KiB a read; what follows it
    /// stays in the buffer as the start of the next line.
    private mutating func skipToNewline() {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { ended = true; return }
            if let nl = chunk[..<n].firstIndex(of: 0x0A) {
                buffer.append(contentsOf: chunk[(nl + 1)..<n])
                return
            }
        }
    }
}
