/// Set once, from any thread, when the task awaiting a render is cancelled; the decode
/// looks at it between row chunks (`CancellableDecoder`) and stops with
/// `CancellationError`, so a cancelled server request stops costing CPU within a chunk.
/// It counts the looks, and a flag made with `setAtCheck` sets itself at that look: a
/// cancellation at a known point of a render, which no timing can give a test.
package final class CancellationFlag: Sendable {
    private struct State {
        var set = false
        var checks = 0
        var setAt: Int?
    }
    private let state: Locked<State>

    package init(setAtCheck: Int? = nil) {
        state = Locked(State(setAt: setAtCheck))
    }

    func set() { state.withLock { $0.set = true } }

    var isSet: Bool { state.withLock { $0.set } }

    /// How many times `check` has looked.
    package var checks: Int { state.withLock { $0.checks } }

    /// Throws `CancellationError` once set.
    func check() throws {
        let cancelled = state.withLock { s -> Bool in
            s.checks += 1
            if let n = s.setAt, s.checks >= n { s.set = true }
            return s.set
        }
        if cancelled { throw CancellationError() }
    }
}
