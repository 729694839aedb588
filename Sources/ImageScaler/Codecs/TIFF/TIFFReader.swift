import CTIFFShim

/// One libtiff handle over a TIFF held in memory, for the length of one call: opened on
/// `data`, which must outlive it, with no allocation of libtiff's above `maxAlloc`.
final class TIFFReader {
    private let handle: OpaquePointer

    init(_ data: UnsafeBufferPointer<UInt8>, maxAlloc: Int) throws {
        var message = ShimMessage()
        guard let h = message.with({ ctiff_open(data.baseAddress, data.count, max(maxAlloc, 1 << 20), $0, $1) }) else {
            throw DecodeError.invalid(.tiff, message.text)
        }
        handle = h
    }

    deinit { ctiff_close(handle) }

    /// Chooses page `page` (0-based) and gives its facts; `countPages` walks every
    /// directory to count them (the header's business, not each decode's).
    func page(_ page: Int, countPages: Bool = false) throws -> ctiff_info {
        var raw = ctiff_info()
        var message = ShimMessage()
        let status = message.with { ctiff_page(handle, Int32(clamping: page), countPages ? 1 : 0, &raw, $0, $1) }
        if status == -2 { throw DecodeError.noPage(page, pages: Int(raw.pages), name: "page") }
        guard status == 0 else { throw DecodeError.invalid(.tiff, message.text) }
        return raw
    }

    /// Chooses the SubIFD at `offset` and gives its facts.
    func subIFD(_ offset: UInt64) throws -> ctiff_info {
        var raw = ctiff_info()
        var message = ShimMessage()
        guard message.with({ ctiff_subifd(handle, offset, &raw, $0, $1) }) == 0 else { throw DecodeError.invalid(.tiff, message.text) }
        return raw
    }

    /// The SubIFD offsets `raw` lists.
    static func subIFDs(_ raw: ctiff_info) -> [UInt64] {
        withUnsafeBytes(of: raw.subifd) { Array($0.bindMemory(to: UInt64.self).prefix(Int(raw.subifds))) }
    }

    var chunks: Int { Int(ctiff_chunks(handle)) }
    var chunkSize: Int { ctiff_chunk_size(handle) }
    /// Whether two strips or tiles with data start at one offset.
    var sharesChunks: Bool { ctiff_shared_chunks(handle) != 0 }

    /// Strip or tile `index` decompressed into `out`; the bytes decoded.
    func read(_ index: Int, into out: UnsafeMutableBufferPointer<UInt8>) throws -> Int {
        var message = ShimMessage()
        let n = message.with { ctiff_read_chunk(handle, UInt32(index), out.baseAddress, out.count, $0, $1) }
        guard n >= 0 else { throw DecodeError.invalid(.tiff, message.text) }
        return n
    }

    /// The palette as RGB bytes (each 16-bit entry's high byte, as Pillow reads it).
    func palette(entries: Int) -> [UInt8]? {
        var r: UnsafePointer<UInt16>? = nil, g: UnsafePointer<UInt16>? = nil, b: UnsafePointer<UInt16>? = nil
        guard ctiff_colormap(handle, &r, &g, &b) == 0, let r, let g, let b else { return nil }
        var out = [UInt8](repeating: 0, count: entries * 3)
        for i in 0..<entries {
            out[3 * i] = UInt8(r[i] >> 8)
            out[3 * i + 1] = UInt8(g[i] >> 8)
            out[3 * i + 2] = UInt8(b[i] >> 8)
        }
        return out
    }

    /// libtiff's first warning since the last `forgetWarnings`, if it gave any.
    var warning: String? {
        var message = ShimMessage()
        return message.with({ ctiff_warnings(handle, $0, $1) }) > 0 ? message.text : nil
    }

    func forgetWarnings() { ctiff_forget_warnings(handle) }
}
