/// How `ImageOperation.render` treats orientation, metadata and threads. The defaults
/// are imgscale's: upright output, the ICC profile carried, other metadata stripped,
/// one thread.
public struct RenderSettings: Sendable {
    /// Apply the EXIF orientation before any geometry.
    public var autoOrient = true
    /// Embed the input's ICC profile when it fits the output's colour space.
    public var carryProfile = true
    /// Copy EXIF (orientation reset to 1, thumbnail dropped) and XMP into the output.
    public var keepMetadata = false
    /// Encode on a second thread while decoding.
    public var concurrent = false

    public init() {}
}
