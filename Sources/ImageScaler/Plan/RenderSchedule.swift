/// How one input's outputs run within the memory budget: which of them decode and encode
/// together (rounds, one after another, each decoding again) and how many encoders may
/// finish at once. The widest schedule that fits is chosen: every output in one round
/// with an encoder finishing on each thread; else fewer encoders at once; else rounds,
/// packed largest first. Over the budget (`memory` > budget) only when one output alone,
/// its encoder the only one, is over it. Pure: from the plans' estimates alone.
package struct RenderSchedule: Equatable, Sendable {
    /// Output indices, ascending within a round; every output in exactly one round.
    package let rounds: [[Int]]
    /// Encoders that finish at once (`EncodeGate`'s permits), at least 1.
    package let permits: Int
    /// The estimate of the largest round, in bytes.
    package let memory: Int
    /// Why the schedule is leaner than the widest, as `imgscale plan` says it; nil when
    /// everything runs at once.
    package let reason: String?
    /// Whether the largest round comes within half the budget: then each encoder's freed
    /// memory is given back before the next starts (`GlibcMalloc.trim`), which a batch of
    /// small thumbnails, reusing its heap, is spared.
    package let tight: Bool

    /// `held[i]`: the bytes output `i` holds while its round runs (its pipeline and what
    /// it carries); `encoding[i]`: what its encoder adds while it finishes; `base`: what
    /// every round holds once (the file).
    /// Outputs in one round when they run side by side: each is a lane on a thread of its
    /// own, fed by the decode, and a round of hundreds asked more threads than Dispatch
    /// gives a process (512 outputs of one photo on two threads waited forever, 256 took
    /// 5 times one thread's time). Rounds of 64 each decode again, which a batch of icon
    /// sizes from one master costs little.
    package static let lanesPerRound = 64

    package init(held: [Int], encoding: [Int], base: Int, threads: Int, budget: Int) {
        let all = Array(held.indices)
        let widest = max(1, threads)
        let cap = widest > 1 ? RenderSchedule.lanesPerRound : Int.max
        func estimate(_ members: [Int], _ permits: Int) -> Double {
            let top = members.map { Double(encoding[$0]) }.sorted(by: >).prefix(permits)
            return Double(base) + members.reduce(0) { $0 + Double(held[$1]) } + top.reduce(0, +)
        }
        func bytes(_ d: Double) -> Int { d >= Double(Int.max / 2) ? Int.max / 2 : Int(d) }
        let together = estimate(all, widest)
        let fits = budget <= 0 || together <= Double(budget)
        guard !fits || all.count > cap, all.count > 0 else {
            self.init(rounds: [all], permits: widest, memory: bytes(together), reason: nil, budget: budget)
            return
        }
        let said = MemoryBudget.describe(bytes(together))
        for permits in stride(from: widest - 1, through: 1, by: -1) where all.count <= cap && estimate(all, permits) <= Double(budget) {
            self.init(rounds: [all], permits: permits, memory: bytes(estimate(all, permits)),
                      reason: "\(permits) encoder\(permits == 1 ? "" : "s") at once (\(widest) would need about \(said))", budget: budget)
            return
        }
        // First fit, largest first: a round takes an output while it stays within the budget.
        let order = all.sorted { (held[$0] + encoding[$0], $1) > (held[$1] + encoding[$1], $0) }
        var rounds: [[Int]] = []
        for i in order {
            if let r = rounds.indices.first(where: { rounds[$0].count < cap && (budget <= 0 || estimate(rounds[$0] + [i], widest) <= Double(budget)) }) {
                rounds[r].append(i)
            } else {
                rounds.append([i])
            }
        }
        rounds = rounds.map { $0.sorted() }
        let largest = rounds.map { estimate($0, widest) }.max() ?? 0
        self.init(rounds: rounds, permits: widest, memory: bytes(largest),
                  reason: rounds.count == 1 ? nil : fits
                      ? "\(rounds.count) rounds of at most \(cap) outputs side by side, each decoding again"
                      : "\(rounds.count) rounds, each decoding again (all at once would need about \(said))", budget: budget)
    }

    private init(rounds: [[Int]], permits: Int, memory: Int, reason: String?, budget: Int) {
        self.rounds = rounds
        self.permits = permits
        self.memory = memory
        self.reason = reason
        tight = budget > 0 && budget < Int.max / 4 && memory > budget / 2
    }
}
