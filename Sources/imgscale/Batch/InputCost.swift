#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// What making one job's outputs will cost, predicted from the input's header alone, in
/// nanoseconds of one core on the machine `scripts/bench --job balance` measured: each
/// decode's pixels after shrink-on-load (a window's, when the plan decodes one) and the
/// compressed bytes its decoder reads whatever the shrink, at the format's rates; each
/// output's pixels times its encoder's work; and an input's own start. Only the ratios between inputs
/// matter (`ShardBalance` deals by them), and every machine reading the same files
/// predicts the same numbers.
enum InputCost {
    /// Enough for the header of every format imgscale reads when no large metadata
    /// comes first; a header past it is read from the whole file.
    static let headBytes = 1 << 16

    /// Nanoseconds of an input's own start (a worker's fork, reading, writing), and of an
    /// encoded pixel times the format's `encodeWork`; decoding's are the format's
    /// (`ImageFormat.decodeWork`).
    static let perInput = 6_000_000, perEncodedPixel = 12
    /// What a file no header is read of costs per byte: it fails early.
    static let perByte = 4

    static func predict(_ job: Job, settings: JobSettings) -> Int {
        guard let (head, size) = ImageFile.readHead(job.input, count: headBytes) else { return perInput }
        let outputs = job.outputs.filter { $0.failure == nil }.map { RenderOutput($0.operation, as: $0.format) }
        func plan(_ data: [UInt8]?) -> JobPlan? {
            data.flatMap { try? ImageOperation.plan($0, outputs: outputs, decode: settings.decode, encode: settings.encode, settings: settings.render) }
        }
        // The head, else the file (a TIFF whose directory follows its strips: 1 ms for
        // 9 MB from the page cache, against 0.1 s to make it); every machine reads the
        // same bytes, so predicts the same cost. A zero-filled buffer with the file's
        // tail in place cost more in clearing than reading does.
        let plan = plan(head) ?? (size <= head.count ? nil : plan(try? ImageFile.readImage(job.input, limit: settings.decode.maxMemory)))
        // A file no plan is made of fails early: its bytes are what it costs.
        guard let plan else { return perInput + size * perByte }
        let frames = settings.render.animated ? max(1, plan.input.frames) : 1
        let work = plan.input.format.decodeWork
        var cost = perInput + size * work.perByte
        for decode in plan.decodes {
            let shrink = max(1, decode.shrink)
            let area = decode.drawn.map { $0.width * $0.height } ?? decode.window.map { $0.width * $0.height }
                ?? ((plan.input.size.width + shrink - 1) / shrink) * ((plan.input.size.height + shrink - 1) / shrink)
            cost += area * frames * work.perPixel
        }
        for output in plan.outputs {
            cost += output.size.width * output.size.height * frames * output.format.encodeWork * perEncodedPixel
        }
        return cost
    }
}
