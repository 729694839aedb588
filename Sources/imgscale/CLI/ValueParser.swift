import ImageScaler

/// Parses option values strictly: digits only, no signs or spaces where a size is asked,
/// so `0x10`, `ax` or `64x` are usage errors rather than surprises.
enum ValueParser {
    static func int(_ text: String, option: String, range: ClosedRange<Int>) throws -> Int {
        guard let v = Int(text), range.contains(v), text.first != "+" else {
            throw UsageError(message: "--\(option) must be an integer from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return v
    }

    /// The largest side or coordinate accepted: 2^24 is far beyond any real image
    /// (PNG allows 2^31, JPEG 65500) yet keeps every product in the geometry well inside
    /// 64 bits, so no size can overflow the arithmetic downstream.
    static let maxDimension = 1 << 24

    static func positive(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), let v = Int(text), v > 0,
              v <= maxDimension else { return nil }
        return v
    }

    /// `WxH`, both positive.
    static func size(_ text: String, option: String, oneSided: Bool = false) throws -> Size {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        // `Wx` or `xH`: the open side is the largest one, so the other decides.
        if oneSided, parts.count == 2, parts[0].isEmpty != parts[1].isEmpty {
            let w = parts[0].isEmpty ? Size.unbounded : positive(parts[0])
            let h = parts[1].isEmpty ? Size.unbounded : positive(parts[1])
            if let w, let h { return Size(width: w, height: h) }
        }
        guard parts.count == 2, let w = positive(parts[0]), let h = positive(parts[1]) else {
            let forms = oneSided ? "WIDTHxHEIGHT, WIDTHx or xHEIGHT" : "WIDTHxHEIGHT"
            throw UsageError(message: "--\(option) must be \(forms) with positive integers up to \(maxDimension), like 256x256, not '\(text)'")
        }
        return Size(width: w, height: h)
    }

    /// A size as `size` reads it back: `320x` for a width-only size.
    static func text(of size: Size) -> String {
        (size.width == Size.unbounded ? "" : String(size.width)) + "x" + (size.height == Size.unbounded ? "" : String(size.height))
    }

    /// `X,Y,W,H`: W and H positive; X and Y integers, negative allowed since the rect is
    /// clipped to the image as CGImage.cropping(to:) does.
    static func rect(_ text: String, option: String) throws -> Rect {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        func coordinate(_ s: Substring) -> Int? {
            let digits = s.first == "-" ? s.dropFirst() : s
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let v = Int(s),
                  abs(v) <= maxDimension else { return nil }
            return v
        }
        guard parts.count == 4, let x = coordinate(parts[0]), let y = coordinate(parts[1]),
              let w = positive(parts[2]), let h = positive(parts[3]) else {
            throw UsageError(message: "--\(option) must be X,Y,W,H with integer X,Y and positive W,H, like 10,20,300,200, not '\(text)'")
        }
        return Rect(x: x, y: y, width: w, height: h)
    }

    /// `SIZE`: bytes, or a number with K, M, G or T (powers of 1024; "MiB", "MB" and
    /// "M" all mean 2^20, as in sort -S and ulimit).
    static func byteSize(_ text: String, option: String) throws -> Int {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        let unit = text.dropFirst(digits.count).lowercased()
        let shifts = ["": 0, "b": 0, "k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20,
                      "g": 30, "gb": 30, "gib": 30, "t": 40, "tb": 40, "tib": 40]
        guard !digits.isEmpty, let n = Int(digits), let shift = shifts[unit] else {
            throw UsageError(message: "--\(option) must be a size like 512M, 2G or 1048576, not '\(text)'")
        }
        let (bytes, overflow) = n.multipliedReportingOverflow(by: 1 << shift)
        guard !overflow else { throw UsageError(message: "--\(option) is too large: '\(text)'") }
        return bytes
    }
}
