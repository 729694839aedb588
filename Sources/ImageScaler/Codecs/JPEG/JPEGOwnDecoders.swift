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

    /// What is known without decoding anything: not built, or switched off.
    private static let fixedState: State? = {
        guard cjpeg_own_decoders_built() != 0 else { return .notBuilt }
        if let choice = getenv("IMGSCALE_JPEG_DECODER"), String(cString: choice) == "libjpeg" { return .switchedOff }
        return nil
    }()

    private static let state: State = fixedState ?? (agreeWithLibjpeg() ? .on : .disagreed)

    static var enabled: Bool { state == .on }

    /// For `--version`: how this process decodes JPEG entropy data, when not as usual and
    /// known without the known-answer check (which `--version` should not pay for;
    /// `--verbose` says when the check failed).
    static var note: String {
        switch fixedState {
        case .notBuilt: return " (decoding alone: imgscale's entropy decoders are not built for it)"
        case .switchedOff: return " (decoding alone: IMGSCALE_JPEG_DECODER=libjpeg)"
        default: return ""
        }
    }

    /// For `--verbose`: why JPEG is decoded by libjpeg alone, when the check found the
    /// own decoders wrong for this library.
    static var disagreement: String? {
        guard state == .disagreed else { return nil }
        let v = Int(cjpeg_version())
        return "imgscale's own JPEG entropy decoders differ from libjpeg-turbo \(v / 1_000_000).\(v / 1000 % 1000).\(v % 1000) on a known image; every JPEG is decoded by libjpeg alone"
    }

    /// The known answer: a 48x32 4:2:0 JPEG with fitted Huffman tables, gradients and
    /// noise (the own decoders take single-scan sequential files alone), decoded by them
    /// at full size and at 1/8, must give libjpeg's bytes, as djpeg (libjpeg-turbo 2.1.5)
    /// gives them: their FNV-1a hashes. libjpeg-turbo's integer IDCT, upsampling and
    /// colour conversion give the same bytes on every CPU; a libjpeg whose bytes differ
    /// only costs the own decoders' speed. Once per process, in about 0.3 ms.
    /// IMGSCALE_TEST_JPEG_MISMATCH alters the own decoders' pixels, so the tests can see
    /// the fallback work.
    private static func agreeWithLibjpeg() -> Bool {
        let broken = getenv("IMGSCALE_TEST_JPEG_MISMATCH") != nil
        for (shrink, djpeg) in [(1, 0x0159_15A6_9FF9_54D8 as UInt64), (8, 0x0ECC_C11B_DC33_B618)] {
            var own = DecodeOptions()
            own.shrink = shrink
            own.forcingOwnJPEGDecoders = true
            guard var mine = try? JPEGCodec.decode(known, options: own).0.pixels else { return false }
            if broken { mine[0] ^= 1 }
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in mine { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            if hash != djpeg { return false }
        }
        return true
    }

    /// Written by imgscale (libjpeg-turbo 2.1.5, quality 90) from a pattern of gradients
    /// and noise; the bytes, not the pixels, are what the check needs.
    private static let known: [UInt8] = {
        let hex = Array(
        """
        ffd8ffe000104a46494600010100000100010000ffdb0043000302020302020303030304030304050805050404050a07\
        0706080c0a0c0c0b0a0b0b0d0e12100d0e110e0b0b1016101113141515150c0f171816141812141514ffdb0043010304\
        0405040509050509140d0b0d141414141414141414141414141414141414141414141414141414141414141414141414\
        1414141414141414141414141414ffc00011080020003003012200021101031101ffc400190001010003010000000000\
        000000000000060502030804ffc4002e1000020201020503030207000000000000010203112104120006314151052261\
        1332710708142352818291b1ffc4001a010100010500000000000000000000000006020304050708ffc4002a11000102\
        05030302070000000000000000010211040512213100034122516171b1133292c1d1f0f1ffda000c0301000211031100\
        3f00e094f434567d454aa882f7802f248a208f6fdd8f824f91c34d272ec70451c53c6ab391b97de4145b51e3b511fe07\
        fab3574fcb6812455555fad4cc247c15bea49b22ece6ce71e3863a2e5d8574a920d3cb144c432a25eddbe5ab27a93d7b\
        01e384d193456c28b9183e82f9c5f8f23cf1520e705645f5e68b9604c03ed93612410376e0d8ec48248b273e0563a36d\
        372fb4f1c54a2794a3111c9448031408144fc9f3f9e2ec1e86d06b603f464de198da259723a1f347208cf7c9ebc27d0f\
        2ba3e9a30b000e2eed6882b58a366b22c1f9c12471711b3110ca21377cf18a5bbbe6dc0f3c27849bd4431fdb6b42f2e3\
        3cca4c7fca62e5827b41270a080706c9c9f8f069a693d1d46ddd2c88b247488b4477a500e3a500717d3c8e2e68f9725d\
        2c904afb64269832824b0f25c81e3a7c01df865a2f434fe022dc0d4e5b30a6569855763669739379e8789c4ccbe1545c\
        87737b761dc1bbf86ce34a60e6ce4755ff009ae3ad27a1a40779b2554bb58f66d206e201a26e878fbbe2f86da7e55088\
        19e1792c2fd4230a3bfb940e9bbb63b8b1438b91f2dc326a9c4516f91f729942d6d3d1afe7391471f93c2f839670ad2c\
        7b5e400aa4929aea015362e8e05d9e9f9e303191e61dc120e7d07b82f61f7edc750736adafa23a6e5f934cd72877dadb\
        8752c8deddc3a8ebbba11f3d0df0f345e8bb2d991ded0b3a391f752e715902fa74aed8ab50f2fbc4493105440500364a\
        0dc2a87db91d811d7e3851a7e5c78e21b951b72b35446be9d202466ec55003b7fdd051b323047a4b8f6fcbe31616c0b3\
        a839bbb31d67a1e5e32c276cb29d8437b5864b50363a8fee4e47c8b65a4e57fa4b1d27d20a2c2b51db46c9507fdd9032\
        3b5f15b45cba4c65c47b7684b11481ac59b230739e97dfaf04f4bfb9cfd24691218b9acccc1828bf4fd633aa86aa2444\
        287e3f3f85b0fb9bf324a57090ebdc5949a94029854a34d20a491f29184314a4924849d39952e61307107b2adca19c21\
        255f514be78777bb73afffd9
        """.utf8)
        func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : c - 87 }
        return stride(from: 0, to: hex.count - 1, by: 2).map { nibble(hex[$0]) << 4 | nibble(hex[$0 + 1]) }
    }()
}
