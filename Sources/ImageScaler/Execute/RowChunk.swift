/// A run of decoded rows handed to a streaming consumer, top to bottom. `pixels` holds
/// `count` rows of `bytesPerRow` bytes in the layout of `PixelBuffer` (straight alpha);
/// it is valid only during the call. `firstRow` counts from the top of the decoded region.
/// A producer that gives its rows away also passes `storage`, the array `pixels` points to
/// the start of, which a consumer on another thread may keep instead of copying.
package struct RowChunk {
    let firstRow: Int
    package let count: Int
    package let bytesPerRow: Int
    package let pixels: UnsafePointer<UInt8>
    var storage: [UInt8]? = nil
}

extension RowChunk {
    /// A whole decoded picture handed to `rows` in chunks of 16 rows, in order: how the
    /// decoders that get a picture whole from their library (WebP, GIF, HEIF, AVIF
    /// sequences, JPEG XL, SVG) feed the stages that stream.
    static func handOver(_ pixels: UnsafeBufferPointer<UInt8>, height: Int, bytesPerRow: Int, to rows: (RowChunk) throws -> Void) rethrows {
        for y in stride(from: 0, to: height, by: 16) {
            try rows(RowChunk(firstRow: y, count: min(16, height - y), bytesPerRow: bytesPerRow, pixels: pixels.baseAddress! + y * bytesPerRow))
        }
    }
}
