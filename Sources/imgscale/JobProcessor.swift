import ImageScaler

/// Runs one job from bytes on disk to bytes on disk. Throws the error to report for the
/// input; the output is written atomically, so a failure leaves no file behind.
enum JobProcessor {
    static func run(_ job: Job, _ settings: JobSettings) throws -> Size {
        let data = try ImageFile.read(job.input)
        let (bytes, size, _) = try settings.operation.render(
            data, as: job.format, decode: settings.decode, encode: settings.encode, autoOrient: settings.autoOrient,
            carryProfile: settings.keepProfile, concurrent: settings.concurrent)
        try ImageFile.write(bytes, to: job.output)
        return size
    }
}
