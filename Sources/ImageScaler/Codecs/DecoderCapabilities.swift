/// What a decoder can do, so that the planner asks about abilities, never about formats.
package struct DecoderCapabilities: Sendable {
    /// Scales it decodes at directly, as divisors of the stored size (1 = full size).
    var shrinkFactors: [Int] = [1]
    /// Whether it can decode only a region's rows and columns; pixels within
    /// `ShrinkOnLoad.cropSlack` of a cut edge may differ from a whole decode's.
    var decodesRegions = false
    /// Whether a region can be split into parts that decode at once on separate cores.
    var splitsRegions = false
    /// Whether the picture is drawn (a vector format) and can be drawn at any size
    /// (`RowDecoder.drawn(at:)`), so each output is drawn at its own size, never resampled.
    var drawsAtAnySize = false
}
