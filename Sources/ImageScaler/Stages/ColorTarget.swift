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

    package typealias Intent = RenderOptions.Intent

    package init(name: String, icc: [UInt8], intent: Intent) {
        self.name = name
        self.icc = icc
        self.intent = intent
    }

    /// The target `profile` names; `label` names a given ICC profile in plans.
    package init(_ profile: RenderOptions.ExportProfile, intent: Intent, label: String = "the given ICC profile") {
        switch profile {
        case .srgb: self.init(name: "sRGB", icc: ColorTarget.srgbProfile, intent: intent)
        case .p3: self.init(name: "Display P3", icc: ColorTarget.p3Profile, intent: intent)
        case .adobeRGB: self.init(name: "Adobe RGB (1998)", icc: ColorTarget.adobeRGBProfile, intent: intent)
        case .icc(let bytes): self.init(name: label, icc: bytes, intent: intent)
        }
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

extension RenderOptions.Intent {
    /// Little CMS's number for the intent (the cases are in its order).
    var code: Int32 { Int32(RenderOptions.Intent.allCases.firstIndex(of: self)!) }
}
