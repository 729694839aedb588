import Dispatch
import ImageScaler

/// Where workers cannot be forked (under ThreadSanitizer, or without fork), items run
/// `width` at a time on threads of this process: each index once, in order of taking.
/// With `WorkerPool`, the only place the CLI starts threads.
enum InProcessPool {
    static func run(count: Int, width: Int, _ body: @Sendable (Int) -> Void) {
        let next = Locked(0)
        DispatchQueue.concurrentPerform(iterations: max(1, min(width, count))) { _ in
            while let i = next.withLock({ n -> Int? in
                guard n < count else { return nil }
                defer { n += 1 }
                return n
            }) {
                body(i)
            }
        }
    }
}
