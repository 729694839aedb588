extension ImageOperation {
    /// Where an aspect-fill crop sits inside its region when it is narrower or shorter.
    /// Each axis is a fraction of the spare room: 0 (left/top), 1/2 (centre), 1 (right/bottom),
    /// stored as halves so the geometry stays in exact integers.
    public enum Gravity: String, Sendable, CaseIterable {
        case centre, north, south, east, west, northeast, northwest, southeast, southwest
        /// Where the window's Shannon entropy is highest (`SmartCrop`); needs the pixels, so
        /// geometry alone (`plan`) treats it as centre.
        case entropy

        /// Spare room taken before the crop, in halves: 0, 1 or 2.
        var horizontalHalves: Int {
            switch self {
            case .west, .northwest, .southwest: return 0
            case .east, .northeast, .southeast: return 2
            default: return 1
            }
        }

        var verticalHalves: Int {
            switch self {
            case .north, .northeast, .northwest: return 0
            case .south, .southeast, .southwest: return 2
            default: return 1
            }
        }
    }
}

/// The name the package's own code uses.
package typealias Gravity = ImageOperation.Gravity
