/// One output's encoder options, resolved before a pixel is decoded, for each channel
/// count its result can come out with (1 to 4: alpha found all opaque is dropped, and a
/// letterbox may add it, only once the pixels are seen): the ICC profile if it fits
/// those channels, the EXIF rewritten for the output's size, the XMP, and a warning for
/// each block the format cannot carry.
package struct EncoderChoice: Sendable {
    /// Index `channels - 1`.
    private let byChannels: [(options: EncodeOptions, dropped: [String])]

    init(_ resolve: (Int) -> (EncodeOptions, [String])) {
        byChannels = (1...4).map { resolve($0) }
    }

    /// The options for a result of `channels` channels, and what they could not carry.
    func options(channels: Int) -> (EncodeOptions, [String]) {
        byChannels[min(max(channels, 1), 4) - 1]
    }
}
