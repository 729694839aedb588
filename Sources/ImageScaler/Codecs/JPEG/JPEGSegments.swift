/// The marker segments of a JPEG from its SOI to its first SOS, found by walking their
/// lengths: each segment's marker, its whole extent (marker and length included) and
/// its payload. A walk that leaves the file, or a file that is no JPEG, gives what was
/// found up to there and `complete` false: the bytes are a stranger's.
struct JPEGSegments {
    struct Segment {
        let marker: UInt8
        /// From the 0xFF of the marker to the end of the payload.
        let extent: Range<Int>
        let payload: Range<Int>
    }
    private(set) var segments: [Segment] = []
    /// Where the first SOS starts (the entropy-coded data's header), when reached.
    private(set) var scanStart: Int? = nil
    private(set) var complete = false

    /// The segments of the JPEG at `start ..< end` in `data` (to its end by default), at
    /// most `limit` of them.
    init(_ data: [UInt8], from start: Int = 0, end: Int? = nil, limit: Int = 4096) {
        let count = min(end ?? data.count, data.count)
        guard start >= 0, count - start >= 4, data[start] == 0xFF, data[start + 1] == 0xD8 else { return }
        var at = start + 2
        while at + 4 <= count, segments.count < limit {
            guard data[at] == 0xFF else { return }
            // Fill bytes before a marker.
            var m = at + 1
            while m < count && data[m] == 0xFF { m += 1 }
            guard m + 2 < count else { return }
            let marker = data[m]
            if marker == 0xDA {
                scanStart = at
                complete = true
                return
            }
            // Markers without a length (TEM, RSTn) have no place before the scan.
            guard marker != 0x01, !(0xD0...0xD9).contains(marker) else { return }
            let length = Int(data[m + 1]) << 8 | Int(data[m + 2])
            guard length >= 2, m + 1 + length <= count else { return }
            segments.append(Segment(marker: marker, extent: at ..< m + 1 + length, payload: m + 3 ..< m + 1 + length))
            at = m + 1 + length
        }
    }

    /// Where `needle` first starts in `hay` (an index of the whole array), or nil: the one
    /// byte search the UltraHDR reader and writer share over XMP and segment payloads.
    static func find(_ needle: [UInt8], in hay: ArraySlice<UInt8>) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count else { return nil }
        var i = hay.startIndex
        while i <= hay.endIndex - needle.count {
            if hay[i] == needle[0] && hay[i ..< i + needle.count].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// The payloads of the APPn segments (`n` 0-15) whose payload starts with `signature`.
    func app(_ n: UInt8, _ data: [UInt8], startingWith signature: [UInt8]) -> [Segment] {
        segments.filter { $0.marker == 0xE0 + n && data[$0.payload].starts(with: signature) }
    }
}
