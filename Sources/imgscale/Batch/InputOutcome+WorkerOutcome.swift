import ImageScaler

/// An input's outcome as bytes, from a worker process to the batch's parent
/// (`WireWriter`'s form).
extension BatchReporter.InputOutcome: WorkerOutcome {
    func wire() -> [UInt8] {
        var w = WireWriter()
        w.string(input)
        w.string(error)
        w.strings(warnings)
        w.string(decodes)
        w.int(milliseconds)
        w.int(outputs.count)
        for output in outputs {
            w.string(output.output)
            w.string(output.status.rawValue)
            w.string(output.error)
            w.int(output.size?.width ?? -1)
            w.int(output.size?.height ?? -1)
            w.int(output.file?.bytes ?? -1)
            w.string(output.file?.format)
            w.string(output.file?.sha256)
            w.int(output.file?.quality ?? -1)
            w.string(output.file?.ssim)
            w.string(output.file?.placeholders.text)
            w.string(output.key)
            w.string(output.stamps?.input)
            w.string(output.stamps?.inputSHA)
            w.string(output.stamps?.output)
            w.string(output.note)
        }
        return w.bytes
    }

    init?(wire bytes: [UInt8]) {
        var r = WireReader(bytes)
        let input = r.string() ?? ""
        let error = r.string()
        let warnings = r.strings()
        let decodes = r.string()
        let ms = r.int()
        guard let outputCount = r.count() else { return nil }
        var outputs: [BatchReporter.Outcome] = []
        for _ in 0..<outputCount {
            let path = r.string() ?? ""
            let status = BatchReporter.Status(rawValue: r.string() ?? "") ?? .failed
            let failure = r.string()
            let w = r.int(), h = r.int()
            let bytes = r.int(), format = r.string(), sha = r.string(), quality = r.int(), ssim = r.string(), placeholders = r.string(), key = r.string()
            let stampIn = r.string(), stampSHA = r.string(), stampOut = r.string(), note = r.string()
            let stamps = stampIn.flatMap { i in stampSHA.flatMap { s in stampOut.map { BuildManifest.Stamps(input: i, inputSHA: s, output: $0) } } }
            let file = bytes >= 0 ? BatchReporter.WrittenFile(bytes: bytes, format: format ?? "", sha256: sha ?? "",
                                                              quality: quality >= 0 ? quality : nil, ssim: ssim,
                                                              placeholders: placeholders.flatMap(Placeholders.init(text:)) ?? Placeholders()) : nil
            outputs.append(.init(output: path, status: status, error: failure, size: w >= 0 && h >= 0 ? Size(width: w, height: h) : nil,
                                 file: file, key: key, stamps: stamps, note: note))
        }
        guard r.complete else { return nil }
        self.init(input: input, error: error, warnings: warnings, decodes: decodes, outputs: outputs, milliseconds: ms)
    }

    /// What a library printed joins the input's one line when it failed (libde265's
    /// complaint is the reason's own detail), and is a warning when it did not.
    mutating func attach(printed: String) {
        guard let reason = error else {
            warnings.append("the decoder printed: \(printed)")
            return
        }
        error = reason + " (the decoder printed: \(printed))"
        for i in outputs.indices where outputs[i].error == reason { outputs[i].error = error }
    }
}
