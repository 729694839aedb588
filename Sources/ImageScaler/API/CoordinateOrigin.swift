extension Rect {
    /// Which corner of the image a rect's origin is measured from.
    ///
    /// Pixel buffers are always top-left (UIKit, PNG and JPEG row order). A rect given in
    /// bottom-left coordinates (CoreGraphics, PDF, OpenGL) is converted on the way in with
    /// `y' = imageHeight - y - h`, the recipe's `translate(0, h) * scale(1, -1)` applied to a
    /// rect; applying it twice gives the original rect back.
    public enum Origin: String, Sendable, CaseIterable {
        case topLeft = "top-left"
        case bottomLeft = "bottom-left"
    }
}

/// The name the package's own code uses.
package typealias CoordinateOrigin = Rect.Origin
