import CGIFShim
import Glibc

/// A GIF being written through libcgif, frame by frame: each RGBA frame gets a colour
/// table of its own (`MedianCut`: its exact colours when it has at most 255, else 255
/// chosen by median cut), alpha below 128 becomes the transparent index 0, and no
/// dithering. Deterministic: the same frames give the same bytes.
final class GIFFrameWriter {
    private let handle: OpaquePointer
    private let size: Size

    /// A still when `loopCount` is nil; else an animation played that often (0: forever).
    init(size: Size, loopCount: Int?) throws {
        guard size.width <= 65535, size.height <= 65535 else { throw EncodeError.failed(.gif, "GIF holds at most 65535 pixels a side") }
        self.size = size
        var message = ShimMessage()
        guard let h = message.with({ cgifw_new(UInt16(size.width), UInt16(size.height), Int32(loopCount ?? -1), $0, $1) }) else {
            throw EncodeError.failed(.gif, message.text)
        }
        handle = h
    }

    deinit { cgifw_free(handle) }

    /// `rgba` (4 bytes a pixel, straight alpha), shown for `milliseconds`.
    func add(rgba: [UInt8], milliseconds: Int) throws {
        var indices = [UInt8](repeating: 0, count: size.width * size.height)
        var table: [UInt8] = []
        var transparent = false
        rgba.withUnsafeBufferPointer { p in
            let cut = MedianCut(rgba: p, limit: 255)
            // Entry 0 is the transparent one; the colours follow it.
            table = [0, 0, 0] + cut.palette
            for i in 0..<indices.count {
                let q = i * 4
                if p[q + 3] < 128 {
                    transparent = true
                } else {
                    indices[i] = cut.index(of: p[q], p[q + 1], p[q + 2]) + 1
                }
            }
        }
        // A table of a power of two entries, at least 2.
        var entries = 2
        while entries < table.count / 3 { entries *= 2 }
        table += [UInt8](repeating: 0, count: entries * 3 - table.count)
        var message = ShimMessage()
        let status = indices.withUnsafeBufferPointer { i in
            table.withUnsafeBufferPointer { t in
                message.with { cgifw_add(handle, i.baseAddress, t.baseAddress, Int32(entries), transparent ? 0 : -1,
                                         Int32(clamping: (milliseconds + 5) / 10), $0, $1) }
            }
        }
        guard status == 0 else { throw EncodeError.failed(.gif, message.text) }
    }

    func finish() throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var count = 0
        var message = ShimMessage()
        guard message.with({ cgifw_finish(handle, &out, &count, $0, $1) }) == 0, let bytes = out else {
            throw EncodeError.failed(.gif, message.text)
        }
        defer { free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: count))
    }
}
