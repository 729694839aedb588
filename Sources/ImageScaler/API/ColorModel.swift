extension ImageInfo {
    /// The colour model a file stores its samples in, as `info` names it.
    public enum ColorModel: String, Sendable, CaseIterable {
        case gray
        case grayAlpha = "gray+alpha"
        case rgb
        case rgba
        case palette
        case cmyk
        case unknown
    }
}

/// The name the package's own code uses.
package typealias ColorModel = ImageInfo.ColorModel
