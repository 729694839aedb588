/// Where an output's gain map comes from and how large it is: the part of the upright
/// picture the output shows, scaled by the map's own ratio to its base on each axis (a
/// rational, so a crop's corners land where they lie on the map, fractions kept), and
/// the output's size scaled by that ratio, rounded half up in integers, at least 1. The
/// map keeps its ratio to the base through any fill, fit or crop.
package struct GainMapGeometry: Equatable {
    package let sampling: SamplingRect
    package let size: Size

    /// For an output of `target` pixels showing `shown` of an upright base of `base`
    /// pixels whose upright map is `map` pixels.
    package init(shown: Rect, target: Size, base: Size, map: Size) {
        func along(_ v: Int, _ m: Int, _ b: Int) -> Double { Double(v) * Double(m) / Double(b) }
        sampling = SamplingRect(x: along(shown.x, map.width, base.width), y: along(shown.y, map.height, base.height),
                                width: along(shown.width, map.width, base.width), height: along(shown.height, map.height, base.height))
        func scaled(_ t: Int, _ m: Int, _ b: Int) -> Int { max(1, Int((Int128(t) * Int128(m) * 2 + Int128(b)) / (2 * Int128(b)))) }
        size = Size(width: scaled(target.width, map.width, base.width), height: scaled(target.height, map.height, base.height))
    }
}
