import CWebPShim

/// An animated WebP through libwebp's animation encoder, frame by frame, on one thread:
/// lossy at `options.quality` (default 80) or lossless, at effort `options.effort`; the
/// loop count kept. libwebp keeps only what each frame changes.
final class WebPAnimationEncoder: AnimationEncoder {
    private let handle: OpaquePointer
    private let size: Size

    init(size: Size, options: EncodeOptions, loopCount: Int) throws {
        self.size = size
        var settings = cwebp_encode_options(quality: Int32(options.quality ?? WebPEncoder.defaultQuality),
                                            method: Int32(min(options.effort ?? WebPEncoder.defaultEffort, 6)),
                                            lossless: options.lossless ? 1 : 0)
        var message = ShimMessage()
        guard let h = message.with({ cwebp_animation_new(UInt32(size.width), UInt32(size.height), UInt32(clamping: loopCount), &settings, $0, $1) }) else {
            throw EncodeError.failed(.webp, message.text)
        }
        handle = h
    }

    deinit { cwebp_animation_free(handle) }

    func add(_ frame: PixelBuffer, milliseconds: Int) throws {
        guard frame.size == size, frame.channels == 4 else { throw EncodeError.failed(.webp, "a frame of \(frame.size) in an animation of \(size)") }
        var message = ShimMessage()
        let status = frame.pixels.withUnsafeBufferPointer { p in
            message.with { cwebp_animation_add(handle, p.baseAddress, Int32(clamping: milliseconds), $0, $1) }
        }
        guard status == 0 else { throw EncodeError.failed(.webp, message.text) }
    }

    func finish() throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var count = 0
        var message = ShimMessage()
        guard message.with({ cwebp_animation_finish(handle, &out, &count, $0, $1) }) == 0, let bytes = out else {
            throw EncodeError.failed(.webp, message.text)
        }
        defer { cwebp_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: count))
    }
}
