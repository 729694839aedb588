@testable import ImageScaler

/// libFuzzer target: the JPEG decode path including EXIF parsing, shrink-on-load,
/// region decoding, orientation and re-encoding. Bad input must only ever throw.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let options = DecodeOptions(maxPixels: 1 << 20)
    if let info = try? JPEGCodec.info(bytes), let exif = info.exif {
        _ = ExifReader.orientation(in: exif)
        _ = ExifEditor.forUprightOutput(exif, size: Size(width: 70000, height: 3))
    }
    _ = try? JPEGCodec.decode(bytes, options: options)
    // Small regions: restart-interval cuts of the compressed data, then libjpeg on them.
    for region in [Rect(x: 1, y: 2, width: 5, height: 3), Rect(x: 17, y: 9, width: 40, height: 1)] {
        _ = try? JPEGCodec.decode(bytes, options: options, region: region)
    }
    // Two halves decoded at once (restart-interval cuts on two threads).
    if let decoder = try? JPEGDecoder(bytes) {
        _ = try? RenderExecutor.collect(decoder, region: Rect(x: 3, y: 0, width: 60, height: 64), shrink: 1, options: options, split: true)
    }
    for size in [Size(width: 3, height: 9), Size(width: 40, height: 30)] {
        let fill = ImageOperation.fill(size, from: nil, origin: .topLeft, gravity: .centre)
        _ = try? fill.render(bytes, as: .jpeg, decode: options)
    }
    // Two threads: a split decode whose bottom part resamples its own band of rows.
    var threaded = RenderSettings()
    threaded.threads = 2
    _ = try? ImageOperation.fit(Size(width: 17, height: 200)).render(bytes, as: .png, decode: options, settings: threaded)
    // Damage decoded through instead of refused: libjpeg's recovery paths.
    var tolerant = options
    tolerant.failOn = .none
    _ = try? ImageOperation.fill(Size(width: 9, height: 9), from: nil, origin: .topLeft, gravity: .centre).render(bytes, as: .png, decode: tolerant)
    _ = try? ImageOperation.fill(Size(width: 9, height: 30), from: nil, origin: .topLeft, gravity: .centre)
        .render(bytes, as: .png, decode: tolerant, settings: threaded)
    var settings = RenderSettings()
    settings.keepMetadata = true
    var srgb = options
    srgb.toSRGB = true
    _ = try? ImageOperation.fit(Size(width: 16, height: 16)).render(bytes, as: .png, decode: srgb, settings: settings)
    return 0
}
