/// Byte searches over an SVG document's text, for the scans that read its tags before
/// librsvg does (`SVGCost`, `SVGEmbeddedImages`): the markers they look for are made once
/// (`marker`), never per call, since a scan asks at every `<` of a document that may hold
/// half a million tags.
enum SVGBytes {
    static let commentOpen = marker("<!--"), commentClose = marker("-->")
    static let cdataOpen = marker("<![CDATA["), cdataClose = marker("]]>")
    static let processing = marker("<?"), declaration = marker("<!"), endTag = marker("</"), tagClose = marker(">")
    static let dataScheme = marker("data:")

    static func marker(_ text: StaticString) -> [UInt8] {
        Array(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Whether `text` holds `needle` at `at`.
    static func starts(_ needle: [UInt8], at: Int, in text: [UInt8]) -> Bool {
        guard at >= 0, at + needle.count <= text.count else { return false }
        for k in 0..<needle.count where text[at + k] != needle[k] { return false }
        return true
    }

    /// The first `needle` at or after `from`; with `anyCase`, ASCII letters match in either case.
    static func find(_ needle: [UInt8], from: Int, in text: [UInt8], anyCase: Bool = false) -> Int? {
        guard !needle.isEmpty, needle.count <= text.count else { return nil }
        let fold: UInt8 = anyCase ? 0x20 : 0
        var q = max(from, 0)
        while q + needle.count <= text.count {
            var k = 0
            while k < needle.count, text[q + k] | fold == needle[k] | fold { k += 1 }
            if k == needle.count { return q }
            q += 1
        }
        return nil
    }
}
