/// Rewrites a JPEG file so that tables written back to back share one marker segment:
/// libjpeg gives each quantisation and Huffman table its own DQT or DHT segment, and
/// T.81 (B.2.4.1, B.2.4.2) lets one segment carry several. Each merge saves a marker and
/// a length, 4 bytes: 16 in a sequential colour file, about 1% of a 256-pixel thumbnail
/// at low quality. Every other byte is kept in order; a file it cannot walk (which
/// libjpeg never writes) comes back as it was.
package enum TableSegmentPacking {
    package static func packed(_ file: [UInt8]) -> [UInt8] {
        guard file.count >= 4, file[0] == 0xFF, file[1] == 0xD8 else { return file }
        var out: [UInt8] = [0xFF, 0xD8]
        out.reserveCapacity(file.count)
        // Where the last segment written to `out` starts, when it is a DQT or DHT
        // segment that the next one may join.
        var joinable: (marker: UInt8, start: Int)? = nil
        var i = 2
        while i + 1 < file.count {
            guard file[i] == 0xFF else { return file }
            let marker = file[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0xD9 || (0xD0...0xD7).contains(marker) {
                out += [0xFF, marker]
                i += 2
                joinable = nil
                continue
            }
            guard i + 3 < file.count else { return file }
            let length = Int(file[i + 2]) << 8 | Int(file[i + 3])
            guard length >= 2, i + 2 + length <= file.count else { return file }
            let payload = file[(i + 4)..<(i + 2 + length)]
            if (marker == 0xDB || marker == 0xC4), let j = joinable, j.marker == marker {
                let joined = (Int(out[j.start + 2]) << 8 | Int(out[j.start + 3])) + payload.count
                if joined <= 0xFFFF {
                    out[j.start + 2] = UInt8(joined >> 8)
                    out[j.start + 3] = UInt8(joined & 0xFF)
                    out += payload
                    i += 2 + length
                    continue
                }
            }
            joinable = marker == 0xDB || marker == 0xC4 ? (marker, out.count) : nil
            out += file[i..<(i + 2 + length)]
            i += 2 + length
            guard marker == 0xDA else { continue }
            // The entropy-coded data runs to the first marker that is neither a stuffed
            // zero nor a restart.
            var end = i
            while end + 1 < file.count {
                if file[end] == 0xFF, file[end + 1] != 0x00, !(0xD0...0xD7).contains(file[end + 1]) { break }
                end += 1
            }
            guard end + 1 < file.count else { return file }
            out += file[i..<end]
            i = end
        }
        return i == file.count ? out : file
    }
}
