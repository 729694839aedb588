#if canImport(Glibc)
import Glibc
#endif

/// A shard's `--report` met again: an engine retrying a shard that died (a pod evicted,
/// a worker lost) runs the same command with the same report. When the file already
/// holds lines of this same shard, they are kept, cut after the last whole line (a line
/// the dead run was writing is dropped), and this run's lines follow with the next
/// `attempt` number, so the report says which lines a retry wrote and
/// `merge-reports` keeps each output's last word. Any other file is emptied, as a
/// report always was.
enum ReportAttempt {
    /// Prepares the open report `fd` for a run of `shard`, leaving its offset at the end,
    /// and returns this run's attempt (1 for a fresh report).
    static func prepare(_ fd: Int32, shard: ShardSpec?) -> Int {
        var st = stat()
        guard let shard, fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0, st.st_size <= 1 << 30 else {
            _ = ftruncate(fd, 0)
            return 1
        }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        let whole = got > 0 ? (bytes[0..<got].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) : 0
        let lines = bytes[0..<whole].split(separator: 0x0A)
        guard let first = lines.first, field("shard", in: first) == "\"\(shard.text)\"" else {
            _ = ftruncate(fd, 0)
            return 1
        }
        let attempt = lines.map { field("attempt", in: $0).flatMap { Int($0) } ?? 1 }.max() ?? 1
        _ = ftruncate(fd, off_t(whole))
        _ = lseek(fd, off_t(whole), SEEK_SET)
        return attempt + 1
    }

    /// The JSON text of a top-level scalar field of a report line as imgscale writes
    /// it (`"key":value`, no spaces), without parsing the rest.
    private static func field(_ key: String, in line: ArraySlice<UInt8>) -> String? {
        let pattern = Array("\"\(key)\":".utf8)
        guard let start = line.firstRange(of: pattern)?.upperBound else { return nil }
        var end = start
        var quoted = false
        while end < line.endIndex {
            let c = line[end]
            if c == 0x22 && end > start { quoted.toggle(); if !quoted { end += 1; break } }
            else if c == 0x22 { quoted = true }
            else if !quoted && (c == 0x2C || c == 0x7D) { break }
            end += 1
        }
        return String(decoding: line[start..<end], as: UTF8.self)
    }
}
