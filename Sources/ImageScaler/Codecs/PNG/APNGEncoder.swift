/// An animated PNG (APNG), frame by frame: each frame is a whole RGBA PNG from libpng at
/// the output's compression, its image data kept; `finish` writes the first frame's
/// header and colour chunks, `acTL` with the frame count and loops, then per frame an
/// `fcTL` (the whole canvas, shown for its milliseconds, replacing the frame before:
/// dispose none, blend source) and its data (`IDAT` for the first, sequence-numbered
/// `fdAT` after). Readers without APNG show the first frame. Deterministic: libpng's
/// bytes and a fixed layout.
final class APNGEncoder: AnimationEncoder {
    private let size: Size
    private let options: EncodeOptions
    private let loopCount: Int
    /// The first frame's chunks before its image data (IHDR, colour, metadata).
    private var head: [PNGChunk] = []
    private var frames: [(data: [ArraySlice<UInt8>], milliseconds: Int)] = []

    init(size: Size, options: EncodeOptions, loopCount: Int) throws {
        guard size.width > 0, size.height > 0 else { throw EncodeError.failed(.png, "an animation of \(size)") }
        self.size = size
        self.options = options
        self.loopCount = loopCount
    }

    func add(_ frame: PixelBuffer, milliseconds: Int) throws {
        guard frame.size == size, frame.channels == 3 || frame.channels == 4 else {
            throw EncodeError.failed(.png, "a frame of \(frame.size), \(frame.channels) channels, in an animation of \(size)")
        }
        // Every frame RGBA: the header, and so the colour type, is the first frame's.
        var rgba = frame.pixels
        if frame.channels == 3 {
            rgba = [UInt8](repeating: 255, count: size.width * size.height * 4)
            for i in 0..<(size.width * size.height) {
                rgba[i * 4] = frame.pixels[i * 3]
                rgba[i * 4 + 1] = frame.pixels[i * 3 + 1]
                rgba[i * 4 + 2] = frame.pixels[i * 3 + 2]
            }
        }
        // The metadata is written once, with the first frame's header.
        var plain = options
        if !frames.isEmpty { (plain.iccProfile, plain.exif, plain.xmp) = (nil, nil, nil) }
        let encoder = try PNGEncoder(width: size.width, height: size.height, channels: 4, options: plain)
        try rgba.withUnsafeBufferPointer { try encoder.write($0.baseAddress!, count: size.height, bytesPerRow: size.width * 4) }
        guard let chunks = PNGChunk.chunks(try encoder.finish()) else { throw EncodeError.failed(.png, "libpng wrote no whole chunks") }
        if frames.isEmpty { head = Array(chunks.prefix { $0.type != "IDAT" }.filter { $0.type != "IEND" }) }
        frames.append((chunks.filter { $0.type == "IDAT" }.map(\.data), milliseconds))
    }

    func finish() throws -> [UInt8] {
        guard !frames.isEmpty, head.first?.type == "IHDR" else { throw EncodeError.failed(.png, "an animation of no frames") }
        var out = PNGChunk.signature
        out += head[0].bytes()
        out += PNGChunk(type: "acTL", data: ArraySlice(PNGChunk.be32(UInt32(frames.count)) + PNGChunk.be32(UInt32(max(0, loopCount))))).bytes()
        for chunk in head.dropFirst() { out += chunk.bytes() }
        var sequence: UInt32 = 0
        for (i, frame) in frames.enumerated() {
            // Delays are a fraction of 16-bit parts: milliseconds, or hundredths past 65.5 s.
            let ms = max(0, frame.milliseconds)
            let (num, den): (UInt16, UInt16) = ms <= 0xFFFF ? (UInt16(ms), 1000) : (UInt16(min(0xFFFF, ms / 10)), 100)
            var control = PNGChunk.be32(sequence) + PNGChunk.be32(UInt32(size.width)) + PNGChunk.be32(UInt32(size.height))
            control += PNGChunk.be32(0) + PNGChunk.be32(0) + PNGChunk.be16(num) + PNGChunk.be16(den) + [0, 0]
            out += PNGChunk(type: "fcTL", data: ArraySlice(control)).bytes()
            sequence += 1
            for data in frame.data {
                if i == 0 {
                    out += PNGChunk(type: "IDAT", data: data).bytes()
                } else {
                    out += PNGChunk(type: "fdAT", data: ArraySlice(PNGChunk.be32(sequence) + data)).bytes()
                    sequence += 1
                }
            }
        }
        out += PNGChunk(type: "IEND", data: []).bytes()
        return out
    }
}
