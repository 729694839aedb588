/// An opaque 8-bit sRGB colour, as `--background RRGGBB` gives it.
public struct RGBColor: Equatable, Sendable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let white = RGBColor(red: 255, green: 255, blue: 255)

    /// Parses `RRGGBB` (a leading `#` is allowed).
    public init?(hex: String) {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let v = UInt32(digits, radix: 16) else { return nil }
        self.init(red: UInt8(v >> 16), green: UInt8(v >> 8 & 0xFF), blue: UInt8(v & 0xFF))
    }

    /// "rrggbb", as `--background` takes it.
    public var hex: String {
        let digits = Array("0123456789abcdef")
        return [red, green, blue].map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined()
    }

    public var isGray: Bool { red == green && green == blue }
}
