/// Finds whether an image uses at most 256 distinct colours and, if so, maps it to a
/// palette: entries are RGBA (gray replicated, missing alpha 255) in order of first
/// appearance, so the result is deterministic; indices are one byte per pixel.
enum Palettizer {
    static func palettize(_ image: PixelBuffer) -> (palette: [UInt8], indices: [UInt8])? {
        let rgba = image.rgba()
        var index: [UInt32: UInt8] = [:]
        var palette: [UInt8] = []
        var indices = [UInt8](repeating: 0, count: image.width * image.height)
        for i in 0..<(image.width * image.height) {
            let p = i * 4
            let key = UInt32(rgba[p]) << 24 | UInt32(rgba[p + 1]) << 16 | UInt32(rgba[p + 2]) << 8 | UInt32(rgba[p + 3])
            if let k = index[key] {
                indices[i] = k
                continue
            }
            guard index.count < 256 else { return nil }
            let k = UInt8(index.count)
            index[key] = k
            palette += rgba[p..<p + 4]
            indices[i] = k
        }
        return (palette, indices)
    }
}
