import ImageScaler

/// libFuzzer target: the PNG decode path end to end (header, whole decode, streaming
/// decode into the resampler on one thread and two, a streamed convert, re-encode). Bad input must only ever throw. Each input is
/// also tried with its chunk CRCs recomputed: otherwise almost every mutation dies at
/// the first CRC check and the fuzzer never reaches the deeper decoding paths.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    exercise(bytes)
    let fixed = withFixedCRCs(bytes)
    if fixed != bytes { exercise(fixed) }
    return 0
}

func exercise(_ bytes: [UInt8]) {
    // A small pixel limit keeps the fuzzer on parsing, not on allocating big buffers.
    let options = DecodeOptions(maxPixels: 1 << 20)
    _ = try? PNGCodec.info(bytes)
    if let (image, _) = try? PNGCodec.decode(bytes, options: options) {
        _ = try? ImageCodec.encode(image, as: .png)
    }
    let fill = ImageOperation.fill(Size(width: 7, height: 5), from: nil, origin: .topLeft, gravity: .centre)
    _ = try? fill.render(bytes, as: .png, decode: options)
    // Two threads: the fast path inflates on a lent thread while another unfilters.
    var twoThreads = RenderSettings()
    twoThreads.threads = 2
    _ = try? fill.render(bytes, as: .png, decode: options, settings: twoThreads)
    _ = try? ImageOperation.convert.render(bytes, as: .png, decode: options, settings: twoThreads)
    // An APNG asked for its frames (refused in one line today; the still path above reads
    // its first), a few at most.
    var frames = options
    frames.maxFrames = 8
    var animated = RenderSettings()
    animated.animated = true
    _ = try? fill.render(bytes, as: .webp, decode: frames, settings: animated)
    // Damage decoded through instead of refused: partial rows, bad CRCs used.
    var tolerant = options
    tolerant.failOn = .none
    _ = try? fill.render(bytes, as: .jpeg, decode: tolerant)
}

func withFixedCRCs(_ png: [UInt8]) -> [UInt8] {
    var out = png
    var at = 8
    while at + 12 <= out.count {
        let length = Int(out[at]) << 24 | Int(out[at + 1]) << 16 | Int(out[at + 2]) << 8 | Int(out[at + 3])
        guard length <= out.count - at - 12 else { break }
        var crc: UInt32 = 0xFFFF_FFFF
        for b in out[(at + 4)..<(at + 8 + length)] {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        crc = ~crc
        let c = at + 8 + length
        out[c] = UInt8(crc >> 24); out[c + 1] = UInt8(crc >> 16 & 0xFF); out[c + 2] = UInt8(crc >> 8 & 0xFF); out[c + 3] = UInt8(crc & 0xFF)
        at = c + 4
    }
    return out
}
