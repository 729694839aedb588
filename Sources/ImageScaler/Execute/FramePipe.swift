import Dispatch

/// A bounded queue of planned animation frames from the thread that decodes and plans
/// them to the one that encodes them, in order: at most `capacity` wait, which bounds the
/// memory when the encoder falls behind. The producer's failure reaches the consumer in
/// place of the next frame; the consumer's stops the producer at its next push.
final class FramePipe: Sendable {
    private let state = Locked((frames: [(PixelBuffer, Int)](), finished: false, failure: (any Error)?.none, cancelled: false))
    private let filled = DispatchSemaphore(value: 0)
    private let space: DispatchSemaphore
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        space = DispatchSemaphore(value: capacity)
    }

    /// Queues a frame, waiting while the queue is full. Throws once cancelled.
    func push(_ frame: PixelBuffer, milliseconds: Int) throws {
        space.wait()
        try state.withLock { s in
            if s.cancelled { throw CancellationError() }
            s.frames.append((frame, milliseconds))
        }
        filled.signal()
    }

    /// No more frames will come; `failure` says why, when the producer failed.
    func finish(_ failure: (any Error)?) {
        state.withLock { s in
            s.finished = true
            s.failure = failure
        }
        filled.signal()
    }

    /// The next frame, waiting for one; nil once all are taken; the producer's error
    /// when it failed.
    func pop() throws -> (frame: PixelBuffer, milliseconds: Int)? {
        while true {
            let (next, finished, failure) = state.withLock { s -> ((PixelBuffer, Int)?, Bool, (any Error)?) in
                s.frames.isEmpty ? (nil, s.finished, s.failure) : (s.frames.removeFirst(), false, nil)
            }
            if let next {
                space.signal()
                return next
            }
            if let failure { throw failure }
            if finished { return nil }
            filled.wait()
        }
    }

    /// The consumer gave up: the producer's next push throws, and a waiting push wakes.
    func cancel() {
        state.withLock { $0.cancelled = true }
        for _ in 0...capacity { space.signal() }
    }
}
