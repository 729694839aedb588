import Glibc

/// sRGB's transfer curve undone and redone on 16-bit samples, by tables: `toLinear`
/// maps a 16-bit sRGB-encoded level to linear light at 16 bits (0-65535), `toSRGB` back,
/// each rounded to nearest. Colour channels only: alpha is linear already. An 8-bit
/// image widened exactly (v x 257), taken to linear, resampled by nothing and brought
/// back, narrows to itself: the darkest 8-bit step, 1/255 in sRGB, is 20 levels of
/// linear 16-bit, so no two 8-bit levels meet. The tables are built once from the IEC
/// 61966-2-1 formulas in double precision; what they hold is integers, so the pixels
/// never see floating point.
enum LinearLight {
    /// sRGB-encoded level -> linear level.
    static let toLinear: [UInt16] = (0...65535).map { v in
        let c = Double(v) / 65535
        let l = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        return UInt16((l * 65535).rounded())
    }

    /// Linear level -> sRGB-encoded level.
    static let toSRGB: [UInt16] = (0...65535).map { v in
        let l = Double(v) / 65535
        let c = l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055
        return UInt16((min(max(c, 0), 1) * 65535).rounded())
    }

    /// An 8-bit sRGB level -> linear level: `toLinear` of the level widened (v x 257).
    static let fromEightBits: [UInt16] = (0...255).map { toLinear[$0 * 257] }

    /// `image`'s colour channels through `table`.
    static func map(_ image: WideImage, _ table: [UInt16]) -> WideImage {
        var out = image
        let ch = image.channels, colour = image.hasAlpha ? ch - 1 : ch
        table.withUnsafeBufferPointer { t in
            out.samples.withUnsafeMutableBufferPointer { s in
                for p in stride(from: 0, to: s.count, by: ch) {
                    for c in 0..<colour { s[p + c] = t[Int(s[p + c])] }
                }
            }
        }
        return out
    }
}
