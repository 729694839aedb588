/// netpbm files from rows, 8-bit: raw PGM (P5) for gray, raw PPM (P6) for RGB, and PAM
/// (P7, GRAYSCALE_ALPHA or RGB_ALPHA) for straight alpha, as netpbm's tools and Pillow
/// read them; with `pam`, PAM (P7) for every channel count. The format holds no metadata.
/// Rows are appended as they come.
final class PNMEncoder: RowEncoder {
    private var bytes: [UInt8]
    private let rowBytes: Int
    private let height: Int
    private var rows = 0

    init(width: Int, height: Int, channels: Int, pam: Bool = false) {
        let header: String
        switch (channels, pam) {
        case (1, false): header = "P5\n\(width) \(height)\n255\n"
        case (3, false): header = "P6\n\(width) \(height)\n255\n"
        default:
            header = "P7\nWIDTH \(width)\nHEIGHT \(height)\nDEPTH \(channels)\nMAXVAL 255\nTUPLTYPE "
                + ["GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"][max(0, min(channels, 4) - 1)] + "\nENDHDR\n"
        }
        bytes = Array(header.utf8)
        rowBytes = width * channels
        self.height = height
        bytes.reserveCapacity(bytes.count + rowBytes * height)
    }

    func write(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        for r in 0..<count {
            bytes.append(contentsOf: UnsafeBufferPointer(start: rows + r * bytesPerRow, count: rowBytes))
        }
        self.rows += count
    }

    func finish() throws -> [UInt8] {
        guard rows == height else { throw EncodeError.incomplete(rows: rows, of: height) }
        return bytes
    }
}
