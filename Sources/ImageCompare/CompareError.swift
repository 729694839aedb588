import ImageScaler

/// Why two images could not be compared or pictured: a caller's mistake, thrown rather
/// than trapped, with the sizes involved.
public enum CompareError: Error, Equatable, CustomStringConvertible {
    /// The images, or an image and its classes or samples, are not of one size.
    case sizeMismatch(String)

    public var description: String {
        switch self {
        case .sizeMismatch(let what): return "cannot compare: \(what)"
        }
    }
}
