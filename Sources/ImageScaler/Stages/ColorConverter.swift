import CLCMSShim

/// Converts decoded rows from the colour space of an embedded ICC profile (or sRGB) to
/// sRGB or an export profile (`ColorTarget`) through Little CMS, perceptual intent
/// unless the target says otherwise; gray stays gray, alpha passes through. For
/// CMYK, the raw ink values go in and RGB comes out, replacing the plain conversion.
final class ColorConverter {
    /// The layout of the rows going in.
    enum Layout {
        case gray, grayAlpha, rgb, rgba
        case cmyk(inverted: Bool)

        init(channels: Int) {
            self = [1: .gray, 2: .grayAlpha, 3: .rgb][channels] ?? .rgba
        }
    }

    private let transform: OpaquePointer
    let inputChannels: Int
    let outputChannels: Int

    /// Throws the reason when the profile cannot be used for these pixels. `sixteen`:
    /// the samples are 16-bit, native byte order (not for CMYK).
    init(profile: [UInt8]?, layout: Layout, sixteen: Bool = false, target: ColorTarget? = nil) throws {
        let code: Int32
        switch layout {
        case .gray: (code, inputChannels, outputChannels) = (Int32(CLCMS_GRAY), 1, 1)
        case .grayAlpha: (code, inputChannels, outputChannels) = (Int32(CLCMS_GRAY_ALPHA), 2, 2)
        case .rgb: (code, inputChannels, outputChannels) = (Int32(CLCMS_RGB), 3, 3)
        case .rgba: (code, inputChannels, outputChannels) = (Int32(CLCMS_RGBA), 4, 4)
        case .cmyk(let inverted): (code, inputChannels, outputChannels) = (Int32(inverted ? CLCMS_CMYK_INVERTED : CLCMS_CMYK), 4, 3)
        }
        var message = ShimMessage()
        let source = profile ?? []
        let goal = target?.icc ?? []
        guard let t = source.withUnsafeBufferPointer({ p in
            goal.withUnsafeBufferPointer { g in
                message.with {
                    clcms_between(profile == nil ? nil : p.baseAddress, UInt32(p.count), target == nil ? nil : g.baseAddress, UInt32(g.count),
                                  code, sixteen ? 1 : 0, target?.intent.code ?? 0, $0, $1)
                }
            }
        }) else {
            throw ColorError(reason: message.text)
        }
        transform = t
    }

    deinit { clcms_free(transform) }

    func convert(_ src: UnsafePointer<UInt8>, into dst: UnsafeMutablePointer<UInt8>, pixels: Int) {
        clcms_apply(transform, src, dst, pixels)
    }
}

/// Why an embedded profile could not be used for conversion (a warning, not a failure).
struct ColorError: Error, CustomStringConvertible {
    let reason: String
    var description: String { "cannot convert to sRGB: \(reason); colours left as stored" }
}
