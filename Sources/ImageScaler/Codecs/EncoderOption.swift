/// An encoder setting of `EncodeOptions` that only some formats use, named as the
/// command line spells it. Each format's `CodecDescriptor.Writer` lists the ones it
/// takes, so a setting no output uses can be reported rather than silently ignored.
package enum EncoderOption: String, CaseIterable, Sendable {
    case quality
    case progressive
    case optimize
    case subsampling
    case compression
    case palette
    case colors
    case dither
    case lossless
    case effort
}
