import CSVGShim

/// A parsed SVG document (librsvg), from memory with no base file: nothing it refers to
/// outside itself is loaded. Its size is in pixels at the density it was parsed at.
/// Drawings are made one at a time (a librsvg handle is not drawn from two threads at
/// once), which the lock around `draw` keeps.
final class SVGDocument: @unchecked Sendable {  // the handle is only touched under `lock`
    private let handle: OpaquePointer
    private let lock = Locked(())
    /// The size at the density asked for, not rounded.
    let width: Double, height: Double

    init(_ data: [UInt8], density: Double) throws {
        var info = csvg_info()
        var message = ShimMessage()
        guard let h = data.withUnsafeBufferPointer({ d in message.with { csvg_open(d.baseAddress, d.count, density, &info, $0, $1) } }) else {
            throw DecodeError.invalid(.svg, message.text)
        }
        handle = h
        width = info.width
        height = info.height
    }

    deinit { csvg_close(handle) }

    /// The whole document stretched to `size`, straight-alpha RGBA.
    func draw(_ size: Size, into pixels: inout [UInt8]) throws {
        var message = ShimMessage()
        let status = lock.withLock { _ in
            pixels.withUnsafeMutableBufferPointer { out in
                message.with { csvg_render(handle, UInt32(size.width), UInt32(size.height), out.baseAddress, size.width * 4, $0, $1) }
            }
        }
        if status != 0 { throw DecodeError.invalid(.svg, message.text) }
    }

    /// An XML document's start, after an optional byte-order mark and white space: an
    /// `<svg` element, an XML declaration, a doctype or a comment, or gzip. Which XML it is,
    /// librsvg says when it parses it.
    static func looksLikeSVG(_ head: ArraySlice<UInt8>) -> Bool {
        // gzip (deflate, 1f 8b 08): an SVGZ, checked again once inflated.
        if head.starts(with: [0x1F, 0x8B, 0x08]) { return true }
        var s = head
        if s.starts(with: [0xEF, 0xBB, 0xBF]) { s = s.dropFirst(3) }
        s = s.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let text = String(decoding: s.prefix(14), as: UTF8.self).lowercased()
        return ["<svg", "<?xml", "<!doctype svg", "<!--"].contains { text.hasPrefix($0) }
    }
}
