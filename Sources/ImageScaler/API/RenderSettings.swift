/// How `ImageOperation.render` treats orientation, metadata and threads (`RenderOptions`'s
/// render share). The defaults
/// are imgscale's: upright output, the ICC profile carried, other metadata stripped,
/// one thread.
package struct RenderSettings: Sendable {
    /// Apply the EXIF orientation before any geometry.
    package var autoOrient = true
    /// Embed the input's ICC profile when it fits the output's colour space.
    package var carryProfile = true
    /// Copy EXIF (orientation reset to 1, thumbnail dropped) and XMP into the output.
    package var keepMetadata = false
    /// Enlarge images smaller than the operation's size. When false, `fit` keeps a
    /// smaller image's size and `fill` crops it to the target's aspect ratio without
    /// scaling it up (vipsthumbnail's `>`).
    package var upscale = true
    /// Every frame of an animated input into an animated output (`AnimationRender`);
    /// otherwise its first frame is the image.
    package var animated = false
    /// The resampling filter (Pillow's set and semantics).
    package var filter: ImageOperation.Filter = .bilinear
    /// Pillow's unsharp mask after resampling, or none.
    package var sharpen: UnsharpMask? = nil
    /// Resample in linear light (`--linear`).
    package var linear = false
    /// Crop away a uniform border before the operation (`--trim`, `TrimFinder`).
    package var trim: TrimFinder.Options? = nil
    /// `--gain-map keep`: an HDR photo's gain map resized with it into formats that hold one.
    package var keepGainMap = true
    /// Threads one image may use. With 2 or more, decoding runs ahead on a second
    /// core while this one resamples and encodes, and a JPEG region with restart markers
    /// is decoded in two halves at once. The bytes are the same at any count.
    package var threads = 1
    /// With `threads` > 1, whether a JPEG region may be split; tests turn it off to hold
    /// the decode-ahead alone to the same bytes.
    package var splitRegions = true
    /// Told the input's header once it is read, before any pixel is decoded: what the
    /// CLI scales an input's wall-clock allowance with. Nil: nobody asks.
    package var headerRead: (@Sendable (ImageInfo) -> Void)? = nil

    package init() {}
}
