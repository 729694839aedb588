extension RenderOptions {
    /// How damaged an input may be and still give an output, in libvips's terms: each
    /// level fails on its own kind of damage and on everything worse. Damage below the
    /// level is decoded as far as the codec can (libjpeg fills missing blocks with grey; a
    /// PNG's missing rows are black, or transparent with alpha) and reported as a warning.
    /// Severity, mildest first: a warning (extraneous bytes, a bad ancillary CRC, a known
    /// incorrect sRGB profile), corrupt data, missing data (truncation).
    public enum FailOn: String, CaseIterable, Sendable {
        /// Never fail on damage once the header is read.
        case none
        /// Fail only when data is missing.
        case truncated
        /// Fail on corrupt or missing data.
        case error
        /// Fail on any warning of libjpeg or libpng: the strict default.
        case warning

        /// The strictest level that lets damage of this kind through (a warning passes at
        /// `error`, corrupt data at `truncated`, missing data only at `none`).
        var strictestTolerating: FailOn {
            switch self {
            case .warning: return .error
            case .error: return .truncated
            case .truncated, .none: return .none
            }
        }

        /// Whether this level lets more damage through than `other`.
        func isMoreLenient(than other: FailOn) -> Bool {
            let order: [FailOn] = [.warning, .error, .truncated, .none]
            // Invariant: `order` holds every case.
            return order.firstIndex(of: self)! > order.firstIndex(of: other)!
        }

        /// Whether damage of this kind is tolerated.
        func tolerates(_ damage: FailOn) -> Bool { isMoreLenient(than: damage) }
    }
}

/// The name the package's own code uses.
package typealias FailOn = RenderOptions.FailOn
