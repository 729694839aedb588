/// Several outputs' bands fed by one bottom part.
final class LowerBands: LowerPart {
    let bands: [LowerBand]

    init(_ bands: [LowerBand]) { self.bands = bands }

    func begin(_ part: DecodedRegion) { bands.forEach { $0.begin(part) } }
    func add(_ chunk: RowChunk) { bands.forEach { $0.add(chunk) } }
}
