/// What `ImageOperation.render` made: the encoded output, its size in pixels (upright,
/// as written), and the input's header as the decoder saw it (warnings included).
public struct RenderResult: Sendable {
    public let bytes: [UInt8]
    public let size: Size
    public let info: ImageInfo
}
