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
        // By (load, shard), so dealing to 10,000 shards stays logarithmic per input.
        var heap = BinaryHeap((0..<count).map { (load: 0, shard: $0) }) { $0.load != $1.load ? $0.load < $1.load : $0.shard < $1.shard }
        var shardOf = [Int](repeating: 0, count: paths.count)
        var loads = [Int](repeating: 0, count: count)
        for i in order {
            var least = heap.pop()
            shardOf[i] = least.shard
            least.load += costs[i]
            loads[least.shard] = least.load
            heap.push(least)
        }
        self.shardOf = shardOf
        self.loads = loads
    }
}
