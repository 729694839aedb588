/// One box of an ISO base media file (the container of HEIC and AVIF): its four-letter
/// type and where its payload lies in the file's bytes (after the size and type, and
/// for a full box before its version and flags). Every range is checked against the
/// enclosing one, so a hostile size can neither read outside the file nor loop.
struct ISOBox {
    let type: String
    let payload: Range<Int>

    /// The boxes laid one after another in `range` of `data`; nil when one's size runs
    /// outside it (or is smaller than its own header), or with `partial` the boxes
    /// before that one.
    static func children(of data: [UInt8], in range: Range<Int>, partial: Bool = false) -> [ISOBox]? {
        var boxes: [ISOBox] = []
        var at = range.lowerBound
        while at < range.upperBound {
            guard range.upperBound - at >= 8 else { return partial ? boxes : nil }
            var size = Int(ISOBox.be32(data, at))
            let type = String(decoding: data[at + 4 ..< at + 8], as: UTF8.self)
            var header = 8
            if size == 1 {
                guard range.upperBound - at >= 16 else { return partial ? boxes : nil }
                let large = UInt64(ISOBox.be32(data, at + 8)) << 32 | UInt64(ISOBox.be32(data, at + 12))
                guard large <= UInt64(range.upperBound - at) else { return partial ? boxes : nil }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = range.upperBound - at
            }
            guard size >= header, size <= range.upperBound - at else { return partial ? boxes : nil }
            boxes.append(ISOBox(type: type, payload: at + header ..< at + size))
            at += size
        }
        return boxes
    }

    /// The first child of `type`, nil when there is none or the children do not parse.
    func child(_ type: String, in data: [UInt8], fullBox: Bool = false) -> ISOBox? {
        let start = payload.lowerBound + (fullBox ? 4 : 0)
        guard start <= payload.upperBound else { return nil }
        return ISOBox.children(of: data, in: start ..< payload.upperBound)?.first { $0.type == type }
    }

    static func be32(_ d: [UInt8], _ at: Int) -> UInt32 {
        UInt32(d[at]) << 24 | UInt32(d[at + 1]) << 16 | UInt32(d[at + 2]) << 8 | UInt32(d[at + 3])
    }
}
