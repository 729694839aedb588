/// The images an SVG carries inside it (`data:` URIs, which librsvg loads without a base
/// file), each held to the limits the same file given alone meets, before librsvg sees
/// them: an SVG of 2 KB wrapping a PNG of 20000x20000 took 1.17 GiB, and under a smaller
/// `--max-memory` the image silently vanished from the drawing.
///
/// - Every `data:` URI in the document is found, numeric character references (`&#100;`)
///   read as the characters they stand for, inside an entity's definition too.
/// - Its bytes must be a PNG, JPEG or GIF (what librsvg draws through gdk-pixbuf) within
///   the pixel limit, or an SVG passing `SVGCost`, at most `maxDepth` deep; anything else
///   would be dropped from the drawing, so it is refused instead, never silently lost.
/// - `bytes` is what librsvg holds for them (each URI decoded once, as it caches them): a
///   pixbuf and a cairo surface of each raster, and the tree of each SVG.
struct SVGEmbeddedImages {
    static let maxDepth = 2
    /// gdk-pixbuf's decode and librsvg's surface made from it, 4 bytes a pixel each.
    static let bytesPerPixel = 8

    let bytes: Int

    init(_ document: [UInt8], options: DecodeOptions, depth: Int = 0) throws {
        var total = 0
        var seen = Set<[UInt8]>()
        let text = SVGEmbeddedImages.referencesResolved(document)
        var i = 0
        while let start = SVGBytes.find(SVGBytes.dataScheme, from: i, in: text, anyCase: true) {
            // A URI is an attribute's value or a CSS url(): "data:" in text is not one.
            guard start > 0, [0x22, 0x27, 0x28].contains(text[start - 1]) else { i = start + 5; continue }
            let (uri, end) = SVGEmbeddedImages.uri(in: text, at: start)
            i = end
            // One with no ',' holds nothing anyone could load.
            guard seen.insert(uri).inserted, let payload = SVGEmbeddedImages.payload(uri) else { continue }
            total = total.addingReportingOverflow(try SVGEmbeddedImages.cost(payload, options: options, depth: depth)).partialValue
        }
        bytes = total
    }

    /// What one embedded image costs librsvg, or why it is refused.
    private static func cost(_ bytes: [UInt8], options: DecodeOptions, depth: Int) throws -> Int {
        func refuse(_ why: String) -> DecodeError { .invalid(.svg, "an <image>'s data: URI " + why) }
        guard let format = ImageFormat.sniff(bytes) else { throw refuse("holds no image librsvg draws (PNG, JPEG, GIF or SVG)") }
        if format == .svg {
            guard depth + 1 < maxDepth else { throw refuse("holds an SVG inside an SVG inside an SVG, which imgscale does not draw") }
            let inner = try SVGDecoder.inflated(bytes, options: options)
            _ = try SVGCost.check(inner)
            let nested = try SVGEmbeddedImages(inner, options: options, depth: depth + 1)
            return inner.count + SVGDecoder.elementCount(inner) * SVGDecoder.bytesPerElement + nested.bytes
        }
        guard [.png, .jpeg, .gif].contains(format) else {
            throw refuse("holds \(format.displayName), which librsvg does not draw (PNG, JPEG, GIF or SVG)")
        }
        let info: ImageInfo
        do { info = try ImageFile.info(bytes, options: options) } catch { throw refuse("holds a damaged \(format.displayName): \(error)") }
        do { try options.check(info.size) } catch { throw refuse("holds a \(format.displayName) of \(info.size): \(error)") }
        let (cost, overflow) = (info.size.width * info.size.height).multipliedReportingOverflow(by: bytesPerPixel)
        return overflow ? Int.max / 2 : cost
    }

    /// `&#NNN;` and `&#xHH;` of ASCII characters replaced by the character, so a
    /// reference cannot hide a URI from the scan (librsvg's XML parser reads them so).
    private static func referencesResolved(_ data: [UInt8]) -> [UInt8] {
        guard data.contains(0x26) else { return data }
        var out: [UInt8] = []
        out.reserveCapacity(data.count)
        var i = 0
        while i < data.count {
            if data[i] == 0x26, i + 2 < data.count, data[i + 1] == 0x23 {
                let hex = data[i + 2] | 0x20 == 0x78
                var j = i + (hex ? 3 : 2), value = 0
                while j < data.count, j - i < 12, let digit = digitValue(data[j], hex: hex) {
                    value = value * (hex ? 16 : 10) + digit
                    j += 1
                }
                if j < data.count, data[j] == 0x3B, j > i + (hex ? 3 : 2), value < 128 {
                    out.append(UInt8(value))
                    i = j + 1
                    continue
                }
            }
            out.append(data[i])
            i += 1
        }
        return out
    }

    private static func digitValue(_ c: UInt8, hex: Bool) -> Int? {
        switch c {
        case 0x30...0x39: return Int(c - 0x30)
        case 0x61...0x66 where hex: return Int(c - 0x61 + 10)
        case 0x41...0x46 where hex: return Int(c - 0x41 + 10)
        default: return nil
        }
    }

    /// The URI starting at `start` (at `data:`, after a quote or a parenthesis), ended by
    /// what opened it, and the index after it.
    private static func uri(in text: [UInt8], at start: Int) -> ([UInt8], Int) {
        let opener = text[start - 1]
        let closers: Set<UInt8> = opener == 0x22 ? [0x22] : opener == 0x27 ? [0x27] : [0x29, 0x22, 0x27]
        var end = start
        while end < text.count, !closers.contains(text[end]) { end += 1 }
        return (Array(text[start..<end]), end)
    }

    /// The bytes a `data:` URI holds: base64 (white space skipped, as librsvg skips it) or
    /// percent-encoded.
    private static func payload(_ uri: [UInt8]) -> [UInt8]? {
        guard let comma = uri.firstIndex(of: 0x2C) else { return nil }
        let header = String(decoding: uri[..<comma], as: UTF8.self).lowercased()
        let body = uri[(comma + 1)...]
        return header.hasSuffix(";base64") ? base64(body) : percentDecoded(body)
    }

    private static func base64(_ body: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(body.count * 3 / 4)
        var bits = 0, count = 0
        for c in body {
            let v: Int
            switch c {
            case 0x41...0x5A: v = Int(c - 0x41)
            case 0x61...0x7A: v = Int(c - 0x61 + 26)
            case 0x30...0x39: v = Int(c - 0x30 + 52)
            case 0x2B, 0x2D: v = 62
            case 0x2F, 0x5F: v = 63
            default: continue
            }
            bits = (bits << 6 | v) & 0xFFFFFF
            count += 6
            if count >= 8 {
                count -= 8
                out.append(UInt8(truncatingIfNeeded: bits >> count))
            }
        }
        return out
    }

    private static func percentDecoded(_ body: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        var i = body.startIndex
        while i < body.endIndex {
            if body[i] == 0x25, i + 2 < body.endIndex, let hi = digitValue(body[i + 1], hex: true), let lo = digitValue(body[i + 2], hex: true) {
                out.append(UInt8(hi * 16 + lo))
                i += 3
            } else {
                out.append(body[i])
                i += 1
            }
        }
        return out
    }
}
