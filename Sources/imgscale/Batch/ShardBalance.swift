/// Inputs dealt to shards by predicted cost, so that no shard waits long after the
/// others: the inputs are put in path order (byte by byte; the order of a list does not
/// matter), then taken largest cost first, each to the shard with the least so far (the
/// lowest-numbered on a tie), which keeps the largest shard within one input of the
/// mean when no input dominates. The same names and costs deal the same on any machine.
struct ShardBalance {
    /// Each input's shard (0-based), by position in the list given.
    let shardOf: [Int]
    /// Each shard's total predicted cost.
    let loads: [Int]

    init(paths: [[UInt8]], costs: [Int], count: Int) {
        let byPath = paths.indices.sorted { paths[$0].lexicographicallyPrecedes(paths[$1]) || (paths[$0] == paths[$1] && $0 < $1) }
        var rank = [Int](repeating: 0, count: paths.count)
        for (r, i) in byPath.enumerated() { rank[i] = r }
        let order = paths.indices.sorted { costs[$0] != costs[$1] ? costs[$0] > costs[$1] : rank[$0] < rank[$1] }
        var heap = MinHeap((0..<count).map { (load: 0, shard: $0) })
        var shardOf = [Int](repeating: 0, count: paths.count)
        var loads = [Int](repeating: 0, count: count)
        for i in order {
            var least = heap.popMin()
            shardOf[i] = least.shard
            least.load += costs[i]
            loads[least.shard] = least.load
            heap.push(least)
        }
        self.shardOf = shardOf
        self.loads = loads
    }

    /// A binary heap of shards by (load, shard), so dealing to 10,000 shards stays
    /// logarithmic per input.
    private struct MinHeap {
        var items: [(load: Int, shard: Int)]

        init(_ items: [(load: Int, shard: Int)]) { self.items = items }  // equal loads in shard order: a heap already

        private static func less(_ a: (load: Int, shard: Int), _ b: (load: Int, shard: Int)) -> Bool {
            a.load != b.load ? a.load < b.load : a.shard < b.shard
        }

        mutating func popMin() -> (load: Int, shard: Int) {
            let top = items[0]
            let last = items.removeLast()
            if !items.isEmpty {
                items[0] = last
                var i = 0
                while true {
                    let l = 2 * i + 1, r = l + 1
                    var m = i
                    if l < items.count && MinHeap.less(items[l], items[m]) { m = l }
                    if r < items.count && MinHeap.less(items[r], items[m]) { m = r }
                    if m == i { break }
                    items.swapAt(i, m)
                    i = m
                }
            }
            return top
        }

        mutating func push(_ item: (load: Int, shard: Int)) {
            items.append(item)
            var i = items.count - 1
            while i > 0 {
                let p = (i - 1) / 2
                guard MinHeap.less(items[i], items[p]) else { break }
                items.swapAt(i, p)
                i = p
            }
        }
    }
}
