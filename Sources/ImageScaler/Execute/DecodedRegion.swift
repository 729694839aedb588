/// What a streaming decode will deliver, announced before the first row: the part of
/// the (shrunk) stored image being decoded, in its pixel coordinates, and the channels
/// of each row (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA - or, with `cmykInverted` set, 4
/// of CMYK ink, which `ColorStage` turns into RGB before anything else sees them).
package struct DecodedRegion: Equatable, Sendable {
    package let rect: Rect
    let channels: Int
    /// Non-nil: the rows are CMYK ink, Adobe-inverted (255 = no ink) when true.
    var cmykInverted: Bool? = nil
}
