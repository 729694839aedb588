import CGIFShim
import CHEIFShim
import CJPEGShim
import CLCMSShim
import CPNGShim
import CWebPShim

/// The codec libraries imgscale is linked with and their versions, as bug reports need
/// them: asked of the libraries at run time where they can say (libpng, lcms2,
/// libwebp), from their headers where they cannot (libjpeg-turbo, giflib) or where
/// asking would load one that is opened only on first use (libheif).
public enum LibraryVersions {
    public static var all: [(name: String, version: String)] {
        let jpeg = Int(cjpeg_version()), lcms = Int(clcms_version()), webp = Int(cwebp_version()), gif = Int(cgif_version())
        return [
            ("libpng", String(cString: cpng_version())),
            ("libjpeg-turbo", "\(jpeg / 1_000_000).\(jpeg / 1000 % 1000).\(jpeg % 1000)"),
            ("lcms2", "\(lcms / 1000).\(lcms / 10 % 100)"),
            ("libwebp", "\(webp >> 16).\(webp >> 8 & 0xFF).\(webp & 0xFF)"),
            ("libheif", String(cString: cheif_version())),
            ("giflib", "\(gif / 10000).\(gif / 100 % 100).\(gif % 100)"),
        ]
    }
}
