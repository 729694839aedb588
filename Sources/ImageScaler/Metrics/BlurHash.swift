#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wolt's BlurHash of a picture, computed as `blurhash-python` (its C encoder) computes
/// it, so the string is its string: every sum and product in 32-bit floats in the C
/// code's order, the constants that C promotes to double promoted here too, and the
/// same libm `cosf` and `powf`. Alpha is ignored (the reference converts to RGB by
/// dropping it); gray counts as three equal channels. The cosines are tabled per column
/// and per row: each is the value C computes for that pixel, so the products are too.
public enum BlurHash {
    public static let componentRange = 1...9

    /// The hash with `x` by `y` components (each 1-9); nil outside that range or for an
    /// empty picture.
    public static func hash(_ image: PixelBuffer, x xComponents: Int = 4, y yComponents: Int = 3) -> String? {
        guard componentRange.contains(xComponents), componentRange.contains(yComponents), image.width > 0, image.height > 0 else { return nil }
        let w = image.width, h = image.height, c = image.channels
        let linear = (0..<256).map(toLinear)
        // Each pixel's three linear values, read once.
        var lin = [Float](repeating: 0, count: w * h * 3)
        image.pixels.withUnsafeBufferPointer { p in
            for i in 0..<w * h {
                let s = i * c
                let (r, g, b) = c >= 3 ? (p[s], p[s + 1], p[s + 2]) : (p[s], p[s], p[s])
                lin[3 * i] = linear[Int(r)]; lin[3 * i + 1] = linear[Int(g)]; lin[3 * i + 2] = linear[Int(b)]
            }
        }
        func cosines(_ k: Int, _ n: Int) -> [Float] {
            (0..<n).map { i in cosf(Float(Double.pi * Double(k) * Double(i) / Double(n))) }
        }
        var factors: [(Float, Float, Float)] = []
        for yc in 0..<yComponents {
            let cy = cosines(yc, h)
            for xc in 0..<xComponents {
                let cx = cosines(xc, w)
                var r: Float = 0, g: Float = 0, b: Float = 0
                for y in 0..<h {
                    for x in 0..<w {
                        let basis = cx[x] * cy[y], i = 3 * (y * w + x)
                        r += basis * lin[i]
                        g += basis * lin[i + 1]
                        b += basis * lin[i + 2]
                    }
                }
                let scale = Float(xc == 0 && yc == 0 ? 1 : 2) / Float(w * h)
                factors.append((r * scale, g * scale, b * scale))
            }
        }
        var text = sizeDigit(x: xComponents, y: yComponents)
        let ac = factors.dropFirst()
        var maximum: Float = 1
        if ac.isEmpty {
            text += digits(0, 1)
        } else {
            var actual: Float = 0
            for f in ac { actual = fmaxf(fabsf(f.0), actual); actual = fmaxf(fabsf(f.1), actual); actual = fmaxf(fabsf(f.2), actual) }
            let quantised = Int(fmaxf(0, fminf(82, floorf(Float(Double(actual * 166) - 0.5)))))
            maximum = (Float(quantised) + 1) / 166
            text += digits(quantised, 1)
        }
        let dc = factors[0]
        text += digits(toSRGB(dc.0) << 16 + toSRGB(dc.1) << 8 + toSRGB(dc.2), 4)
        for f in ac {
            func quantise(_ v: Float) -> Int {
                let root = copysignf(powf(fabsf(v / maximum), Float(0.5)), v / maximum)
                return Int(fmaxf(0, fminf(18, floorf(Float(Double(root * 9) + 9.5)))))
            }
            text += digits(quantise(f.0) * 19 * 19 + quantise(f.1) * 19 + quantise(f.2), 2)
        }
        return text
    }

    /// The first digit of a hash, which says its components.
    public static func sizeDigit(x: Int, y: Int) -> String { digits((x - 1) + (y - 1) * 9, 1) }

    /// An sRGB byte in linear light, as the C `sRGBToLinear` rounds it.
    private static func toLinear(_ value: Int) -> Float {
        let v = Float(value) / 255
        if Double(v) <= 0.04045 { return Float(Double(v) / 12.92) }
        return powf(Float((Double(v) + 0.055) / 1.055), Float(2.4))
    }

    /// Linear light back to an sRGB byte, as the C `linearTosRGB` truncates it.
    private static func toSRGB(_ value: Float) -> Int {
        let v = fmaxf(0, fminf(1, value))
        if Double(v) <= 0.0031308 { return Int(Double(v) * 12.92 * 255 + 0.5) }
        return Int((1.055 * Double(powf(v, Float(1 / 2.4))) - 0.055) * 255 + 0.5)
    }

    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    /// `value` in base 83, `length` digits, the most significant first.
    private static func digits(_ value: Int, _ length: Int) -> String {
        var divisor = 1
        for _ in 1..<max(length, 1) { divisor *= 83 }
        var s = ""
        for _ in 0..<length {
            s.append(alphabet[(value / divisor) % 83])
            divisor /= 83
        }
        return s
    }
}
