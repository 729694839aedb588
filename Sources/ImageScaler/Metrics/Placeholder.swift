/// What a build pipeline shows before an image loads, computed from the pixels an output
/// was encoded from (`RenderResult.preview`: fitted into `previewBox` as Pillow's
/// `thumbnail` sizes it, bicubic), never from a second decode:
/// - `thumbhash`: `ThumbHash`'s bytes, base64;
/// - `blurhash`: `BlurHash` at the components asked for (4x3 by default);
/// - `color`: `DominantColor`, `#rrggbb`;
/// - `lqip`: the preview fitted into `lqipBox` (bicubic again), as a lossy WebP data URI.
/// Each is text that JSON carries as a string.
public enum Placeholder: String, CaseIterable, Sendable {
    case thumbhash, blurhash, color, lqip

    /// ThumbHash's own limit, and what the others are computed from.
    public static let previewBox = Size(width: 100, height: 100)
    /// The LQIP's box: Gatsby's 20 pixels, a data URI of a few hundred bytes.
    public static let lqipBox = Size(width: 20, height: 20)
    /// The LQIP's WebP quality: blurred by its size anyway.
    static let lqipQuality = 50

    /// `image` fitted into `previewBox` as a render's preview is: for an output already
    /// on disk (a skip), decoded from its file.
    public static func preview(of image: PixelBuffer) -> PixelBuffer {
        let size = ThumbnailBox.fit(image.size, into: previewBox)
        return size == image.size ? image : Resampler.resample(image, from: SamplingRect(Rect(size: image.size)), to: size, filter: .bicubic)
    }

    /// This placeholder of `preview`; nil for a colour of a wholly transparent picture.
    public func value(of preview: PixelBuffer, blurhash: (x: Int, y: Int) = (4, 3)) throws -> String? {
        switch self {
        case .thumbhash:
            return ThumbHash.hash(preview).map(Base64.string)
        case .blurhash:
            return BlurHash.hash(preview, x: blurhash.x, y: blurhash.y)
        case .color:
            return DominantColor.of(preview).map { "#" + String($0.hex.prefix(6)) }
        case .lqip:
            let size = ThumbnailBox.fit(preview.size, into: Placeholder.lqipBox)
            let small = size == preview.size ? preview
                : Resampler.resample(preview, from: SamplingRect(Rect(size: preview.size)), to: size, filter: .bicubic)
            var options = EncodeOptions()
            options.quality = Placeholder.lqipQuality
            options.effort = 6
            // The LQIP is WebP by definition (what `blurDataURL` takes): its media type is in the URI.
            let bytes = try ImageFormat.webp.encode(small.droppingOpaqueAlpha(), options: options)
            return "data:image/webp;base64," + Base64.string(bytes)
        }
    }
}
