/// What an SVG would cost librsvg to draw, read from its tags before librsvg sees them,
/// and bounded as browsers bound it: a 291-byte `feTurbulence numOctaves="100000"`, a
/// 1 KB `<use>` fan-out of a blurred rect and a path fanning markers each ran for minutes.
///
/// - `numOctaves` above 10 is drawn as 10 (each octave is a pass of noise; past 10 they
///   add nothing a pixel can show), by rewriting the value in the bytes.
/// - An `feMorphology` radius over 256 or an `feConvolveMatrix` order over 32 is refused
///   (their cost grows with the radius and the order squared; librsvg aborts on large orders).
/// - Elements are counted as drawn: a `<use>` draws what it refers to again, a marker is
///   drawn at every vertex of the path that names it. Over 1,000,000 drawn elements, or
///   over 4,096 drawn with a filter, or over 1,000 filter primitives, is refused.
///
/// The scan is a tokenizer, not a parser: librsvg still parses and refuses bad XML. Style
/// sheets are not resolved, so a filter set from a `<style>` escapes the count; the
/// wall-clock limit (`--timeout`) stops what this misses.
struct SVGCost {
    static let maxOctaves = 10
    static let maxMorphologyRadius = 256.0
    static let maxConvolveOrder = 32
    static let maxDrawn = 500_000
    static let maxFilteredDraws = 4_096
    static let maxPrimitives = 1_000

    private struct Node {
        var name: Substring
        var id: String?
        var href: String?
        var filter: String?
        var markers: [String] = []
        var vertices = 0
        var children: [Int] = []
    }

    /// The document to give librsvg (`data`, or a copy with octaves clamped); throws the
    /// reason a document is refused.
    static func check(_ data: [UInt8]) throws -> [UInt8] {
        var nodes: [Node] = [Node(name: "#document")]
        var stack = [0]
        var ids: [String: Int] = [:]
        var primitivesOfFilter: [Int: Int] = [:]
        var filterStack: [Int] = []
        var primitives = 0
        var clamps: [Range<Int>] = []
        var refusal: String? = nil
        let text = data
        let n = text.count
        var i = 0
        func starts(_ marker: [UInt8], at p: Int) -> Bool { SVGBytes.starts(marker, at: p, in: text) }
        func find(_ marker: [UInt8], from p: Int) -> Int? { SVGBytes.find(marker, from: p, in: text) }
        while i < n, refusal == nil {
            guard text[i] == 0x3C else { i += 1; continue }
            if starts(SVGBytes.commentOpen, at: i) { i = (find(SVGBytes.commentClose, from: i + 4) ?? n) + 3; continue }
            if starts(SVGBytes.cdataOpen, at: i) { i = (find(SVGBytes.cdataClose, from: i + 9) ?? n) + 3; continue }
            if starts(SVGBytes.processing, at: i) || starts(SVGBytes.declaration, at: i) {
                i = (find(SVGBytes.tagClose, from: i + 2) ?? n) + 1
                continue
            }
            if starts(SVGBytes.endTag, at: i) {
                if stack.count > 1 {
                    if filterStack.last == stack.last { filterStack.removeLast() }
                    stack.removeLast()
                }
                i = (find(SVGBytes.tagClose, from: i + 2) ?? n) + 1
                continue
            }
            // A start tag: its name, then attributes to `>` or `/>`.
            var p = i + 1
            let nameStart = p
            while p < n, !isSpace(text[p]), text[p] != 0x3E, text[p] != 0x2F { p += 1 }
            let qualified = String(decoding: text[nameStart..<p], as: UTF8.self)
            let name = Substring(qualified.split(separator: ":").last ?? Substring(qualified))
            var node = Node(name: name)
            var selfClosing = false
            while p < n {
                while p < n, isSpace(text[p]) { p += 1 }
                guard p < n else { break }
                if text[p] == 0x3E { p += 1; break }
                if text[p] == 0x2F { selfClosing = true; p += 1; continue }
                let attrStart = p
                while p < n, !isSpace(text[p]), text[p] != 0x3D, text[p] != 0x3E, text[p] != 0x2F { p += 1 }
                let attr = String(decoding: text[attrStart..<p], as: UTF8.self)
                while p < n, isSpace(text[p]) { p += 1 }
                guard p < n, text[p] == 0x3D else { continue }
                p += 1
                while p < n, isSpace(text[p]) { p += 1 }
                guard p < n, text[p] == 0x22 || text[p] == 0x27 else { continue }
                let quote = text[p]
                let valueStart = p + 1
                var end = valueStart
                while end < n, text[end] != quote { end += 1 }
                let value = String(decoding: text[valueStart..<min(end, n)], as: UTF8.self)
                p = end + 1
                switch attr {
                case "id": node.id = value
                case "href", "xlink:href": node.href = value
                case "filter": node.filter = value
                case "marker-start", "marker-mid", "marker-end", "marker": node.markers.append(value)
                case "d", "points": node.vertices = numberCount(text[valueStart..<min(end, n)]) / 2 + 1
                case "style":
                    if value.contains("filter") { node.filter = node.filter ?? "style" }
                    if value.contains("marker") { node.markers.append(value) }
                case "numOctaves":
                    if let v = Double(value.trimmingSpaces), v > Double(maxOctaves) { clamps.append(valueStart..<min(end, n)) }
                case "radius" where name == "feMorphology":
                    let r = value.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Double($0) }.max() ?? 0
                    if r > maxMorphologyRadius { refusal = "feMorphology radius \(value.trimmingSpaces) is over \(Int(maxMorphologyRadius)) (its cost grows with the radius)" }
                case "order" where name == "feConvolveMatrix":
                    let o = value.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Double($0) }.max() ?? 0
                    if o > Double(maxConvolveOrder) { refusal = "feConvolveMatrix order \(value.trimmingSpaces) is over \(maxConvolveOrder) (its cost grows with the order squared)" }
                default: break
                }
            }
            i = p
            let index = nodes.count
            if name.hasPrefix("fe"), !name.hasPrefix("feFunc"), !name.hasPrefix("feMergeNode"), !name.hasPrefix("feDistant"),
               !name.hasPrefix("fePoint"), !name.hasPrefix("feSpot") {
                primitives += 1
                if let f = filterStack.last { primitivesOfFilter[f, default: 0] += 1 }
            }
            nodes.append(node)
            nodes[stack.last!].children.append(index)
            if let id = node.id, ids[id] == nil { ids[id] = index }
            if !selfClosing {
                // Deeper than libxml2 reads (256): librsvg refuses the document itself.
                if stack.count > 256 { return data }
                stack.append(index)
                if name == "filter" { filterStack.append(index) }
            }
        }
        if let refusal { throw DecodeError.invalid(.svg, refusal) }
        if primitives > maxPrimitives {
            throw DecodeError.invalid(.svg, "\(primitives) filter primitives, over \(maxPrimitives) (each is a pass over its region)")
        }
        // Drawn counts, each element's subtree once (memoised); a reference cycle counts
        // nothing more (librsvg refuses it).
        var drawn = [Double?](repeating: nil, count: nodes.count)
        var filtered = [Double?](repeating: nil, count: nodes.count)
        var visiting = Set<Int>()
        func target(_ ref: String?) -> Int? {
            guard var r = ref?.trimmingSpaces else { return nil }
            if r.hasPrefix("url(") { r = String(r.dropFirst(4).prefix { $0 != ")" }) }
            guard r.hasPrefix("#") else { return nil }
            return ids[String(r.dropFirst())]
        }
        func cost(_ k: Int) -> (Double, Double) {
            if let d = drawn[k], let f = filtered[k] { return (d, f) }
            guard visiting.insert(k).inserted else { return (0, 0) }
            // References nested this deep are no drawing anyone made; counted as too many.
            if visiting.count > 512 { return (.infinity, .infinity) }
            defer { visiting.remove(k) }
            let node = nodes[k]
            var d = 1.0, f = 0.0
            if let filter = node.filter {
                f += Double(target(filter).flatMap { primitivesOfFilter[$0] } ?? 1)
            }
            // Definitions are drawn only where something refers to them.
            let isDefinition = ["defs", "symbol", "marker", "filter", "clipPath", "mask", "pattern", "linearGradient", "radialGradient"].contains(String(node.name))
            if !isDefinition || k == 0 {
                for c in node.children {
                    let (cd, cf) = cost(c)
                    d += cd
                    f += cf
                }
            }
            if node.name == "use", let t = target(node.href) {
                let (td, tf) = cost(t)
                d += td
                f += tf
            }
            for m in node.markers {
                guard let t = target(m) else { continue }
                var (md, mf) = (0.0, 0.0)
                for c in nodes[t].children {
                    let (cd, cf) = cost(c)
                    md += cd
                    mf += cf
                }
                d += Double(max(1, node.vertices)) * md
                f += Double(max(1, node.vertices)) * mf
            }
            drawn[k] = d
            filtered[k] = f
            return (d, f)
        }
        let (total, withFilter) = cost(0)
        if total > Double(maxDrawn) {
            throw DecodeError.invalid(.svg, "it draws about \(Int(min(total, 1e18))) elements once <use> and markers are expanded, over \(maxDrawn)")
        }
        if withFilter > Double(maxFilteredDraws) {
            throw DecodeError.invalid(.svg, "it draws about \(Int(min(withFilter, 1e18))) filter passes once <use> and markers are expanded, over \(maxFilteredDraws)")
        }
        guard !clamps.isEmpty else { return data }
        var out: [UInt8] = []
        out.reserveCapacity(data.count)
        var at = 0
        for r in clamps {
            out += data[at..<r.lowerBound]
            out += Array(String(maxOctaves).utf8)
            at = r.upperBound
        }
        out += data[at...]
        return out
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    /// Numbers in a path's `d` or a polygon's `points`: runs of digits and dots.
    private static func numberCount(_ s: ArraySlice<UInt8>) -> Int {
        var count = 0, inNumber = false
        for c in s {
            let digit = (c >= 0x30 && c <= 0x39) || c == 0x2E
            if digit && !inNumber { count += 1 }
            inNumber = digit
        }
        return count
    }
}

private extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }.reversed().drop { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
