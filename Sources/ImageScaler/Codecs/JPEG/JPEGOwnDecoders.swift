import CJPEGOwnDecoders
import CJPEGShim
import Glibc

/// Whether imgscale's own JPEG entropy decoders (jpeg_entropy.c in libjpeg's place,
/// jpeg_eighth.c at 1/8) run, or libjpeg decodes every file alone. They are off where
/// the linked libjpeg-turbo is not one they were written for (decided at build time,
/// jpeg_reader.h), and wherever `IMGSCALE_JPEG_DECODER=libjpeg` is set: the switch for
/// the field, giving libjpeg's pixels and libjpeg's messages only, for a doubt or a bug
/// report. Read once per process.
enum JPEGOwnDecoders {
    static let enabled: Bool = {
        guard cjpeg_own_decoders_built() != 0 else { return false }
        guard let choice = getenv("IMGSCALE_JPEG_DECODER") else { return true }
        return String(cString: choice) != "libjpeg"
    }()

    /// For `--version`: how this process decodes JPEG entropy data, when not as usual.
    static var note: String {
        if cjpeg_own_decoders_built() == 0 { return " (decoding alone: imgscale's entropy decoders are not built for it)" }
        return enabled ? "" : " (decoding alone: IMGSCALE_JPEG_DECODER=libjpeg)"
    }
}
