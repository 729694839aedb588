import ImageScaler

/// libFuzzer target for the formats without a fuzz target of their own (WebP, GIF, HEIC,
/// AVIF, PNM, TIFF, JPEG XL, SVG and QOI; scripts/fuzz webp|gif|heif|pnm|tiff|jxl|svg|qoi seeds it
/// with that format): sniffing, header, whole decode, a thumbnail through the pipeline,
/// every frame of an animation, damage tolerated. Bad input must only
/// ever throw, within the memory budget.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFormats(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    // A small pixel limit keeps the fuzzer on parsing, not on allocating big buffers.
    var options = DecodeOptions(maxPixels: 1 << 20)
    options.maxMemory = 256 << 20
    _ = try? ImageCodec.info(bytes)
    _ = try? ImageCodec.decode(bytes, options: options)
    let fill = ImageOperation.fill(Size(width: 7, height: 5), from: nil, origin: .topLeft, gravity: .centre)
    _ = try? fill.render(bytes, as: .png, decode: options)
    _ = try? fill.render(bytes, as: .qoi, decode: options)
    // Every frame of an animation (APNG, animated WebP and GIF, JPEG XL) through the
    // compositor and the animation encoders, a few frames at most.
    var frames = options
    frames.maxFrames = 8
    var animated = RenderSettings()
    animated.animated = true
    _ = try? fill.render(bytes, as: .webp, decode: frames, settings: animated)
    _ = try? fill.render(bytes, as: .gif, decode: frames, settings: animated)
    options.failOn = .none
    _ = try? ImageOperation.fit(Size(width: 9, height: 9)).render(bytes, as: .jpeg, decode: options)
    return 0
}
