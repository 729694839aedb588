/// `--shard`: the slice of the inputs this run makes, the `index`-th (0-based) of
/// `count`, and how inputs are dealt out. Given as `K/N`, or as `auto` or `auto/N` from
/// the variables of the engine that started the run (`ShardEngine`), whose name and own
/// index each report line then records. Every copy of the command given the same list
/// deals the same way, so the shards are disjoint and cover the list.
struct ShardSpec: Equatable, Sendable {
    enum Balance: String, CaseIterable, Sendable {
        /// Input i of the list as given goes to shard i mod N: existing recipes keep their slices.
        case count
        /// By the cost each header predicts (`ShardBalance`).
        case cost
    }

    let index: Int
    let count: Int
    var balance: Balance = .count
    /// The engine `auto` read, and the index as its variable gave it (a Slurm task's id).
    var engine: String? = nil
    var engineIndex: Int? = nil

    /// "3/8", as `--shard` takes it and `--report` records it.
    var text: String { "\(index + 1)/\(count)" }

    static let usage = "--shard must be K/N with 1 <= K <= N (like 2/8), auto, or auto/N"
    /// As many shards as `--shard K/N` takes (an engine's count is read, not trusted).
    static let maxCount = ValueParser.maxDimension

    static func parse(_ spec: String, balance: Balance = .count, environment: [String: String]) throws -> ShardSpec {
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { throw UsageError(message: "\(usage), not '\(spec)'") }
        let given = parts.count == 2 ? ValueParser.positive(parts[1]) : nil
        if parts.count == 2 && given == nil { throw UsageError(message: "\(usage), not '\(spec)'") }
        guard parts[0] == "auto" else {
            guard let k = ValueParser.positive(parts[0]), let n = given, k <= n else { throw UsageError(message: "\(usage), not '\(spec)'") }
            return ShardSpec(index: k - 1, count: n, balance: balance)
        }
        var found: [(engine: ShardEngine, index: Int, count: Int?)] = []
        for engine in ShardEngine.all {
            if let (i, n) = try engine.read(environment) { found.append((engine, i, n)) }
        }
        guard let first = found.first else {
            let names = ShardEngine.all.map { "\($0.indexVariable) (\($0.title))" }.joined(separator: ", ")
            throw UsageError(message: "--shard \(spec) found no shard index: none of \(names) is set; give --shard K/N")
        }
        func said(_ f: (engine: ShardEngine, index: Int, count: Int?)) -> String {
            "\(f.engine.indexVariable) gives index \(f.index)" + (f.count.map { " of \($0)" } ?? "")
        }
        let counts = Set(found.compactMap(\.count))
        if Set(found.map(\.index)).count > 1 || counts.count > 1 {
            throw UsageError(message: "--shard \(spec): the engines' variables disagree: " + found.map(said).joined(separator: ", "))
        }
        if let n = given, let told = counts.first, told != n {
            throw UsageError(message: "--shard \(spec): \(said(first)), not \(n) shards; give --shard auto")
        }
        guard let n = given ?? counts.first else {
            throw UsageError(message: "--shard auto: \(first.engine.indexVariable) gives the index, but \(first.engine.title) does not export how many there are; give --shard auto/N")
        }
        guard n <= ShardSpec.maxCount else {
            throw UsageError(message: "--shard \(spec): \(n) shards is more than \(ShardSpec.maxCount); no engine starts that many")
        }
        guard first.index < n else {
            throw UsageError(message: "--shard \(spec): \(first.engine.indexVariable)=\(first.index) is past the last of \(n) shards (they count from 0)")
        }
        return ShardSpec(index: first.index, count: n, balance: balance, engine: first.engine.name,
                         engineIndex: environment[first.engine.indexVariable].flatMap { Int($0) })
    }
}
