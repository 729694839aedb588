import ImageScaler

/// Runs one job from bytes on disk to bytes on disk. Throws the error to report for the
/// input; the output is written atomically, so a failure leaves no file behind.
enum JobProcessor {
    /// The output size and any warnings worth a line on stderr.
    static func run(_ job: Job, _ settings: JobSettings) throws -> (Size, [String]) {
        let data = try ImageFile.readImage(job.input, limit: settings.decode.maxMemory)
        let format = job.format ?? ImageFormat.sniff(data)!
        let result = try settings.operation.render(data, as: format, decode: settings.decode,
                                                   encode: settings.encode, settings: settings.render)
        try ImageFile.write(result.bytes, to: job.output)
        return (result.size, result.info.warnings)
    }
}
