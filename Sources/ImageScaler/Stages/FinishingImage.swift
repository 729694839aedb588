/// An image the finishing stages (`Finisher`) work on, at 8 bits (`PixelBuffer`) or 16
/// (`WideImage`): each step gives a new image, top-left origin, straight alpha.
protocol FinishingImage {
    var size: Size { get }
    /// The rect `r`, inside the image, unscaled.
    func cropped(to r: Rect) -> Self
    func upright(_ orientation: Orientation) -> Self
    func padded(to box: Size, on background: RGBColor) -> Self
    /// Alpha composited onto the opaque `background`.
    func flattened(onto background: RGBColor) -> Self
    func droppingOpaqueAlpha() -> Self
    /// Pillow's unsharp mask (8-bit images only: a plan with one holds 8 bits).
    func sharpened(_ mask: UnsharpMask) -> Self
}

extension PixelBuffer: FinishingImage {
    func cropped(to r: Rect) -> PixelBuffer {
        var out = PixelBuffer.samples(count: r.width * r.height * channels)
        let rowBytes = r.width * channels
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<r.height {
                    (dst.baseAddress! + y * rowBytes).update(from: src.baseAddress! + ((r.y + y) * width + r.x) * channels, count: rowBytes)
                }
            }
        }
        return PixelBuffer(width: r.width, height: r.height, channels: channels, validPixels: out)
    }

    func upright(_ orientation: Orientation) -> PixelBuffer { Orienter.upright(self, orientation) }
    func padded(to box: Size, on background: RGBColor) -> PixelBuffer { Padder.pad(self, to: box, background: background) }
    func flattened(onto background: RGBColor) -> PixelBuffer { Flattener.flatten(self, onto: background) }
    func sharpened(_ mask: UnsharpMask) -> PixelBuffer { mask.apply(to: self) }
}

extension WideImage: FinishingImage {
    /// Only on the linear-light path into 8 bits (`RenderPlan` refuses a sharpened 16-bit
    /// output): the 8-bit image it will be, sharpened as Pillow would, widened exactly back.
    func sharpened(_ mask: UnsharpMask) -> WideImage { WideImage(widening: mask.apply(to: narrowed())) }
}
