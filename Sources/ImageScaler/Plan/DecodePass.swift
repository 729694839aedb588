/// One decode feeding several outputs: the plans (by index among those run together)
/// that decode at one shrink factor, over the union of their windows (nil: the whole
/// image), and how it uses a second core. Every member is on a path that shares decodes
/// (`RenderPlan.Path.sharesDecodes`). Made from the plans and what the decoder says it
/// can do, before a pixel is decoded.
package struct DecodePass: Sendable {
    package let shrink: Int
    package let window: Rect?
    package let outputs: [Int]
    package var split: DecodeSplit = .oneThread

    /// The decodes the plans need: one per distinct shrink factor, smallest factor (the
    /// most work) first, each on one thread.
    package static func passes(_ plans: [RenderPlan]) -> [DecodePass] {
        var byShrink: [Int: [Int]] = [:]
        for (i, plan) in plans.enumerated() where plan.path.sharesDecodes {
            byShrink[plan.resample?.shrink ?? 1, default: []].append(i)
        }
        return byShrink.keys.sorted().map { shrink in
            // Invariant: the keys iterated are byShrink's own.
            let members = byShrink[shrink]!
            let windows = members.map { plans[$0].resample?.window }
            var union: Rect? = nil
            if windows.allSatisfy({ $0 != nil }) {
                let w = windows.map { $0! }
                let x0 = w.map(\.x).min()!, y0 = w.map(\.y).min()!
                union = Rect(x: x0, y: y0, width: w.map(\.maxX).max()! - x0, height: w.map(\.maxY).max()! - y0)
            }
            return DecodePass(shrink: shrink, window: union, outputs: members)
        }
    }

    /// `passes`, each with its split for `threads` threads.
    package static func planned(_ plans: [RenderPlan], decoder: any RowDecoder, options: DecodeOptions, threads: Int,
                                splitRegions: Bool) -> [DecodePass] {
        passes(plans).map { pass in
            var pass = pass
            pass.split = pass.split(plans, decoder: decoder, options: options, threads: threads, splitRegions: splitRegions)
            return pass
        }
    }

    /// Where the decoder can split the window, at the row where it says the work halves
    /// (else the middle): each output's rows below the first whose filter window reaches
    /// the bottom part are made by a lower band on the bottom part's thread, which starts
    /// decoding at the first row those windows read. Without bands (a member with no
    /// resampler or an empty band) a window small enough to wait in memory is split with
    /// a buffer instead; else the decoder is lent a thread.
    private func split(_ plans: [RenderPlan], decoder: any RowDecoder, options: DecodeOptions, threads: Int,
                       splitRegions: Bool) -> DecodeSplit {
        guard threads > 1 else { return .oneThread }
        guard splitRegions && decoder.capabilities.splitsRegions, let window,
              let row = decoder.splitRow(of: window, shrink: shrink, margin: 16) else { return .lentThread }
        var firstRows: [Int] = []
        for i in outputs {
            guard let r = plans[i].resample, let band = DecodePass.lowerBand(r, window: window, split: row) else { break }
            firstRows.append(band.firstSourceRow)
        }
        if firstRows.count == outputs.count {
            // Nearest's windows skip rows, so the lower band may read nothing above the split.
            let overlap = max(0, row - firstRows.min()!)
            if let halves = decoder.halves(of: window, shrink: shrink, options: options, split: row, overlap: overlap) {
                return .parts(row: row, overlap: overlap, banded: true, halves: halves)
            }
        }
        if DecodePass.buffers(window), let halves = decoder.halves(of: window, shrink: shrink, options: options, split: row, overlap: 0) {
            return .parts(row: row, overlap: 0, banded: false, halves: halves)
        }
        return .lentThread
    }

    /// The band of output rows a split below decoded row `split` of `window` leaves to
    /// the bottom part: its first output row and the first decoded row it reads; nil when
    /// one band would hold every output row (or none).
    static func lowerBand(_ resample: RenderPlan.Resample, window: Rect, split: Int) -> (firstOutputRow: Int, firstSourceRow: Int)? {
        let (output, from) = RowResampler.split(region: window, rect: resample.sampling, target: resample.storedTarget,
                                                filter: resample.filter, at: split - window.y)
        guard output > 0, output < resample.storedTarget.height else { return nil }
        return (output, window.y + from)
    }

    /// Whether the bottom half of `region` may wait in memory while the top streams: it
    /// must stay small next to streaming's footprint, at most 4 MiB of RGB rows (a 12 MP
    /// photo shrunk 1/2 is 3.4 MiB). Larger regions are split with bands instead.
    package static func buffers(_ region: Rect) -> Bool {
        // A region is asked for, not yet clipped to the image: no product may overflow.
        (1...1 << 16).contains(region.width) && (1...1 << 16).contains(region.height)
            && region.width * (region.height / 2 + 1) * 3 <= 4 << 20
    }
}
