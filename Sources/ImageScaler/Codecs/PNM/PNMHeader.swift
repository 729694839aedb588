/// The header of a netpbm file: PBM, PGM and PPM in plain (P1-P3, decimal text) or raw
/// (P4-P6, binary) form, or PAM (P7), read from its magic number to the first byte of
/// the raster. Samples run 0...`maxval`, big-endian in two bytes when `maxval` > 255;
/// a PBM's bits are 1 for black, where every other kind's larger values are lighter.
struct PNMHeader: Equatable {
    enum Kind: Equatable {
        /// P1 and P4: one bit a pixel.
        case bitmap
        /// P2/P5 (depth 1), P3/P6 (depth 3) and P7 (depth 1-4).
        case samples
    }

    let kind: Kind
    /// Decimal text samples (P1-P3) rather than binary.
    let plain: Bool
    let width: Int
    let height: Int
    /// Samples a pixel: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA.
    let depth: Int
    let maxval: Int
    /// Where the raster starts in the file.
    let rasterOffset: Int

    /// Bytes of one raw row.
    var rawRowBytes: Int {
        kind == .bitmap ? (width + 7) / 8 : width * depth * (maxval > 255 ? 2 : 1)
    }

    /// Bits of the stored samples, as `info` reports them.
    var bitDepth: Int {
        kind == .bitmap ? 1 : (Int.bitWidth - maxval.leadingZeroBitCount)
    }

    /// Whether `bytes` start with a netpbm magic number: P1-P7 and then whitespace.
    static func matches(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count >= 3 else { return false }
        let b = Array(bytes.prefix(3))
        return b[0] == UInt8(ascii: "P") && (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(b[1]) && isSpace(b[2])
    }

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || (0x09...0x0D).contains(c) }

    /// Reads the header of `data`, or says in one phrase why it is not one.
    static func read(_ data: [UInt8]) throws(PNMHeaderError) -> PNMHeader {
        guard matches(data.prefix(3)) else { throw .init("not a netpbm magic number") }
        let magic = Int(data[1] - UInt8(ascii: "0"))
        var cursor = PNMTokens(data, from: 2)
        if magic == 7 { return try readPAM(&cursor) }
        let width = try cursor.number("width"), height = try cursor.number("height")
        let maxval = magic == 1 || magic == 4 ? 1 : try cursor.number("maxval")
        guard (1...65535).contains(maxval) else { throw .init("maxval \(maxval) is outside 1-65535") }
        // One whitespace byte ends the header of a raw file; a plain file's samples are
        // read as tokens, so it may start anywhere after.
        guard cursor.at < data.count, isSpace(data[cursor.at]) else { throw .init("the header ends without the raster") }
        return PNMHeader(kind: magic == 1 || magic == 4 ? .bitmap : .samples, plain: magic <= 3, width: width, height: height,
                         depth: magic == 3 || magic == 6 ? 3 : 1, maxval: maxval, rasterOffset: cursor.at + 1)
    }

    /// PAM's header: "KEY value" lines up to ENDHDR; TUPLTYPE is advice, DEPTH decides.
    private static func readPAM(_ cursor: inout PNMTokens) throws(PNMHeaderError) -> PNMHeader {
        var fields: [String: Int] = [:]
        while true {
            guard let key = try cursor.word() else { throw .init("the PAM header has no ENDHDR") }
            switch key {
            case "ENDHDR":
                // The line ends, and the raster starts after its newline.
                guard let newline = cursor.data[cursor.at...].firstIndex(of: 0x0A) else { throw .init("the header ends without the raster") }
                guard let width = fields["WIDTH"], let height = fields["HEIGHT"], let depth = fields["DEPTH"],
                      let maxval = fields["MAXVAL"] else {
                    throw .init("the PAM header lacks WIDTH, HEIGHT, DEPTH or MAXVAL")
                }
                guard (1...4).contains(depth) else { throw .init("PAM depth \(depth); imgscale reads 1 to 4 (gray, gray+alpha, RGB, RGBA)") }
                guard (1...65535).contains(maxval) else { throw .init("maxval \(maxval) is outside 1-65535") }
                return PNMHeader(kind: .samples, plain: false, width: width, height: height, depth: depth, maxval: maxval,
                                 rasterOffset: newline + 1)
            case "TUPLTYPE":
                cursor.skipLine()
            case "WIDTH", "HEIGHT", "DEPTH", "MAXVAL":
                guard fields[key] == nil else { throw .init("the PAM header gives \(key) twice") }
                fields[key] = try cursor.number(key.lowercased())
            default:
                throw .init("unknown PAM header field '\(key.prefix(20))'")
            }
        }
    }
}

/// Why a netpbm header was refused, in one phrase.
struct PNMHeaderError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
