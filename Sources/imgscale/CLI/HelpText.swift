import ImageScaler

/// The parts of the option help that name formats, made from the codecs' descriptors
/// (`ImageFormat.taking`, `ImageFormat.numbers`), so `--help` and the man page cannot
/// drift from what the encoders take and default to.
enum HelpText {
    /// "JPEG, WebP and AVIF": the formats taking `option`.
    static func formats(_ option: EncoderOption, or: Bool = false) -> String {
        ImageFormat.names(ImageFormat.taking(option), or: or)
    }

    /// "JPEG 85, WebP 80, HEIC/AVIF 50, JPEG XL 75": each format's default, formats next
    /// to each other with the same one joined.
    static func defaults(_ option: EncoderOption) -> String {
        grouped(option, by: { $0.defaultValue }).map { "\($0.formats.map(\.displayName).joined(separator: "/")) \($0.key)" }.joined(separator: ", ")
    }

    /// "WebP (0-6), HEIC and AVIF (0-9), JPEG XL (1-9)": each format's values.
    static func ranges(_ option: EncoderOption) -> String {
        grouped(option, by: { values($0.values) }).map { "\(ImageFormat.names($0.formats)) (\($0.key))" }.joined(separator: ", ")
    }

    /// Every value some format takes for `option`.
    static func span(_ option: EncoderOption) -> ClosedRange<Int> {
        let numbers = ImageFormat.numbers(option)
        guard let low = numbers.map(\.values.lowerBound).min(), let high = numbers.map(\.values.upperBound).max() else { return 0...0 }
        return low...high
    }

    static func values(_ range: ClosedRange<Int>) -> String { "\(range.lowerBound)-\(range.upperBound)" }

    private static func grouped<Key: Equatable>(_ option: EncoderOption,
                                                by key: ((format: ImageFormat, values: ClosedRange<Int>, defaultValue: Int)) -> Key) -> [(formats: [ImageFormat], key: Key)] {
        var groups: [(formats: [ImageFormat], key: Key)] = []
        for number in ImageFormat.numbers(option) {
            let k = key(number)
            if let last = groups.last, last.key == k {
                groups[groups.count - 1].formats.append(number.format)
            } else {
                groups.append(([number.format], k))
            }
        }
        return groups
    }
}
