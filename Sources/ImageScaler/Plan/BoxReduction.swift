/// A box average by whole factors before the filter, as Pillow's `resize(reducing_gap:)`
/// does it (and vipsthumbnail, whose resize shrinks by a box first): each axis is reduced
/// by the largest factor that still leaves the filter `gap` times the target, over the
/// sampled rect widened by the filter's reach (Pillow's `_get_safe_box`). Block (i, j)
/// covers decoded pixels `box.x + i*x ..< box.x + (i+1)*x` (and likewise down), clipped
/// to `box`, so the last blocks may be partial and average only what they cover. Colour
/// is averaged weighted by alpha. Coordinates are the decoded image's, top-left origin.
package struct BoxReduction: Equatable {
    package let x: Int
    package let y: Int
    /// The decoded pixels reduced; the rest are never read.
    package let box: Rect

    /// The reduction for resampling `rect` of an image of `size` to `target`, or nil when
    /// neither axis has room for a factor of 2 (or the filter is nearest, which Pillow
    /// never reduces for).
    package init?(rect: SamplingRect, of size: Size, into target: Size, filter: ResampleFilter, gap: Double) {
        guard filter != .nearest, gap >= 1 else { return nil }
        let scaleX = rect.width / Double(target.width), scaleY = rect.height / Double(target.height)
        let fx = max(1, Int(scaleX / gap)), fy = max(1, Int(scaleY / gap))
        guard fx > 1 || fy > 1 else { return nil }
        let reachX = (filter.support - 0.5) * scaleX, reachY = (filter.support - 0.5) * scaleY
        let x0 = max(0, Int(rect.x - reachX)), y0 = max(0, Int(rect.y - reachY))
        let x1 = min(size.width, Int((rect.x + rect.width + reachX).rounded(.up)))
        let y1 = min(size.height, Int((rect.y + rect.height + reachY).rounded(.up)))
        x = fx
        y = fy
        box = Rect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
    }

    package init(x: Int, y: Int, box: Rect) {
        precondition(x >= 1 && y >= 1 && !box.isEmpty, "an empty reduction")
        self.x = x
        self.y = y
        self.box = box
    }

    /// The reduced image's size: partial blocks count.
    package var reducedSize: Size {
        Size(width: (box.width + x - 1) / x, height: (box.height + y - 1) / y)
    }

    /// `rect` in the reduced image's coordinates.
    package func reduced(_ rect: SamplingRect) -> SamplingRect {
        SamplingRect(x: (rect.x - Double(box.x)) / Double(x), y: (rect.y - Double(box.y)) / Double(y),
                     width: rect.width / Double(x), height: rect.height / Double(y))
    }
}
