/// Set once, from any thread, when the task awaiting a render is cancelled; the decode
/// looks at it between row chunks (`CancellableDecoder`) and stops with
/// `CancellationError`, so a cancelled server request stops costing CPU within a chunk.
final class CancellationFlag: Sendable {
    private let state = Locked(false)

    func set() { state.withLock { $0 = true } }

    var isSet: Bool { state.withLock { $0 } }

    /// Throws `CancellationError` once set.
    func check() throws {
        if isSet { throw CancellationError() }
    }
}
