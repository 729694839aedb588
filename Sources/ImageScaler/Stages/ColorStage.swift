/// Colour conversion, the stage between any decoder and the rest of the pipeline: CMYK
/// ink (as a decoder delivers it, Adobe-inverted or not) becomes RGB, and with
/// `toSRGB` the pixels go from the embedded ICC profile to sRGB, or with an `export`
/// target from that profile (sRGB without one) to the target's (`ColorConverter`): CMYK
/// through its profile, or made RGB plainly and taken as sRGB; gray passes untouched.
/// Anything else passes through untouched. Made per decode, at its `begin`, and used by
/// that decode's thread only.
package final class ColorStage {
    /// The region as the stage hands it on (3 channels for CMYK).
    let output: DecodedRegion
    private let input: DecodedRegion
    private let converter: ColorConverter?
    /// CMYK without a profile, going to an export target: made RGB plainly first.
    private let plainInkFirst: Bool
    private var buffer: [UInt8] = []
    private var ink: [UInt8] = []

    /// The stage for rows of `region`, or nil when they pass unchanged; `warning` says
    /// why a profile could not be used (the colours are then left as stored).
    static func make(for region: DecodedRegion, profile: [UInt8]?, toSRGB: Bool,
                     export: ColorTarget? = nil) -> (ColorStage?, warning: String?) {
        var converter: ColorConverter? = nil
        var warning: String? = nil
        var plainInkFirst = false
        if let export, region.cmykInverted != nil || region.channels >= 3 {
            var layout: ColorConverter.Layout = region.cmykInverted.map { .cmyk(inverted: $0) } ?? .init(channels: region.channels)
            var source = profile
            if region.cmykInverted != nil && profile == nil {
                (layout, source, plainInkFirst) = (.rgb, nil, true)
            }
            do { converter = try ColorConverter(profile: source, layout: layout, target: export) } catch {
                // An input profile that cannot be used: its pixels taken as sRGB.
                warning = "\(error)"
                if region.cmykInverted != nil { (layout, plainInkFirst) = (.rgb, true) }
                converter = try? ColorConverter(profile: nil, layout: layout, target: export)
            }
        } else if toSRGB, let profile {
            let layout: ColorConverter.Layout = region.cmykInverted.map { .cmyk(inverted: $0) } ?? .init(channels: region.channels)
            do { converter = try ColorConverter(profile: profile, layout: layout) } catch { warning = "\(error)" }
        }
        guard converter != nil || region.cmykInverted != nil else { return (nil, warning) }
        return (ColorStage(region, converter: converter, plainInkFirst: plainInkFirst), warning)
    }

    private init(_ region: DecodedRegion, converter: ColorConverter?, plainInkFirst: Bool) {
        input = region
        self.converter = converter
        self.plainInkFirst = plainInkFirst
        output = DecodedRegion(rect: region.rect, channels: region.cmykInverted != nil ? 3 : region.channels)
    }

    /// Converts `chunk` and hands the converted rows to `rows`.
    func convert(_ chunk: RowChunk, to rows: (RowChunk) throws -> Void) throws {
        let width = input.rect.width
        let pixels = width * chunk.count
        if buffer.count < pixels * output.channels { buffer = PixelBuffer.samples(count: pixels * output.channels) }
        buffer.withUnsafeMutableBufferPointer { dst in
            for r in 0..<chunk.count {
                let src = chunk.pixels + r * chunk.bytesPerRow
                let out = dst.baseAddress! + r * width * output.channels
                if let converter, plainInkFirst {
                    if ink.count < width * 3 { ink = [UInt8](repeating: 0, count: width * 3) }
                    ink.withUnsafeMutableBufferPointer { rgb in
                        ColorStage.cmykToRGB(src, rgb.baseAddress!, pixels: width, inverted: input.cmykInverted!)
                        converter.convert(rgb.baseAddress!, into: out, pixels: width)
                    }
                } else if let converter {
                    converter.convert(src, into: out, pixels: width)
                } else {
                    ColorStage.cmykToRGB(src, out, pixels: width, inverted: input.cmykInverted!)
                }
            }
        }
        try buffer.withUnsafeBufferPointer {
            try rows(RowChunk(firstRow: chunk.firstRow, count: chunk.count, bytesPerRow: width * output.channels, pixels: $0.baseAddress!))
        }
    }

    /// Wraps one decode: `decode` is called with a `begin` and `rows` that put the stage
    /// (if any) in front of the caller's; its warning joins the decode's.
    static func around(profile: [UInt8]?, toSRGB: Bool, export: ColorTarget? = nil,
                       begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void,
                       _ decode: ((DecodedRegion) throws -> Void, (RowChunk) throws -> Void) throws -> ImageInfo) throws -> ImageInfo {
        var stage: ColorStage? = nil
        var warning: String? = nil
        // The wrappers are called only while `decode` runs, never kept.
        var info = try withoutActuallyEscaping(begin) { begin in
            try withoutActuallyEscaping(rows) { rows in
                try decode({ region in
                    (stage, warning) = make(for: region, profile: profile, toSRGB: toSRGB, export: export)
                    try begin(stage?.output ?? region)
                }, { chunk in
                    if let stage { try stage.convert(chunk, to: rows) } else { try rows(chunk) }
                })
            }
        }
        if let warning, !info.warnings.contains(warning) { info.warnings.append(warning) }
        return info
    }

    /// Photoshop (which writes the Adobe APP14 marker) stores CMYK inverted, 255 = no
    /// ink; other writers store it plainly. Either way the ink fraction multiplies out.
    package static func cmykToRGB(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, pixels: Int, inverted: Bool) {
        for i in 0..<pixels {
            var c = Int(src[i * 4]), m = Int(src[i * 4 + 1]), y = Int(src[i * 4 + 2]), k = Int(src[i * 4 + 3])
            if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
            // (a * b + 127) / 255 rounds the product of two 8-bit fractions to nearest.
            dst[i * 3] = UInt8((c * k + 127) / 255)
            dst[i * 3 + 1] = UInt8((m * k + 127) / 255)
            dst[i * 3 + 2] = UInt8((y * k + 127) / 255)
        }
    }
}
