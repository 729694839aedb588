import ImageScaler

/// Runs one job from bytes on disk to bytes on disk. Throws the error to report for the
/// input; the output is written atomically, so a failure leaves no file behind.
enum JobProcessor {
    static func run(_ job: Job, _ settings: JobSettings) throws -> Size {
        let data = try ImageFile.read(job.input)
        let (result, info) = try settings.operation.perform(on: data, decode: settings.decode, autoOrient: settings.autoOrient)
        var encode = settings.encode
        if settings.keepProfile, let icc = info.iccProfile, profile(icc, fits: result.channels) {
            encode.iccProfile = icc
        }
        let bytes = try ImageCodec.encode(result, as: job.format, options: encode)
        try ImageFile.write(bytes, to: job.output)
        return result.size
    }

    /// An ICC profile only describes pixels of its own colour space (header bytes 16-19):
    /// a CMYK profile must not ride along on RGB output, nor an RGB one on gray.
    static func profile(_ icc: [UInt8], fits channels: Int) -> Bool {
        guard icc.count >= 128 else { return false }
        let space = String(decoding: icc[16..<20], as: UTF8.self)
        return channels <= 2 ? space == "GRAY" : space == "RGB "
    }
}
