/// A bounds-checked reader for the one thing imgscale needs from a TIFF-structured EXIF
/// block (the APP1 payload after "Exif\0\0"): the orientation tag in IFD0.
///
/// Every offset is checked against the block before it is read, so truncated IFDs,
/// offsets past the end and unknown byte orders give a reason instead of a crash. Only
/// IFD0 is read and it is read once, so link loops cannot make it spin.
package enum ExifReader {
    /// The orientation, or a reason the block could not be trusted. A block without the
    /// tag is orientation 1 with no complaint.
    package static func orientation(in exif: [UInt8]) -> Result<Orientation, ExifError> {
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

    /// Whether IFD0 holds an orientation tag at all (a block that says 1 decides, one
    /// without the tag leaves XMP to decide).
    static func hasOrientation(_ exif: [UInt8]) -> Bool {
        guard let block = TIFFBlock(exif), let (ifd, count) = block.ifd0 else { return false }
        return (0..<count).contains { block.u16(ifd + 2 + $0 * 12) == 0x0112 }
    }

    /// XMP's `tiff:Orientation`, as an attribute or an element, as Pillow matches it
    /// (`tiff:Orientation(="|>)([0-9])`); nil when absent or not 1-8.
    static func xmpOrientation(_ xmp: [UInt8]) -> Orientation? {
        let name = Array("tiff:Orientation".utf8)
        var at = 0
        while let i = ExifReader.find(name, in: xmp, from: at) {
            var j = i + name.count
            at = j
            if j + 1 < xmp.count, xmp[j] == UInt8(ascii: "="), xmp[j + 1] == UInt8(ascii: "\"") {
                j += 2
            } else if j < xmp.count, xmp[j] == UInt8(ascii: ">") {
                j += 1
            } else {
                continue
            }
            guard j < xmp.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(xmp[j]) else { continue }
            return Orientation(rawValue: Int(xmp[j] - UInt8(ascii: "0")))
        }
        return nil
    }

    /// The first index of `needle` in `haystack` at or after `from`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var i = from
        while i <= haystack.count - needle.count {
            guard let k = haystack[i...].firstIndex(of: first), k <= haystack.count - needle.count else { return nil }
            if haystack[k ..< k + needle.count].elementsEqual(needle) { return k }
            i = k + 1
        }
        return nil
    }
}

/// Why an EXIF block was ignored. Broken EXIF never fails an image: it means
/// orientation 1 and a warning.
package enum ExifError: Error, Equatable, CustomStringConvertible {
    case truncated
    case badByteOrder
    case offsetOutOfRange
    case badOrientationEntry
    case badOrientationValue(Int)

    package var description: String {
        switch self {
        case .truncated: return "EXIF block is truncated"
        case .badByteOrder: return "EXIF block has no valid TIFF header"
        case .offsetOutOfRange: return "EXIF IFD offset points outside the block"
        case .badOrientationEntry: return "EXIF orientation entry has the wrong type or count"
        case .badOrientationValue(let v): return "EXIF orientation \(v) is not 1-8"
        }
    }
}
