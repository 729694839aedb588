/// EXIF orientation (TIFF tag 0x0112): how the stored pixels must be turned to stand
/// upright. Raw values 1-8 as in the EXIF specification; 1 means the stored row 0 is
/// already the visual top.
public enum Orientation: Int, Sendable, CaseIterable {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// True for 5-8, where the upright image's width is the stored height.
    public var swapsAxes: Bool { rawValue >= 5 }
}
