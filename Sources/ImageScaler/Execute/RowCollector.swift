/// Gathers streamed rows back into a whole `PixelBuffer`, for callers that want the
/// full image rather than a pass over it.
package struct RowCollector {
    package private(set) var region = DecodedRegion(rect: Rect(x: 0, y: 0, width: 0, height: 0), channels: 1)
    private var pixels: [UInt8] = []

    package init() {}

    package mutating func begin(_ region: DecodedRegion) {
        self.region = region
        pixels = PixelBuffer.samples(count: region.rect.width * region.rect.height * region.channels)
    }

    package mutating func add(_ chunk: RowChunk) {
        pixels.withUnsafeMutableBufferPointer {
            ($0.baseAddress! + chunk.firstRow * chunk.bytesPerRow).update(from: chunk.pixels, count: chunk.count * chunk.bytesPerRow)
        }
    }

    package var image: PixelBuffer {
        PixelBuffer(width: region.rect.width, height: region.rect.height, channels: region.channels, validPixels: pixels)
    }
}
