/// The bottom part's rows, collected whole to follow the top part's.
final class LowerRows: LowerPart, @unchecked Sendable {  // one thread at a time, handed over by the decode's join
    private(set) var collector = RowCollector()

    func begin(_ part: DecodedRegion) { collector.begin(part) }
    func add(_ chunk: RowChunk) { collector.add(chunk) }
}
