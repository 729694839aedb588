import ImageScaler

/// Runs one job from bytes on disk to bytes on disk: the input is read once and all
/// the outputs asked for are rendered together, then each is written atomically. A
/// read or decode failure fails every output and writes none; a write failure fails
/// that output alone.
enum JobProcessor {
    /// Per output asked for (by index into `job.outputs`): its size, or why it failed.
    /// Throws the error that fails the whole input; the warnings are the input's.
    /// `decodes` says how the outputs were decoded, for `--verbose`.
    static func run(_ job: Job, outputs wanted: [Int], _ settings: JobSettings)
        throws -> (results: [Int: Result<Size, Error>], warnings: [String], decodes: String) {
        guard !wanted.isEmpty else { return ([:], [], "nothing to do") }
        let data = try ImageFile.readImage(job.input, limit: settings.decode.maxMemory)
                let outputs = wanted.map { RenderOutput(job.outputs[$0].operation, as: job.outputs[$0].format) }
        let rendered = try ImageOperation.render(data, outputs: outputs, decode: settings.decode, encode: settings.encode,
                                                 settings: settings.render)
        var results: [Int: Result<Size, Error>] = [:]
        for (i, result) in zip(wanted, rendered) {
            results[i] = Result { try ImageFile.write(result.bytes, to: job.outputs[i].path); return result.size }
        }
        // An output's own warnings (a palette it could not have) join the input's.
        var warnings: [String] = []
        for w in rendered.flatMap(\.info.warnings) where !warnings.contains(w) { warnings.append(w) }
        var decodes = describeDecodes(rendered)
        if let info = rendered.first?.info, info.bitDepth > 8 {
            decodes += "; its \(info.bitDepth)-bit samples written as 8-bit"
        }
        return (results, warnings, decodes)
    }

    /// "2 decodes for 3 outputs: 1/1 for 1920x1440 1280x960, 1/4 for 320x240".
    private static func describeDecodes(_ results: [RenderResult]) -> String {
        let scales = Array(Set(results.map(\.decodeScale))).sorted()
        let parts = scales.map { scale in
            "1/\(scale) for " + results.filter { $0.decodeScale == scale }.map { "\($0.size)" }.joined(separator: " ")
        }
        let n = scales.count, m = results.count
        return "\(n) decode\(n == 1 ? "" : "s") for \(m) output\(m == 1 ? "" : "s"): " + parts.joined(separator: ", ")
    }
}
