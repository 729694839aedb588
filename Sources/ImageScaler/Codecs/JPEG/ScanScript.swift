/// How a JPEG's coefficients are split into scans: none given is one sequential scan;
/// `simple` is libjpeg's progression with successive approximation; otherwise the scans
/// (components, first and last coefficient, successive approximation bits) in order.
struct ScanScript: Sendable {
    struct Scan: Sendable {
        let components: [Int]
        let first: Int
        let last: Int
        var high = 0
        var low = 0
    }
    let scans: [Scan]
    /// libjpeg's own progression (`jpeg_simple_progression`).
    var simple = false

    /// Scans for C: 9 ints each, or -1 scans for libjpeg's own progression.
    var count: Int { simple ? -1 : scans.count }
    var fields: [Int32] {
        var out: [Int32] = []
        for s in scans {
            out.append(Int32(s.components.count))
            for k in 0..<4 { out.append(Int32(k < s.components.count ? s.components[k] : 0)) }
            out += [Int32(s.first), Int32(s.last), Int32(s.high), Int32(s.low)]
        }
        return out
    }

    static let sequential = ScanScript(scans: [])

    static func candidates(components: Int) -> [ScanScript] {
        let all = Array(0..<components)
        let dc = Scan(components: all, first: 0, last: 0)
        if components == 1 {
            return [sequential, ScanScript(scans: [], simple: true),
                    ScanScript(scans: [dc, Scan(components: [0], first: 1, last: 63)]),
                    ScanScript(scans: [dc, Scan(components: [0], first: 1, last: 5), Scan(components: [0], first: 6, last: 63)])]
        }
        return [sequential, ScanScript(scans: [], simple: true),
                ScanScript(scans: [dc, Scan(components: [0], first: 1, last: 63), Scan(components: [1], first: 1, last: 63), Scan(components: [2], first: 1, last: 63)]),
                ScanScript(scans: [dc, Scan(components: [0], first: 1, last: 8), Scan(components: [1], first: 1, last: 63), Scan(components: [2], first: 1, last: 63),
                                   Scan(components: [0], first: 9, last: 63)]),
                ScanScript(scans: [dc, Scan(components: [0], first: 1, last: 2), Scan(components: [0], first: 3, last: 63), Scan(components: [1], first: 1, last: 63),
                                   Scan(components: [2], first: 1, last: 63)])]
    }
}
