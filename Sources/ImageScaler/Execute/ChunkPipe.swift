import Dispatch

/// A bounded queue of decoded row chunks from a decoding thread to a resampling and
/// encoding thread. Chunks are copied in, so the decoder can reuse its buffer at once
/// (one copy shared by every pipe of a broadcast), unless the decoder gave the chunk's
/// storage away, which is then queued itself; at most `capacity` chunks wait in
/// each, which bounds memory when a consumer falls behind.
final class ChunkPipe: Sendable {
    enum Item: Sendable {
        case begin(DecodedRegion)
        case rows(firstRow: Int, count: Int, bytesPerRow: Int, pixels: [UInt8])
    }

    private let state = Locked((items: [Item](), closed: false, cancelled: false))
    private let filled = DispatchSemaphore(value: 0)
    private let space: DispatchSemaphore

    init(capacity: Int) {
        space = DispatchSemaphore(value: capacity)
    }

    func begin(_ region: DecodedRegion) { push(.begin(region)) }

    /// Copies the chunk in, waiting while the queue is full. Throws once cancelled.
    func push(_ chunk: RowChunk) throws {
        try ChunkPipe.broadcast(chunk, to: [self])
    }

    /// Copies the chunk once (or takes its storage) and queues that on every pipe, waiting
    /// on each while it is full. Throws once any of them is cancelled.
    static func broadcast(_ chunk: RowChunk, to pipes: [ChunkPipe]) throws {
        if pipes.contains(where: \.isCancelled) { throw CancellationError() }
        let bytes = chunk.count * chunk.bytesPerRow
        let copy = chunk.storage ?? [UInt8](unsafeUninitializedCapacity: bytes) { buf, n in
            buf.baseAddress!.update(from: chunk.pixels, count: bytes)
            n = bytes
        }
        for pipe in pipes {
            pipe.space.wait()
            if pipe.isCancelled { throw CancellationError() }
            pipe.push(.rows(firstRow: chunk.firstRow, count: chunk.count, bytesPerRow: chunk.bytesPerRow, pixels: copy))
        }
    }

    private func push(_ item: Item) {
        state.withLock { $0.items.append(item) }
        filled.signal()
    }

    /// No more items will come.
    func close() {
        state.withLock { $0.closed = true }
        filled.signal()
    }

    /// The consumer gave up: the producer's next push throws, and waiting pushes wake.
    func cancel() {
        state.withLock { $0.cancelled = true }
        for _ in 0..<64 { space.signal() }
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The next item, waiting for one; nil once the producer has closed and all are taken.
    func pop() -> Item? {
        while true {
            let (item, closed) = state.withLock { s -> (Item?, Bool) in
                s.items.isEmpty ? (nil, s.closed) : (s.items.removeFirst(), s.closed)
            }
            if let item {
                if case .rows = item { space.signal() }
                return item
            }
            if closed { return nil }
            filled.wait()
        }
    }
}
