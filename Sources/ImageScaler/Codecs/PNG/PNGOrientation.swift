/// A PNG's orientation as Pillow's `exif_transpose` finds it: the eXIf chunk's tag, or
/// (without an eXIf) the EXIF ImageMagick writes as hex in a "Raw profile type exif"
/// text chunk, and when neither has the tag, XMP's `tiff:Orientation`. Broken EXIF is
/// orientation 1 and a warning, as in JPEG.
enum PNGOrientation {
    /// The orientation, the EXIF block it came from (for outputs that keep metadata),
    /// and warnings.
    static func find(exif: [UInt8]?, rawProfile: [UInt8]?, xmp: [UInt8]?) -> (Orientation, exif: [UInt8]?, warnings: [String]) {
        var warnings: [String] = []
        let block = exif ?? rawProfile.flatMap(decodeRawProfile)
        if let block {
            switch ExifReader.orientation(in: block) {
            case .success(let o) where o != .up: return (o, block, [])
            case .success: if ExifReader.hasOrientation(block) { return (.up, block, []) }
            case .failure(let e): warnings.append("ignoring broken EXIF (\(e)); orientation 1 assumed")
            }
        }
        if warnings.isEmpty, let xmp, let o = ExifReader.xmpOrientation(xmp) { return (o, block, []) }
        return (.up, block, warnings)
    }

    /// The bytes of ImageMagick's raw profile: a blank line, the profile's name, its
    /// length, then hex digits over many lines; "Exif\0\0" before the TIFF header is
    /// dropped. Nil when the digits do not make bytes.
    static func decodeRawProfile(_ text: [UInt8]) -> [UInt8]? {
        var lines = text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard lines.count > 3 else { return nil }
        lines.removeFirst(3)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2)
        var high: UInt8? = nil
        for line in lines {
            for c in line {
                let v: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): continue
                default: return nil
                }
                if let h = high {
                    bytes.append(h << 4 | v)
                    high = nil
                } else {
                    high = v
                }
            }
        }
        if bytes.starts(with: Array("Exif\0\0".utf8)) { bytes.removeFirst(6) }
        return bytes.isEmpty ? nil : bytes
    }
}
