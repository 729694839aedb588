import Foundation
import Dispatch

/// Signalled once its process has exited and Foundation has its status, so a test waits
/// for a child no longer than the child runs. `Process.waitUntilExit` polls its run loop
/// in 50 ms steps on every thread but the one that started it, which is every test
/// thread here: with a few thousand children a run slept about a minute of wall time.
/// Made before `run()`, which is when the handler must already be in place.
public final class ExitSignal: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)

    public init(_ process: Process) {
        process.terminationHandler = { [done] _ in done.signal() }
    }

    /// Returns once the process has exited; its `terminationStatus` is then set.
    public func wait() { done.wait() }
}
