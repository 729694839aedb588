/// A generous bound on the wall-clock seconds a job needs, from its header and its
/// outputs alone, before any pixel is decoded: what `--timeout` scales with by default,
/// so an ordinary job is never cut short and a runaway is stopped in proportion.
///
/// The rates are this project's measured slowest, on 2 cores: a baseline JPEG encode
/// 12 ns a pixel and each format's `encodeWork` times that (a 12 MP AVIF, 100x, 14.6 s
/// measured), decoding 30 ns a pixel a frame, a quality search 5 encodes, quantising to
/// a palette 400 ns a pixel and optimising a JPEG 100 ns. The sum is
/// tripled for a machine busy with other work, and never under `floor`.
package enum WorkEstimate {
    package static func seconds(header: ImageInfo, outputs: [RenderOutput], encode: EncodeOptions,
                                animated: Bool, floor: Double) -> Double {
        let frames = animated ? Double(max(1, header.frames)) : 1
        let input = Double(header.size.width) * Double(header.size.height)
        var work = input * frames * 30e-9
        let encodes: Double = encode.targetSSIM != nil || encode.maxBytes != nil ? 5 : 1
        for output in outputs {
            let area = output.operation.requestedSize.map { Double($0.width) * Double($0.height) } ?? input
            let format = output.format ?? header.format
            work += area * frames * Double(format.encodeWork) * 12e-9 * encodes
            // Measured: quantising 8 MP to 256 colours takes 3.2 s, trellis-optimising
            // a 12 MP JPEG 1 s: costs beyond the encoder's own.
            if encode.colors != nil { work += area * frames * 400e-9 * encodes }
            if encode.optimize { work += area * frames * 100e-9 * encodes }
        }
        let total = floor + 3 * work
        return total.isFinite ? min(total, 1e7) : 1e7
    }
}
