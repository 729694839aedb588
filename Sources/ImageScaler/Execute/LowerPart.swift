/// Where the bottom part of a split decode delivers its rows, on the bottom part's own
/// thread: each output's `LowerBand`, or a `LowerRows` buffer that follows the top part.
/// The executor's thread touches it again only after that thread has been joined.
protocol LowerPart: AnyObject, Sendable {
    func begin(_ part: DecodedRegion)
    func add(_ chunk: RowChunk)
}
