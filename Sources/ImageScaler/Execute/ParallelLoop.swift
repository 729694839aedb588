import Dispatch

/// Loops whose iterations are independent, run on up to `threads` threads of the shared
/// pool: only for pure computation that waits on nothing (the caller takes part, so it
/// finishes even with no worker free). Each iteration writes only its own results, so
/// what comes out is the same at any thread count.
package enum ParallelLoop {
    /// `body` over 0..<count in contiguous parts of at least `atLeast`, on up to `threads`
    /// threads; one part, on this thread, when there is not work enough for two.
    package static func split(_ count: Int, threads: Int, atLeast: Int, _ body: (Range<Int>) -> Void) {
        let parts = max(1, min(threads, count / max(1, atLeast)))
        guard parts > 1 else { return body(0..<count) }
        withoutActuallyEscaping(body) { body in
            // Each part is its own range of the caller's data (see the type's invariant).
            nonisolated(unsafe) let body = body
            DispatchQueue.concurrentPerform(iterations: parts) { i in body(count * i / parts ..< count * (i + 1) / parts) }
        }
    }

    /// `body` of each of 0..<count, on up to `threads` threads, in order; the first error
    /// by index is thrown, as a loop on one thread would throw it.
    package static func each<T>(_ count: Int, threads: Int, _ body: (Int) throws -> T) throws -> [T] {
        let width = min(threads, count)
        guard width > 1 else { return try (0..<count).map(body) }
        var results = [Result<T, Error>?](repeating: nil, count: count)
        withoutActuallyEscaping(body) { body in
            results.withUnsafeMutableBufferPointer { slots in
                // Iteration i writes slot i alone.
                nonisolated(unsafe) let (body, base) = (body, slots.baseAddress!)
                DispatchQueue.concurrentPerform(iterations: width) { worker in
                    for i in stride(from: worker, to: count, by: width) { base[i] = Result { try body(i) } }
                }
            }
        }
        return try results.map { try $0!.get() }
    }
}
