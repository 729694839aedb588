import CJPEGOwnDecoders
import CJPEGShim
import Glibc

/// Whether imgscale's own JPEG entropy decoders (jpeg_entropy.c in libjpeg's place,
/// jpeg_eighth.c at 1/8) run, or libjpeg decodes every file alone. They are off where
/// the linked libjpeg-turbo is not one they were written for (decided at build time,
/// jpeg_reader.h); where, at first use, they do not give libjpeg's own pixels for small
/// images encoded there and then (the known answer: a library whose private decoder
/// struct or call order changed under the same version range); and wherever
/// `IMGSCALE_JPEG_DECODER=libjpeg` is set: the switch for the field, giving libjpeg's
/// pixels and messages only, for a doubt or a bug report. Decided once per process.
enum JPEGOwnDecoders {
    private enum State {
        case on, notBuilt, switchedOff, disagreed
    }

    private static let state: State = {
        guard cjpeg_own_decoders_built() != 0 else { return .notBuilt }
        if let choice = getenv("IMGSCALE_JPEG_DECODER"), String(cString: choice) == "libjpeg" { return .switchedOff }
        return agreeWithLibjpeg() ? .on : .disagreed
    }()

    static var enabled: Bool { state == .on }

    /// For `--version`: how this process decodes JPEG entropy data, when not as usual.
    static var note: String {
        switch state {
        case .on: return ""
        case .notBuilt: return " (decoding alone: imgscale's entropy decoders are not built for it)"
        case .switchedOff: return " (decoding alone: IMGSCALE_JPEG_DECODER=libjpeg)"
        case .disagreed: return " (decoding alone: imgscale's entropy decoders differ from it on a known image)"
        }
    }

    /// For `--verbose`: why JPEG is decoded by libjpeg alone, when the check found the
    /// own decoders wrong for this library.
    static var disagreement: String? {
        guard state == .disagreed else { return nil }
        let v = Int(cjpeg_version())
        return "imgscale's own JPEG entropy decoders differ from libjpeg-turbo \(v / 1_000_000).\(v / 1000 % 1000).\(v % 1000) on a known image; every JPEG is decoded by libjpeg alone"
    }

    /// The known answer: two 64x40 images (4:2:0 with fitted tables, and progressive
    /// 4:4:4), each decoded by the own decoders and by libjpeg alone, at full size and at
    /// 1/8, must give the same bytes. Under a millisecond, once. IMGSCALE_TEST_JPEG_MISMATCH
    /// alters the own decoders' pixels, so the tests can see the fallback work.
    private static func agreeWithLibjpeg() -> Bool {
        let (width, height) = (64, 40)
        var seed: UInt32 = 12345
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                // Gradients for the DC terms, noise for the AC terms and long Huffman codes.
                seed = seed &* 1_103_515_245 &+ 12345
                let noise = Int(seed >> 26)
                let i = (y * width + x) * 3
                pixels[i] = UInt8(truncatingIfNeeded: x * 4 + noise)
                pixels[i + 1] = UInt8(truncatingIfNeeded: y * 6 + (x / 8) * 16)
                pixels[i + 2] = UInt8(truncatingIfNeeded: (x ^ y) * 3 + noise * 2)
            }
        }
        let image = PixelBuffer(width: width, height: height, channels: 3, validPixels: pixels)
        var plain = EncodeOptions()
        plain.quality = 90
        var progressive = EncodeOptions()
        progressive.progressive = true
        progressive.subsampling = .s444
        let broken = getenv("IMGSCALE_TEST_JPEG_MISMATCH") != nil
        for options in [plain, progressive] {
            guard let data = try? JPEGEncoder(width: width, height: height, channels: 3, options: options).encode(image) else { return false }
            for shrink in [1, 8] {
                var own = DecodeOptions(), alone = DecodeOptions()
                (own.shrink, alone.shrink) = (shrink, shrink)
                own.forcingOwnJPEGDecoders = true
                alone.libjpegOnly = true
                guard var mine = try? JPEGCodec.decode(data, options: own).0.pixels,
                      let libjpeg = try? JPEGCodec.decode(data, options: alone).0.pixels else { return false }
                if broken { mine[0] ^= 1 }
                if mine != libjpeg { return false }
            }
        }
        return true
    }
}
