/// A bounds-checked reader for the one thing imgscale needs from a TIFF-structured EXIF
/// block (the APP1 payload after "Exif\0\0"): the orientation tag in IFD0.
///
/// Every offset is checked against the block before it is read, so truncated IFDs,
/// offsets past the end and unknown byte orders give a reason instead of a crash. Only
/// IFD0 is read and it is read once, so link loops cannot make it spin.
enum ExifReader {
    /// The orientation, or a reason the block could not be trusted. A block without the
    /// tag is orientation 1 with no complaint.
    static func orientation(in exif: [UInt8]) -> Result<Orientation, ExifError> {
        guard exif.count >= 8 else { return .failure(.truncated) }
        guard let block = TIFFBlock(exif), block.u16(2) == 42 else { return .failure(.badByteOrder) }
        guard let (ifd, count) = block.ifd0 else { return .failure(.offsetOutOfRange) }
        for i in 0..<count {
            let entry = ifd + 2 + i * 12
            guard let tag = block.u16(entry), let type = block.u16(entry + 2), let n = block.u32(entry + 4) else {
                return .failure(.truncated)
            }
            guard tag == 0x0112 else { continue }
            // SHORT (type 3), one value, stored left-justified in the value field.
            guard type == 3, n == 1, let value = block.u16(entry + 8) else { return .failure(.badOrientationEntry) }
            // 0 is what some writers store for "not set"; it is not a broken block.
            if value == 0 { return .success(.up) }
            guard let orientation = Orientation(rawValue: value) else { return .failure(.badOrientationValue(value)) }
            return .success(orientation)
        }
        return .success(.up)
    }
}

/// Why an EXIF block was ignored. Broken EXIF never fails an image: it means
/// orientation 1 and a warning.
enum ExifError: Error, Equatable, CustomStringConvertible {
    case truncated
    case badByteOrder
    case offsetOutOfRange
    case badOrientationEntry
    case badOrientationValue(Int)

    var description: String {
        switch self {
        case .truncated: return "EXIF block is truncated"
        case .badByteOrder: return "EXIF block has no valid TIFF header"
        case .offsetOutOfRange: return "EXIF IFD offset points outside the block"
        case .badOrientationEntry: return "EXIF orientation entry has the wrong type or count"
        case .badOrientationValue(let v): return "EXIF orientation \(v) is not 1-8"
        }
    }
}
