import ImageScaler

/// The line a failed input gets: the library's own description, plus the option that
/// lifts a limit when one was hit (the library does not know the CLI's flags).
enum ErrorText {
    static func describe(_ error: Error) -> String {
        switch error {
        case DecodeError.tooManyPixels, DecodeError.tooManyFramePixels, GeometryError.outputTooLarge:
            return "\(error) (raise it with --max-pixels)"
        case DecodeError.tooManyFrames:
            return "\(error) (raise it with --max-frames)"
        case DecodeError.overBudget:
            return "\(error) (raise it with --max-memory)"
        case DecodeError.warning:
            return "\(error) (--fail-on error accepts it)"
        case DecodeError.damaged(_, let level):
            return "\(error) (--fail-on \(level.rawValue) " + (level == .error ? "accepts it)" : "decodes what is there)")
        default:
            return "\(error)"
        }
    }
}
