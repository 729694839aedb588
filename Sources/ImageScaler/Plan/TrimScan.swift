/// `--trim`'s box (`TrimFinder`'s, to the pixel) found from the decoder's rows as they
/// arrive, holding three rows of counts a band instead of the picture: a 60 MP product
/// shot needed 490 MB decoded whole, over the default budget. The box is found in the
/// stored pixels and turned upright; the background, the upright top-left pixel, lies in
/// the last stored row for four orientations, and is then read by a decode of that row
/// first (a region where the decoder has them, else every row passed over).
package enum TrimScan {
    package enum Outcome: Equatable {
        /// The upright box of what is not border.
        case box(Rect)
        /// Every pixel is border.
        case uniform
        /// Rows this scan does not read (CMYK ink): the picture is decoded whole instead.
        case unsupported
    }

    package static func bounds(_ decoder: any RowDecoder, options: TrimFinder.Options, decode: DecodeOptions,
                       orientation: Orientation) throws -> Outcome {
        let info = decoder.info
        let (w, h) = (info.size.width, info.size.height)
        guard w > 0, h > 0, info.colorModel != .cmyk, info.colorModel != .unknown else { return .unsupported }
        // The stored pixel the upright top-left one is.
        let corner = orientation.storedRect(SamplingRect(x: 0, y: 0, width: 1, height: 1), stored: info.size)
        let (cx, cy) = (Int(corner.x), Int(corner.y))
        var channels = 0
        var cornerPixel: [Int]? = nil
        if cy != 0 {
            var decoded = Rect(size: info.size)
            _ = try decoder.decode(region: Rect(x: 0, y: cy, width: w, height: 1), shrink: 1, options: decode, begin: { region in
                channels = region.channels
                decoded = region.rect
                guard region.cmykInverted == nil else { throw Unreadable() }
            }, rows: { chunk in
                guard cornerPixel == nil else { return }
                // Rows are numbered within what was decoded: the region, or the whole
                // picture where the decoder has no regions.
                for i in 0..<chunk.count where decoded.y + chunk.firstRow + i == cy {
                    let row = chunk.pixels + i * chunk.bytesPerRow
                    cornerPixel = (0..<channels).map { Int(row[(cx - decoded.x) * channels + $0]) }
                }
            })
        }
        var scan: TrimRows? = nil
        do {
            _ = try decoder.decode(region: nil, shrink: 1, options: decode, begin: { region in
                guard region.cmykInverted == nil, (1...4).contains(region.channels), region.rect == Rect(size: info.size) else {
                    throw Unreadable()
                }
                channels = region.channels
            }, rows: { chunk in
                for i in 0..<chunk.count {
                    let row = chunk.pixels + i * chunk.bytesPerRow
                    if scan == nil {
                        let first = cornerPixel ?? (0..<channels).map { Int(row[cx * channels + $0]) }
                        scan = TrimRows(width: w, height: h, channels: channels, corner: first, options: options)
                    }
                    scan!.add(row)
                }
            })
        } catch is Unreadable {
            return .unsupported
        }
        // Rows a damaged file did not give (under --fail-on none): the whole decode's way.
        guard var scan, scan.rows == h else { return .unsupported }
        guard let stored = scan.finish() else { return .uniform }
        // Each orientation's inverse is itself but for the quarter turns, which swap.
        let back: Orientation = orientation == .right ? .left : orientation == .left ? .right : orientation
        let r = back.storedRect(SamplingRect(x: Double(stored.x), y: Double(stored.y), width: Double(stored.width),
                                             height: Double(stored.height)), stored: info.uprightSize)
        return .box(Rect(x: Int(r.x), y: Int(r.y), width: Int(r.width), height: Int(r.height)))
    }

    private struct Unreadable: Error {}
}
