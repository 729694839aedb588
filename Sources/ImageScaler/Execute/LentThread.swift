import Dispatch

/// A thread the executor lends one decode, so a decoder whose work comes in two
/// sequential stages (PNG: inflating, then unfiltering) can run them on two cores.
/// Only `RenderExecutor` makes one, when it has a core to spare; a decoder that
/// starts work on it must wait for that work before its decode returns.
package struct LentThread: Sendable {
    fileprivate init() {}

    /// Starts `work` on the lent thread; wait for it before returning.
    func start(_ work: @escaping @Sendable () -> Void) -> LentWork {
        let item = DispatchWorkItem(block: work)
        // A labelled queue, not the shared pool: `work` may block on a full pipe whose
        // consumer is the caller, and must not wait for a pool worker.
        DispatchQueue(label: "imgscale.decode-stage").async(execute: item)
        return LentWork(item: item)
    }
}

/// Work running on a `LentThread`, which its decoder waits for (once) before its decode
/// returns: so decoders hold no Dispatch type of their own.
// @unchecked: a DispatchWorkItem is safe to wait on from any thread (libdispatch), though
// not marked Sendable on Linux.
struct LentWork: @unchecked Sendable {
    fileprivate let item: DispatchWorkItem

    func wait() { item.wait() }
}

extension RenderExecutor {
    /// A thread to lend a decode (the executor decides when: `Split.lentThread`).
    package static func lentThread() -> LentThread { LentThread() }
}
