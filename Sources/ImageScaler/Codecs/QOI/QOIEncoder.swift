/// QOI files from rows, as qoi.h writes them, operation for operation: a run of the
/// previous colour, else its table slot, else a small difference (DIFF, then LUMA), else
/// the colour whole (RGB, or RGBA where alpha changed). Gray is widened to RGB and gray
/// with alpha to RGBA; the colour space byte is 0 (sRGB). Rows are appended as they come.
final class QOIEncoder: RowEncoder {
    private var bytes: [UInt8]
    private let width: Int
    private let height: Int
    private let channels: Int
    private var rows = 0
    private var table = [UInt32](repeating: 0, count: 64)
    private var previous: UInt32 = 0xFF00_0000
    private var run = 0

    init(width: Int, height: Int, channels: Int) {
        self.width = width
        self.height = height
        self.channels = channels
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        bytes = QOIOps.magic + be32(width) + be32(height) + [channels == 2 || channels == 4 ? 4 : 3, 0]
    }

    func write(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        let last = width * height - 1
        for r in 0..<count {
            let row = rows + r * bytesPerRow
            for x in 0..<width {
                let s = row + x * channels
                let pixel: UInt32
                switch channels {
                case 1: pixel = UInt32(s[0]) * 0x0001_0101 | 0xFF00_0000
                case 2: pixel = UInt32(s[0]) * 0x0001_0101 | UInt32(s[1]) << 24
                case 3: pixel = UInt32(s[0]) | UInt32(s[1]) << 8 | UInt32(s[2]) << 16 | 0xFF00_0000
                default: pixel = UInt32(s[0]) | UInt32(s[1]) << 8 | UInt32(s[2]) << 16 | UInt32(s[3]) << 24
                }
                add(pixel, isLast: (self.rows + r) * width + x == last)
            }
        }
        self.rows += count
    }

    private func add(_ pixel: UInt32, isLast: Bool) {
        if pixel == previous {
            run += 1
            if run == QOIOps.longestRun || isLast {
                bytes.append(QOIOps.run | UInt8(run - 1))
                run = 0
            }
            return
        }
        if run > 0 {
            bytes.append(QOIOps.run | UInt8(run - 1))
            run = 0
        }
        let slot = QOIOps.slot(pixel)
        if table[slot] == pixel {
            bytes.append(QOIOps.index | UInt8(slot))
        } else {
            table[slot] = pixel
            if pixel >> 24 == previous >> 24 {
                // Differences as qoi.h takes them: signed bytes, wrapping.
                func delta(_ shift: UInt32) -> Int { Int(Int8(truncatingIfNeeded: Int(pixel >> shift & 0xFF) - Int(previous >> shift & 0xFF))) }
                let (dr, dg, db) = (delta(0), delta(8), delta(16))
                let (rg, bg) = (dr - dg, db - dg)
                if (-2...1).contains(dr) && (-2...1).contains(dg) && (-2...1).contains(db) {
                    bytes.append(QOIOps.diff | UInt8((dr + 2) << 4 | (dg + 2) << 2 | (db + 2)))
                } else if (-8...7).contains(rg) && (-32...31).contains(dg) && (-8...7).contains(bg) {
                    bytes.append(QOIOps.luma | UInt8(dg + 32))
                    bytes.append(UInt8((rg + 8) << 4 | (bg + 8)))
                } else {
                    bytes += [QOIOps.rgb, UInt8(pixel & 0xFF), UInt8(pixel >> 8 & 0xFF), UInt8(pixel >> 16 & 0xFF)]
                }
            } else {
                bytes += [QOIOps.rgba, UInt8(pixel & 0xFF), UInt8(pixel >> 8 & 0xFF), UInt8(pixel >> 16 & 0xFF), UInt8(pixel >> 24)]
            }
        }
        previous = pixel
    }

    func finish() throws -> [UInt8] {
        guard rows == height else { throw EncodeError.incomplete(rows: rows, of: height) }
        return bytes + QOIOps.end
    }
}
