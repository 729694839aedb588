/// A format's decoder over a file held in memory. Its header is read when it is made;
/// then `decode` announces the part of the image it delivers (`begin`) and hands over
/// its rows top to bottom in chunks, straight alpha, stored orientation. One type per
/// format conforms, in the codec's own files; `ImageFormat.decoder(for:)` picks it.
package protocol RowDecoder: Sendable {
    /// The header: size, channels, orientation, ICC, EXIF, and what a full decode holds.
    var info: ImageInfo { get }
    var capabilities: DecoderCapabilities { get }

    /// Decodes at 1/`shrink` (one of `capabilities.shrinkFactors`), and only over
    /// `region` (in the shrunk image's stored pixels) when given and regions are
    /// supported. Returns the header as the decode saw it, warnings included.
    func decode(region: Rect?, shrink: Int, options: DecodeOptions,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo

    /// `decode`, with a thread to run part of the work on; decoders that have no use for
    /// one decode as without it.
    func decode(region: Rect?, shrink: Int, options: DecodeOptions, lending thread: LentThread,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo

    /// `region` as a top part, its rows above `split`, and a bottom part from `overlap`
    /// rows above `split` to its end, that decode independently and give the rows
    /// `decode` would; nil when this file cannot be split there.
    func halves(of region: Rect, shrink: Int, options: DecodeOptions, split: Int, overlap: Int) -> RegionHalves?

    /// The row of `region` (shrunk coordinates) above which half of its decoding work
    /// lies, where the decoder can tell (nil: the middle row will do).
    func balancedSplit(of region: Rect, shrink: Int) -> Int?

    /// The whole image at 16 bits, for a file whose samples have more than 8 (a 16-bit
    /// PNG); nil where `decode`'s 8-bit rows hold everything the file has.
    func decodeWide(options: DecodeOptions) throws -> (WideImage, ImageInfo)?

    /// For a file of several frames: a reader of them all, composited; nil for a still
    /// or a format whose frames are not read.
    func frames(options: DecodeOptions) throws -> (any FrameReader)?

    /// For a picture drawn rather than stored (`capabilities.drawsAtAnySize`): a decoder
    /// of it drawn at `size`, whose `info.size` is that size. nil for stored pixels.
    func drawn(at size: Size) throws -> (any RowDecoder)?
}

extension RowDecoder {
    package func decode(region: Rect?, shrink: Int, options: DecodeOptions, lending thread: LentThread,
                begin: (DecodedRegion) throws -> Void, rows: (RowChunk) throws -> Void) throws -> ImageInfo {
        try decode(region: region, shrink: shrink, options: options, begin: begin, rows: rows)
    }

    package func halves(of region: Rect, shrink: Int, options: DecodeOptions, split: Int, overlap: Int) -> RegionHalves? { nil }

    package func balancedSplit(of region: Rect, shrink: Int) -> Int? { nil }

    package func drawn(at size: Size) throws -> (any RowDecoder)? { nil }

    package func frames(options: DecodeOptions) throws -> (any FrameReader)? { nil }

    package func decodeWide(options: DecodeOptions) throws -> (WideImage, ImageInfo)? { nil }

    /// Where to split `region` so the two parts take about as long: the balanced row,
    /// else the middle, at least `margin` rows from either end (nil when the region is
    /// too short for that).
    func splitRow(of region: Rect, shrink: Int, margin: Int) -> Int? {
        guard region.height >= 2 * margin else { return nil }
        let row = balancedSplit(of: region, shrink: shrink) ?? region.y + region.height / 2
        return min(max(row, region.y + margin), region.maxY - margin)
    }

    /// `region` split in two that decode in about the same time, the parts not overlapping.
    func halves(of region: Rect, shrink: Int, options: DecodeOptions) -> RegionHalves? {
        guard let split = splitRow(of: region, shrink: shrink, margin: 16) else { return nil }
        return halves(of: region, shrink: shrink, options: options, split: split, overlap: 0)
    }
}

/// Two parts of a region, each decoded by its own call, for the executor to run at once.
/// `bottom` starts at or above `top`'s end (rows both deliver are the same pixels).
package struct RegionHalves: Sendable {
    typealias Decode = @Sendable ((DecodedRegion) throws -> Void, (RowChunk) throws -> Void) throws -> ImageInfo
    let top: Rect
    let bottom: Rect
    let decodeTop: Decode
    let decodeBottom: Decode
}
