import ImageScaler

/// libFuzzer target: the PNG decode path end to end (header, whole decode, streaming
/// decode into the resampler, re-encode). Bad input must only ever throw.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    // A small pixel limit keeps the fuzzer on parsing, not on allocating big buffers.
    let options = DecodeOptions(maxPixels: 1 << 20)
    _ = try? PNGCodec.info(bytes)
    if let (image, _) = try? PNGCodec.decode(bytes, options: options) {
        _ = try? ImageCodec.encode(image, as: .png)
    }
    let fill = ImageOperation.fill(Size(width: 7, height: 5), from: nil, origin: .topLeft, gravity: .centre)
    _ = try? fill.render(bytes, as: .png, decode: options)
    return 0
}
