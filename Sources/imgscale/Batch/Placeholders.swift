import ImageScaler

/// One output's `--placeholder` fields as its report line carries them: each kind's
/// name with its value as JSON (a string, or null for the colour of a wholly
/// transparent picture), in the order asked. The same text travels from a worker, and
/// is kept in `--if-changed`'s manifest so that a skipped output is reported whole.
struct Placeholders: Sendable, Equatable {
    private(set) var fields: [(key: String, json: String)] = []

    init() {}

    /// Computed from an output's preview (`RenderResult.preview`).
    init(_ kinds: [Placeholder], of preview: PixelBuffer, blurhash: (x: Int, y: Int)) throws {
        for kind in kinds {
            fields.append((kind.rawValue, try kind.value(of: preview, blurhash: blurhash).map(JSON.quote) ?? "null"))
        }
    }

    /// Computed from an output's file: what a skipped output without them in the manifest
    /// is reported with (a lossy file's pixels are what it decodes to, not what was encoded).
    init(_ kinds: [Placeholder], ofFile data: [UInt8], decode: DecodeOptions, blurhash: (x: Int, y: Int)) throws {
        let (image, _) = try ImageOperation.convert.perform(on: data, decode: decode, autoOrient: true)
        try self.init(kinds, of: Placeholder.preview(of: image), blurhash: blurhash)
    }

    /// `key=json` lines (no value holds a newline), for the wire and the manifest.
    var text: String { fields.map { "\($0.key)=\($0.json)" }.joined(separator: "\n") }

    init?(text: String) {
        guard !text.isEmpty else { return }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let eq = line.firstIndex(of: "="), Placeholder(rawValue: String(line[..<eq])) != nil else { return nil }
            fields.append((String(line[..<eq]), String(line[line.index(after: eq)...])))
        }
    }

    /// The fields `kinds` asks for, when every one is here (a BlurHash of the components
    /// asked: its first digit says them); nil when any is missing.
    func selecting(_ kinds: [Placeholder], blurhash: (x: Int, y: Int)) -> Placeholders? {
        var picked = Placeholders()
        for kind in kinds {
            guard let field = fields.first(where: { $0.key == kind.rawValue }) else { return nil }
            if kind == .blurhash, !field.json.hasPrefix("\"" + BlurHash.sizeDigit(x: blurhash.x, y: blurhash.y)) { return nil }
            picked.fields.append(field)
        }
        return picked
    }

    static func == (a: Placeholders, b: Placeholders) -> Bool { a.text == b.text }
}
