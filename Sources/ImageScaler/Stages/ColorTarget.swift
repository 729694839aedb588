import CLCMSShim
import Glibc

/// Where `--export-profile` sends the pixels: an RGB ICC profile (`icc`, embedded in the
/// output as it is) and the Little CMS rendering intent to get there. The pixels come
/// from the input's own profile, or from sRGB when it has none; gray images keep their
/// gray. `name` is what plans print.
package struct ColorTarget: Sendable, Equatable {
    package let name: String
    package let icc: [UInt8]
    package let intent: Intent

    /// ICC's rendering intents, by Little CMS's numbers.
    package enum Intent: String, Sendable, CaseIterable {
        case perceptual, relative, saturation, absolute
        var code: Int32 { Int32(Intent.allCases.firstIndex(of: self)!) }
    }

    package init(name: String, icc: [UInt8], intent: Intent) {
        self.name = name
        self.icc = icc
        self.intent = intent
    }

    /// A profile Little CMS makes (`CLCMS_SRGB`, `CLCMS_P3`, `CLCMS_ADOBE_RGB`), the same
    /// bytes every run.
    static func made(_ which: Int32) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var length: UInt32 = 0
        var message = ShimMessage()
        let status = message.with { clcms_named_profile(which, &out, &length, $0, $1) }
        // Invariant: making a matrix-shaper profile fails only when memory does.
        precondition(status == 0 && out != nil, "Little CMS could not make a built-in profile: \(message.text)")
        defer { free(out) }
        var bytes = Array(UnsafeBufferPointer(start: out, count: Int(length)))
        // Little CMS stamps the header with the time it made the profile (bytes 24-35,
        // six big-endian words); a fixed date keeps every output's bytes the same.
        if bytes.count >= 36 {
            let date: [UInt16] = [2026, 1, 1, 0, 0, 0]
            for (k, v) in date.enumerated() { bytes[24 + 2 * k] = UInt8(v >> 8); bytes[25 + 2 * k] = UInt8(v & 0xFF) }
        }
        return bytes
    }

    package static let srgbProfile = made(Int32(CLCMS_SRGB))
    package static let p3Profile = made(Int32(CLCMS_P3))
    package static let adobeRGBProfile = made(Int32(CLCMS_ADOBE_RGB))
}
