/// A run of decoded rows handed to a streaming consumer, top to bottom. `pixels` holds
/// `count` rows of `bytesPerRow` bytes in the layout of `PixelBuffer` (straight alpha);
/// it is valid only during the call. `firstRow` counts from the top of the decoded region.
struct RowChunk {
    let firstRow: Int
    let count: Int
    let bytesPerRow: Int
    let pixels: UnsafePointer<UInt8>
}
