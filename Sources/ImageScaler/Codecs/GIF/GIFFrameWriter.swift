import CGIFShim
import Glibc

/// A GIF being written through libcgif, frame by frame: each RGBA frame's colours are
/// chosen alone (`MedianCut`: its exact colours when it has at most 255, else 255 chosen
/// by median cut), alpha below 128 becomes the transparent index 0, and no dithering.
/// While the colours of all frames so far fit one table of 256 (entry 0 transparent),
/// frames are held as indices, and at the end the file gets that one global table and
/// no frame a table of its own (smaller, and what every reader handles best); once they
/// do not, or the held indices would pass `holdLimit`, the held frames and every later
/// one are written with tables of their own. Global entries follow the order colours
/// first appear in. Deterministic: the same frames give the same bytes.
final class GIFFrameWriter {
    /// Bytes of indices held for a global table at most; past it, local tables.
    static let holdLimit = 64 << 20

    private let size: Size
    private let loopCount: Int?
    /// The libcgif writer, once the tables are decided.
    private var handle: OpaquePointer?
    /// A frame as its own colours see it: index 0 transparent, k its colour k - 1.
    private struct Frame {
        let indices: [UInt8]
        let colours: [UInt32]
        let transparent: Bool
        let delay: Int32
    }
    private var held: [Frame] = []
    private var heldBytes = 0
    /// Every held frame's colours (0xRRGGBB) and their global index, from 1.
    private var global: [UInt32: UInt8] = [:]
    private var globalOrder: [UInt32] = []

    /// A still when `loopCount` is nil; else an animation played that often (0: forever).
    init(size: Size, loopCount: Int?) throws {
        guard size.width <= 65535, size.height <= 65535 else { throw EncodeError.failed(.gif, "GIF holds at most 65535 pixels a side") }
        self.size = size
        self.loopCount = loopCount
    }

    deinit { if let handle { cgifw_free(handle) } }

    /// `rgba` (4 bytes a pixel, straight alpha), shown for `milliseconds`.
    func add(rgba: [UInt8], milliseconds: Int) throws {
        let frame = GIFFrameWriter.quantise(rgba, count: size.width * size.height, delay: Int32(clamping: (milliseconds + 5) / 10))
        if handle == nil {
            let fresh = Set(frame.colours).subtracting(global.keys)
            if global.count + fresh.count <= 255 && heldBytes + frame.indices.count <= GIFFrameWriter.holdLimit {
                for c in frame.colours where global[c] == nil {
                    globalOrder.append(c)
                    global[c] = UInt8(globalOrder.count)
                }
                held.append(frame)
                heldBytes += frame.indices.count
                return
            }
            try start(table: nil)
            for f in held { try write(f) }
            held = []
        }
        try write(frame)
    }

    func finish() throws -> [UInt8] {
        if handle == nil {
            try start(table: GIFFrameWriter.entries(globalOrder))
            for f in held {
                var map = [UInt8](repeating: 0, count: 256)
                for (k, c) in f.colours.enumerated() { map[k + 1] = global[c]! }
                try write(indices: f.indices.map { map[Int($0)] }, table: nil, transparent: f.transparent, delay: f.delay)
            }
            held = []
        }
        var out: UnsafeMutablePointer<UInt8>? = nil
        var count = 0
        var message = ShimMessage()
        guard message.with({ cgifw_finish(handle, &out, &count, $0, $1) }) == 0, let bytes = out else {
            throw EncodeError.failed(.gif, message.text)
        }
        defer { free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: count))
    }

    /// A frame's own indices and colours.
    private static func quantise(_ rgba: [UInt8], count: Int, delay: Int32) -> Frame {
        var indices = [UInt8](repeating: 0, count: count)
        var colours: [UInt32] = []
        var transparent = false
        rgba.withUnsafeBufferPointer { p in
            let cut = MedianCut(rgba: p, limit: 255)
            colours = stride(from: 0, to: cut.palette.count, by: 3).map { (k: Int) -> UInt32 in
                let r = UInt32(cut.palette[k]) << 16, g = UInt32(cut.palette[k + 1]) << 8
                return r | g | UInt32(cut.palette[k + 2])
            }
            for i in 0..<count {
                let q = i * 4
                if p[q + 3] < 128 {
                    transparent = true
                } else {
                    indices[i] = cut.index(of: p[q], p[q + 1], p[q + 2]) + 1
                }
            }
        }
        return Frame(indices: indices, colours: colours, transparent: transparent, delay: delay)
    }

    /// A table's RGB bytes: the transparent entry, then `colours` (0xRRGGBB).
    private static func entries(_ colours: [UInt32]) -> [UInt8] {
        var out: [UInt8] = [0, 0, 0]
        for c in colours { out += [UInt8(c >> 16), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF)] }
        return out
    }

    /// `rgb` padded to a power of two entries of at least 2.
    private static func table(_ rgb: [UInt8]) -> (bytes: [UInt8], entries: Int) {
        var entries = 2
        while entries < rgb.count / 3 { entries *= 2 }
        return (rgb + [UInt8](repeating: 0, count: entries * 3 - rgb.count), entries)
    }

    /// Opens libcgif's writer with the file's table, or none (each frame its own).
    private func start(table rgb: [UInt8]?) throws {
        var message = ShimMessage()
        let padded = rgb.map(GIFFrameWriter.table)
        let h = (padded?.bytes ?? []).withUnsafeBufferPointer { t in
            message.with {
                cgifw_new(UInt16(size.width), UInt16(size.height), Int32(loopCount ?? -1), padded == nil ? nil : t.baseAddress,
                          Int32(padded?.entries ?? 0), $0, $1)
            }
        }
        guard let h else { throw EncodeError.failed(.gif, message.text) }
        handle = h
    }

    /// A frame with its own table.
    private func write(_ f: Frame) throws {
        try write(indices: f.indices, table: GIFFrameWriter.entries(f.colours),
                  transparent: f.transparent, delay: f.delay)
    }

    private func write(indices: [UInt8], table rgb: [UInt8]?, transparent: Bool, delay: Int32) throws {
        let padded = rgb.map(GIFFrameWriter.table)
        var message = ShimMessage()
        let status = indices.withUnsafeBufferPointer { i in
            (padded?.bytes ?? []).withUnsafeBufferPointer { t in
                message.with { cgifw_add(handle, i.baseAddress, padded == nil ? nil : t.baseAddress, Int32(padded?.entries ?? 0),
                                         transparent ? 0 : -1, delay, $0, $1) }
            }
        }
        guard status == 0 else { throw EncodeError.failed(.gif, message.text) }
    }
}
