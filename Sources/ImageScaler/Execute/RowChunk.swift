/// A run of decoded rows handed to a streaming consumer, top to bottom. `pixels` holds
/// `count` rows of `bytesPerRow` bytes in the layout of `PixelBuffer` (straight alpha);
/// it is valid only during the call. `firstRow` counts from the top of the decoded region.
/// A producer that gives its rows away also passes `storage`, the array `pixels` points to
/// the start of, which a consumer on another thread may keep instead of copying.
struct RowChunk {
    let firstRow: Int
    let count: Int
    let bytesPerRow: Int
    let pixels: UnsafePointer<UInt8>
    var storage: [UInt8]? = nil
}
