/// How one decode uses a second core, chosen before any pixel is decoded
/// (`DecodePass.planned`): the executor runs exactly this, and `imgscale plan` prints it.
/// `parts` holds the decoder's two parts, which it promised it can decode.
package enum DecodeSplit: Sendable, CustomStringConvertible {
    case oneThread
    /// The decoder may run part of its work on a thread the executor lends it.
    case lentThread
    /// The window decoded in two parts at once, split at row `row`: the bottom part
    /// decodes from `overlap` rows above it straight into each output's lower band
    /// (`banded`), or into a buffer whose rows follow the top part's.
    case parts(row: Int, overlap: Int, banded: Bool, halves: RegionHalves)

    package var description: String {
        switch self {
        case .oneThread: return "one thread"
        case .lentThread: return "with a lent thread"
        case .parts(let row, _, _, _): return "two parts at once, split at row \(row)"
        }
    }
}
