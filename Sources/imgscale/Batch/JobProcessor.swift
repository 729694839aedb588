import ImageScaler

/// Runs one job from bytes on disk to bytes on disk: the input is read once and all
/// the outputs asked for are rendered together, then each is written atomically. A
/// read or decode failure fails every output and writes none; an encode or write
/// failure fails that output alone.
enum JobProcessor {
    /// Per output asked for (by index into `job.outputs`): its size and file, or why it
    /// failed. Throws the error that fails the whole input; the warnings are the input's.
    /// `decodes` says how the outputs were decoded, for `--verbose`. `data` is the input
    /// when the caller has read it already (`--if-changed` hashed it).
    static func run(_ job: Job, outputs wanted: [Int], _ settings: JobSettings, data given: [UInt8]? = nil)
        throws -> (results: [Int: Result<(Size, BatchReporter.WrittenFile?), Error>], warnings: [String], decodes: String) {
        guard !wanted.isEmpty else { return ([:], [], "nothing to do") }
        let data = try given ?? ImageFile.readImage(job.input, limit: settings.decode.maxMemory)
        // A container's other sizes are rendered after the outputs, from the same
        // decodes, each a file of its own that the container's then takes in.
        let preview = settings.placeholders.isEmpty ? nil : Placeholder.previewBox
        var outputs = wanted.map { RenderOutput(job.outputs[$0].operation, as: job.outputs[$0].format, preview: preview) }
        var entries: [Int: Range<Int>] = [:]
        for i in wanted where !job.outputs[i].entries.isEmpty {
            entries[i] = outputs.count ..< outputs.count + job.outputs[i].entries.count
            outputs += job.outputs[i].entries.map { RenderOutput($0, as: job.outputs[i].format, preview: preview) }
        }
        var decode = settings.decode
        decode.fileName = job.input == "-" ? nil : String(job.input.split(separator: "/").last ?? "")
        let each = try ImageOperation.renderEach(data, outputs: outputs, decode: decode, encode: settings.encode,
                                                 settings: settings.render)
        let rendered = each.compactMap { try? $0.get() }
        var results: [Int: Result<(Size, BatchReporter.WrittenFile?), Error>] = [:]
        for (k, i) in wanted.enumerated() {
            let output = job.outputs[i]
            results[i] = Result {
                let result = try each[k].get()
                var bytes = result.bytes
                var described = result
                if let range = entries[i], let format = output.format {
                    let others = try each[range].map { try $0.get() }
                    bytes = try format.merge([result.bytes] + others.map(\.bytes))
                    // A container is described by its largest picture (the first of that
                    // area): the one viewers show and imgscale reads it back by.
                    for other in others where other.size.width * other.size.height > described.size.width * described.size.height {
                        described = other
                    }
                }
                // Checked here, once the bytes are ready: a stop (SIGTERM, a dead parent)
                // that comes now leaves no file behind that no report names.
                try Interruption.checkBeforeWriting()
                try ImageFile.write(bytes, to: output.path)
                let placeholders = try described.preview.map { try Placeholders(settings.placeholders, of: $0, blurhash: settings.blurhashComponents) }
                return (described.size, settings.fileFacts ? BatchReporter.WrittenFile(bytes, quality: result.quality, ssim: result.ssim,
                                                                                    placeholders: placeholders ?? Placeholders()) : nil)
            }
        }
        // An output's own warnings (a palette it could not have) join the input's.
        var warnings: [String] = []
        for w in rendered.flatMap(\.info.warnings) where !warnings.contains(w) { warnings.append(w) }
        var decodes = describeDecodes(rendered)
        if let info = rendered.first?.info, info.bitDepth > 8 {
            // 16 bits are kept only where asked for and the format holds them.
            let narrowed = wanted.filter { i in
                switch settings.encode.depth {
                case .eight: return true
                case .sixteen: return false
                case .auto: return !(job.outputs[i].format ?? info.format).holdsSixteenBits || settings.encode.palette
                }
            }
            if !narrowed.isEmpty && settings.encode.lossless && settings.encode.depth == .auto {
                // Asked to lose nothing, so said as a warning, once for the input.
                let names = ImageFormat.names(Array(Set(narrowed.map { job.outputs[$0].format ?? info.format })).sorted { $0.rawValue < $1.rawValue })
                warnings.append("lossless, but its \(info.bitDepth)-bit samples written as 8-bit: \(names) holds 8 bits a sample; "
                                + ImageFormat.names(ImageFormat.sixteenBitFormats, or: true) + " keeps them")
            } else if !narrowed.isEmpty {
                decodes += "; its \(info.bitDepth)-bit samples written as 8-bit" + (narrowed.count < wanted.count ? " in \(narrowed.count) of \(wanted.count) outputs" : "")
                    + (settings.encode.depth == .eight && narrowed.contains { (job.outputs[$0].format ?? info.format).holdsSixteenBits }
                       ? " (--depth 16 or auto keeps them)" : "")
            }
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
        let searches = results.compactMap { r in
            r.quality.map { q in "\(r.size) at quality \(q) after \(r.encodes ?? 1) encode\(r.encodes == 1 ? "" : "s")" }
        }
        return "\(n) decode\(n == 1 ? "" : "s") for \(m) output\(m == 1 ? "" : "s"): " + parts.joined(separator: ", ")
            + (searches.isEmpty ? "" : "; " + searches.joined(separator: ", "))
    }
}
