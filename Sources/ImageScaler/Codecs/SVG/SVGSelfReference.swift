/// An SVG whose `<image>` refers to the document itself (`href=""`, or the file's own
/// name beside it), drawn as rsvg-convert draws it from its file: the document once more
/// inside the image's box, where its own self-reference draws nothing. imgscale gives
/// librsvg no base file (so nothing outside the document is ever read); the reference is
/// made a `data:` URI of the document instead, which librsvg draws the same way and
/// `SVGEmbeddedImages` then holds to the limits of any image inside an SVG.
///
/// The rewritten document holds one copy of the document, base64, per self-reference;
/// past `maxBytes` in all it is refused rather than grown.
enum SVGSelfReference {
    static let uriPrefix = SVGBytes.marker("data:image/svg+xml;base64,")
    static let imageTag = SVGBytes.marker("<image"), hrefName = SVGBytes.marker("href")

    /// `document` with each self-referring `<image>` href made a `data:` URI of it.
    static func resolved(_ document: [UInt8], fileName: String?, maxBytes: Int) throws -> [UInt8] {
        let names: Set<[UInt8]> = Set([[]] + (fileName.map { [Array($0.utf8), Array(("./" + $0).utf8)] } ?? []))
        var values: [Range<Int>] = []
        var i = 0
        while let start = SVGBytes.find(imageTag, from: i, in: document) {
            let end = SVGBytes.find(SVGBytes.tagClose, from: start, in: document) ?? document.count
            if let value = hrefValue(in: document, from: start + imageTag.count, to: end),
               names.contains(trimmed(document[value])) {
                values.append(value)
            }
            i = end
        }
        guard !values.isEmpty else { return document }
        let uri = uriPrefix + Base64.encode(document)
        let (grown, overflow) = uri.count.multipliedReportingOverflow(by: values.count)
        guard !overflow, document.count + grown <= maxBytes else {
            throw DecodeError.invalid(.svg, "\(values.count) <image> elements refer to the document itself; drawn inside it they would be over \(maxBytes >> 20) MiB of SVG")
        }
        var out: [UInt8] = []
        out.reserveCapacity(document.count + grown)
        var copied = 0
        for value in values {
            out += document[copied..<value.lowerBound]
            out += uri
            copied = value.upperBound
        }
        out += document[copied...]
        return out
    }

    /// The range of the value of an `href` or `xlink:href` attribute between `from` and `to`.
    private static func hrefValue(in text: [UInt8], from: Int, to: Int) -> Range<Int>? {
        var p = from
        while p < to {
            guard let at = SVGBytes.find(hrefName, from: p, in: text), at < to else { return nil }
            p = at + 4
            // The attribute's name ends here, and starts after a space or a prefix's colon.
            guard [0x20, 0x09, 0x0A, 0x0D, 0x3A].contains(text[at - 1]) else { continue }
            var q = p
            while q < to, [0x20, 0x09, 0x0A, 0x0D].contains(text[q]) { q += 1 }
            guard q < to, text[q] == 0x3D else { continue }
            q += 1
            while q < to, [0x20, 0x09, 0x0A, 0x0D].contains(text[q]) { q += 1 }
            guard q < to, text[q] == 0x22 || text[q] == 0x27 else { continue }
            let quote = text[q]
            var end = q + 1
            while end < text.count, text[end] != quote { end += 1 }
            return q + 1 ..< end
        }
        return nil
    }

    private static func trimmed(_ value: ArraySlice<UInt8>) -> [UInt8] {
        let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        return Array(value.drop(while: { space.contains($0) }).reversed().drop(while: { space.contains($0) }).reversed())
    }
}
