/// An 8-bit sRGB colour with straight (not premultiplied) alpha, 255 opaque, as
/// `--background` gives it.
public struct RGBColor: Equatable, Sendable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let white = RGBColor(red: 255, green: 255, blue: 255)
    public static let transparent = RGBColor(red: 0, green: 0, blue: 0, alpha: 0)

    public var isOpaque: Bool { alpha == 255 }

    /// Parses what CSS and ImageMagick users write, case-insensitively: `RRGGBB`,
    /// `RRGGBBAA`, `RGB`, `RGBA` (each digit doubled), with or without `#`;
    /// `transparent`; and the 148 CSS colour names.
    public init?(parsing text: String) {
        let word = text.lowercased()
        if word == "transparent" { self = .transparent; return }
        if let v = CSSColorNames.table[word] {
            self.init(red: UInt8(v >> 16), green: UInt8(v >> 8 & 0xFF), blue: UInt8(v & 0xFF))
            return
        }
        let digits = word.hasPrefix("#") ? String(word.dropFirst()) : word
        guard [3, 4, 6, 8].contains(digits.count), digits.allSatisfy(\.isHexDigit) else { return nil }
        let full = digits.count <= 4 ? String(digits.flatMap { [$0, $0] }) : digits
        guard let v = UInt32(full, radix: 16) else { return nil }
        let rgba = full.count == 8 ? v : v << 8 | 0xFF
        self.init(red: UInt8(rgba >> 24), green: UInt8(rgba >> 16 & 0xFF), blue: UInt8(rgba >> 8 & 0xFF), alpha: UInt8(rgba & 0xFF))
    }

    /// Parses `RRGGBB` (a leading `#` is allowed).
    public init?(hex: String) {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let v = UInt32(digits, radix: 16) else { return nil }
        self.init(red: UInt8(v >> 16), green: UInt8(v >> 8 & 0xFF), blue: UInt8(v & 0xFF))
    }

    /// "rrggbb", or "rrggbbaa" when not opaque, as `--background` takes it.
    public var hex: String {
        let digits: [Character] = Array("0123456789abcdef")
        let bytes: [UInt8] = isOpaque ? [red, green, blue] : [red, green, blue, alpha]
        var out = ""
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return out
    }

    public var isGray: Bool { red == green && green == blue }
}
