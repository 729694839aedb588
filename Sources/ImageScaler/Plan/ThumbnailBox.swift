/// The size Pillow's `Image.thumbnail(box)` gives a picture: the largest that fits the box
/// with the picture's aspect, each side chosen between the floor and the ceiling of the
/// exact value by whichever keeps the aspect closer (the floor on a tie), at least 1; a
/// picture that fits already keeps its size. Placeholders are computed from a picture
/// this size, so that a reference fed the same pixels sees the same picture.
package enum ThumbnailBox {
    package static func fit(_ size: Size, into box: Size) -> Size {
        let w = size.width, h = size.height
        guard w > 0, h > 0, !(box.width >= w && box.height >= h) else { return size }
        let aspect = Double(w) / Double(h)
        var x = box.width, y = box.height
        // Pillow's round_aspect: min() over (floor, ceil) by the key keeps the first on a tie.
        func nearest(_ v: Double, _ key: (Int) -> Double) -> Int {
            let lo = Int(v.rounded(.down)), hi = Int(v.rounded(.up))
            return max(key(hi) < key(lo) ? hi : lo, 1)
        }
        if Double(x) / Double(y) >= aspect {
            x = nearest(Double(y) * aspect) { n in abs(aspect - Double(n) / Double(y)) }
        } else {
            y = nearest(Double(x) / aspect) { n in n == 0 ? 0 : abs(aspect - Double(x) / Double(n)) }
        }
        return Size(width: x, height: y)
    }
}
