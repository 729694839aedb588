import ImageScaler

/// When an `ImageDifference` still counts as a match: the one verdict the CLI and
/// `ImageScalerTesting` share. With `minPSNR` the PSNR decides alone; otherwise the
/// differing pixels must be within `allowed` (0 by default: any difference fails).
public struct CompareLimits: Sendable, Equatable {
    public enum Allowance: Sendable, Equatable {
        case pixels(Int)
        /// A percentage of the compared pixels.
        case percent(Double)
    }

    public var allowed: Allowance
    public var minPSNR: Double?

    public init(allowed: Allowance = .pixels(0), minPSNR: Double? = nil) {
        self.allowed = allowed
        self.minPSNR = minPSNR
    }

    public func matches(_ d: ImageDifference) -> Bool {
        if let minPSNR { return d.psnr >= minPSNR }
        switch allowed {
        case .pixels(let n): return d.differingPixels <= n
        case .percent(let p): return Double(d.differingPixels) <= p / 100 * Double(d.comparedPixels)
        }
    }
}
