/// What each of a Huffman table's 256 symbols costs in bits, from the lengths of a code
/// fitted to counts of them (the code libjpeg will write, give or take its 16-bit cap),
/// for weighing a coefficient's rate against its distortion. Every symbol that may be
/// coded is counted once more than seen, so one the counts never met still has a price.
package struct HuffmanCost: Sendable {
    package private(set) var bits: [Int32]

    package init(counts: [Int], codable: [Int]) {
        var weight = [Int](repeating: 0, count: 256)
        for s in codable { weight[s] = counts[s] + 1 }
        bits = HuffmanCost.lengths(weight).map { Int32(min($0, 24)) }
    }

    /// Code lengths of a Huffman code for these weights (0: no code): the two lightest
    /// trees merged until one is left, ties to the lower index, so the lengths are the
    /// same on every run.
    private static func lengths(_ weights: [Int]) -> [Int] {
        var length = [Int](repeating: 0, count: weights.count)
        // Each tree: its weight and its leaves.
        var trees: [(weight: Int, leaves: [Int])] = weights.indices.filter { weights[$0] > 0 }.map { (weights[$0], [$0]) }
        if trees.count == 1 { length[trees[0].leaves[0]] = 1 }
        while trees.count > 1 {
            var a = 0, b = 1
            if trees[b].weight < trees[a].weight { swap(&a, &b) }
            for i in 2..<trees.count {
                if trees[i].weight < trees[a].weight { b = a; a = i } else if trees[i].weight < trees[b].weight { b = i }
            }
            for leaf in trees[a].leaves + trees[b].leaves { length[leaf] += 1 }
            let merged = (trees[a].weight + trees[b].weight, trees[a].leaves + trees[b].leaves)
            trees[min(a, b)] = merged
            trees.remove(at: max(a, b))
        }
        return length
    }

    /// The AC symbols (run << 4 | size): end of block, 16 zeros, and runs 0-15 of sizes 1-10.
    package static let acSymbols: [Int] = [0x00, 0xF0] + (0..<16).flatMap { r in (1...10).map { r << 4 | $0 } }
    /// The DC symbols: sizes 0-11 of a difference.
    static let dcSymbols: [Int] = Array(0...11)
}
