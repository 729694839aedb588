import CJPEGShim
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
    // An MPF index and a gain map read from a stranger's bytes, and one written back.
    if let map = UltraHDRReader.find(in: bytes, base: Size(width: 1 << 16, height: 1 << 16)).0 {
        _ = try? UltraHDRWriter.attach(base: bytes, map: try PixelBuffer(width: 3, height: 2, channels: 1, value: 128), source: map)
    }
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
    fuzzEighthSplit(bytes)
    fuzzEntropyAgainstLibjpeg(bytes)
    var settings = RenderSettings()
    settings.keepMetadata = true
    var srgb = options
    srgb.toSRGB = true
    _ = try? ImageOperation.fit(Size(width: 16, height: 16)).render(bytes, as: .png, decode: srgb, settings: settings)
    return 0
}

/// The 1/8 decoder with its second thread starting at a few bytes of the data (the
/// split is otherwise tried only on data of 256 KiB or more), then its rows.
func fuzzEighthSplit(_ bytes: [UInt8]) {
    let thread = RenderExecutor.lentThread()
    bytes.withUnsafeBufferPointer { buf in
        var raw = cjpeg_info()
        var message = ShimMessage()
        guard let reader = message.with({ cjpeg_reader_open(buf.baseAddress, buf.count, 1 << 26, Int32(CJPEG_SEVERITY_WARNING), &raw, $0, $1) })
        else { return }
        defer { cjpeg_reader_close(reader) }
        var layout = cjpeg_eighth_layout()
        var output = cjpeg_output()
        guard message.with({ cjpeg_reader_start_eighth(reader, &layout, &output, $0, $1) }) == 1 else { return }
        for from in [layout.scan_size / 3, layout.scan_size / 2 + 1] {
            guard let scan = JPEGEighthScan.make(layout, budget: 1 << 26, thread: thread, splitFrom: from, splitSize: 0),
                  scan.width * scan.height <= 1 << 20 else { continue }
            var pixels = [UInt8](repeating: 0, count: scan.width * scan.height * scan.channels)
            var state = JPEGEighthScan.RowState()
            // Damage the scan finds is an error like any other; only a trap is a finding.
            guard (try? pixels.withUnsafeMutableBufferPointer {
                try scan.rows(0..<scan.height, x: 0, width: scan.width, state: &state, into: $0.baseAddress!)
            }) != nil else { continue }
            if let (row, state) = scan.secondRows() {
                let lower = scan.rows(row..<scan.height, x: 1, width: scan.width - 1, from: state, on: thread)
                lower.wait()
            }
        }
    }
}

/// imgscale's entropy decoders against libjpeg's own on the same bytes, strictly and
/// leniently, whole and in a region: any difference in pixels or in the error is a bug.
func fuzzEntropyAgainstLibjpeg(_ bytes: [UInt8]) {
    for shrink in [1, 4, 8] {
        for failOn in [FailOn.warning, .none] {
            for region in [nil, Rect(x: 9, y: 3, width: 20, height: 11)] {
                var ours = DecodeOptions(maxPixels: 1 << 20, shrink: shrink)
                ours.failOn = failOn
                var theirs = ours
                theirs.libjpegOnly = true
                let a = Result { try JPEGCodec.decode(bytes, options: ours, region: region) }
                let b = Result { try JPEGCodec.decode(bytes, options: theirs, region: region) }
                compare(a, b, region)
                // Huffman decoding ahead on a second thread, however few the MCUs.
                if shrink != 8 {
                    var piped = ours
                    piped.pipelineMCUs = 1
                    compare(Result { try JPEGCodec.decode(bytes, options: piped, region: region, thread: RenderExecutor.lentThread()) },
                            b, region)
                }
            }
        }
    }
}

/// One decode's outcome against libjpeg's: pixels (in the region) or the error text.
private func compare(_ a: Result<(PixelBuffer, Rect, ImageInfo), any Error>, _ b: Result<(PixelBuffer, Rect, ImageInfo), any Error>,
                     _ region: Rect?) {
    switch (a, b) {
    case let (.success(x), .success(y)):
        // The 1/8 decoder gives the region asked for; libjpeg whole iMCU columns.
        if let region, let r = region.intersection(x.1)?.intersection(y.1) {
            let inX = Rect(x: r.x - x.1.x, y: r.y - x.1.y, width: r.width, height: r.height)
            let inY = Rect(x: r.x - y.1.x, y: r.y - y.1.y, width: r.width, height: r.height)
            precondition((try? Scaling.crop(x.0, to: inX)) == (try? Scaling.crop(y.0, to: inY)), "pixels differ from libjpeg's")
        } else {
            precondition(x.0 == y.0, "pixels differ from libjpeg's")
        }
    case let (.failure(e), .failure(f)):
        precondition("\(e)" == "\(f)", "\(e) is not libjpeg's \(f)")
    default:
        preconditionFailure("one decode failed, the other did not")
    }
}
