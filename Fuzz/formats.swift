import ImageScaler

/// libFuzzer target for the formats without a fuzz target of their own (WebP, GIF, HEIC,
/// AVIF, PNM, TIFF and JPEG XL; scripts/fuzz webp|gif|heif|pnm|tiff|jxl seeds it with that format): sniffing, header,
/// whole decode, a thumbnail through the pipeline, damage tolerated. Bad input must only
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
    options.failOn = .none
    _ = try? ImageOperation.fit(Size(width: 9, height: 9)).render(bytes, as: .jpeg, decode: options)
    return 0
}
