/// An HDR photo's gain map as its container holds it (UltraHDR: a second JPEG after the
/// first, listed by MPF and described by ISO 21496-1 and XMP `hdrgm:`), found in the
/// header read: its size as stored (the base image's orientation turns it too), its own
/// file, and the metadata an output must carry for a viewer to apply it. Only ever
/// holds a map no larger than its base, that is not itself a container of maps.
public struct GainMap: Equatable, Sendable {
    public let size: Size
    public let channels: Int
    /// The map's own coded file, as the container holds it.
    package let file: [UInt8]
    /// What the base image's file carries for the map besides the index: whole segments,
    /// as they are (ISO 21496-1's version).
    package let baseSegments: [[UInt8]]
    /// The base's XMP where it describes the map (`hdrgm:`, and the Container directory
    /// whose lengths an output rewrites).
    package let baseXMP: [UInt8]?
    /// The metadata segments of the map's file an output's map carries, whole (ISO
    /// 21496-1's gain map metadata, XMP `hdrgm:`, its ICC profile).
    package let mapSegments: [[UInt8]]

    package init(size: Size, channels: Int, file: [UInt8], baseSegments: [[UInt8]], baseXMP: [UInt8]?, mapSegments: [[UInt8]]) {
        self.size = size
        self.channels = channels
        self.file = file
        self.baseSegments = baseSegments
        self.baseXMP = baseXMP
        self.mapSegments = mapSegments
    }
}
