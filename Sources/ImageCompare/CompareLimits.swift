import ImageScaler

/// When an `ImageDifference` still counts as a match: the one verdict the CLI and
/// `ImageScalerTesting` share. With `minPSNR` or `minSSIM` those scores decide (each one
/// given must be reached); otherwise the differing pixels must be within `allowed` (0 by
/// default: any difference fails).
public struct CompareLimits: Sendable, Equatable {
    public enum Allowance: Sendable, Equatable {
        case pixels(Int)
        /// A percentage of the compared pixels.
        case percent(Double)
    }

    public var allowed: Allowance
    public var minPSNR: Double?
    /// The lowest `StructuralSimilarity.score` that matches.
    public var minSSIM: Double?

    public init(allowed: Allowance = .pixels(0), minPSNR: Double? = nil, minSSIM: Double? = nil) {
        self.allowed = allowed
        self.minPSNR = minPSNR
        self.minSSIM = minSSIM
    }

    /// `ssim` is the pair's score, needed when `minSSIM` is set (without it, no match).
    public func matches(_ d: ImageDifference, ssim: Double? = nil) -> Bool {
        if minPSNR != nil || minSSIM != nil {
            if let minPSNR, !(d.psnr >= minPSNR) { return false }
            if let minSSIM, !((ssim ?? -1) >= minSSIM) { return false }
            return true
        }
        return d.differingPixels <= allowedPixels(of: d)
    }

    /// The differing pixels `allowed` comes to for this pair (a percentage of its
    /// compared pixels, rounded down).
    public func allowedPixels(of d: ImageDifference) -> Int {
        switch allowed {
        case .pixels(let n): return n
        case .percent(let p): return Int((p / 100 * Double(d.comparedPixels)).rounded(.down))
        }
    }
}
