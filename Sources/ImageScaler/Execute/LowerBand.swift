/// The bottom output rows of one output when the executor splits a decode in two:
/// output rows `firstOutputRow ..< target height`, made by a `RowResampler` of their
/// own over the same region (so the same weights and bytes as one resampler), fed the
/// bottom part's rows on the bottom part's thread. The output's own thread makes the
/// rows above and reads this band only after the bottom part's thread has ended.
final class LowerBand: @unchecked Sendable {  // one thread at a time, handed over by the decode's join
    let firstOutputRow: Int
    /// The first decoded row (shrunk image, stored orientation) this band reads.
    let firstSourceRow: Int
    private let windowTop: Int
    private let resample: RenderPlan.Resample
    private(set) var resampler: RowResampler?
    /// The bottom part's first row, counted from the region's top.
    private var offset = 0

    /// The band below decoded row `split` of `window` for `resample`, or nil when one
    /// band would hold every output row (or none).
    init?(_ resample: RenderPlan.Resample, window: Rect, split: Int) {
        guard let band = DecodePass.lowerBand(resample, window: window, split: split) else { return nil }
        self.resample = resample
        (firstOutputRow, firstSourceRow) = band
        windowTop = window.y
    }

    /// The bottom part delivers `part`: the same columns as the whole region, whose top
    /// is the window's.
    func begin(_ part: DecodedRegion) {
        let whole = Rect(x: part.rect.x, y: windowTop, width: part.rect.width, height: part.rect.maxY - windowTop)
        offset = part.rect.y - windowTop
        resampler = RowResampler(region: whole, channels: part.channels, rect: resample.sampling, target: resample.storedTarget,
                                 filter: resample.filter, band: firstOutputRow..<resample.storedTarget.height)
    }

    func add(_ chunk: RowChunk) {
        guard let resampler else { return }
        resampler.add(rows: offset + chunk.firstRow, count: chunk.count, chunk.pixels, bytesPerRow: chunk.bytesPerRow)
    }

    /// Every row of the band is made.
    var isComplete: Bool { resampler.map { $0.rowsDone == $0.outputRows.upperBound } ?? false }
}
