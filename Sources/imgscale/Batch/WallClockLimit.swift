/// `--timeout`: the wall-clock seconds one input may take before the process running it
/// is killed. The CPU limit misses what does not compute (a deadlock, a library asleep,
/// a FIFO read); this one does not. By default it scales with the input: 10 s for each
/// 8 MiB of file before the header is read, then `WorkEstimate`'s bound for that header
/// and those outputs, so a 12 MP AVIF (15 s here) is never cut short.
enum WallClockLimit: Sendable, Equatable {
    case none
    case fixed(Double)
    case scaled

    static let floorSeconds = 10.0
    /// A sanitized build runs 5 to 20 times slower: its default allowance grows to match,
    /// so the test suite's ordinary jobs hold under AddressSanitizer as they do plain.
    static let slowdown: Double = WorkerPool.sanitized ? 20 : 1

    /// The allowance before the header is read; nil for no limit.
    func initial(inputBytes: Int) -> Double? {
        switch self {
        case .none: return nil
        case .fixed(let s): return s
        case .scaled: return WallClockLimit.floorSeconds * WallClockLimit.slowdown * max(1, Double(inputBytes) / Double(8 << 20))
        }
    }

    /// The line's reason for an input stopped after `seconds`.
    func reason(seconds: Double) -> String {
        let shown = seconds < 10 ? String(format1: seconds) : String(Int(seconds.rounded()))
        let why = self == .scaled ? "the limit for its size and outputs; raise it with --timeout" : "raise it with --timeout"
        return "took more than \(shown) s of wall-clock time (\(why)); stopped, nothing written"
    }
}

private extension String {
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}
