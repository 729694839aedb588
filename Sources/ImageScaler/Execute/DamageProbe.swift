/// Makes a refusal's hint true. A strict decode stops at the first damage it meets, but
/// that need not be the worst in the file: a JPEG with extraneous bytes (a warning) may
/// also hold a bad Huffman code (corrupt data) further on, so `--fail-on error` would
/// fail it too. The refused file is decoded again, pixels only and at the smallest
/// scale the decoder offers (damage is found in the entropy data, at any scale), at the
/// level that would have let the first damage through, then at the next, until one
/// decodes it. Only refused inputs pay, at most three decodes, within the same budget.
enum DamageProbe {
    /// `error` with the strictest level that really decodes `data`, or the bare error
    /// (no level to offer) when none does.
    static func truthful(_ error: DecodeError, data: [UInt8], options: DecodeOptions) -> DecodeError {
        let underlying: DecodeError, first: FailOn
        switch error {
        case .damaged(let inner, let level): (underlying, first) = (inner, level)
        case .warning: (underlying, first) = (error, .error)
        default: return error
        }
        var level = first
        var probe = options
        probe.shrink = 8
        while true {
            probe.failOn = level
            do {
                _ = try ImageCodec.decode(data, options: probe)
                return .damaged(underlying, tolerableAt: level)
            } catch DecodeError.damaged(_, let next) where next.isMoreLenient(than: level) {
                level = next
            } catch DecodeError.warning where level == .warning {
                level = .error
            } catch DecodeError.overBudget, DecodeError.outOfMemory, DecodeError.tooManyPixels {
                // A whole decode may need more than the render did: the level stays unproven
                // rather than withdrawn.
                return .damaged(underlying, tolerableAt: level)
            } catch {
                return underlying
            }
        }
    }
}
