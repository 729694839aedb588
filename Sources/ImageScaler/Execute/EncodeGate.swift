import Glibc

/// Lets at most `permits` outputs finish (encode) at once, costliest first. Whole-picture
/// encoders (AVIF, WebP, JPEG XL) do all their work at finish; started as each output's
/// rows end, eight of them share two cores evenly, and the costliest, often the last to
/// get its rows (its pass decodes the most), ends last with one core idle. Here every
/// output is known from the start: while a costlier one has not started, one permit is
/// kept for it, so it owns a core the moment its rows end and the cheaper ones fill the
/// other (longest-processing-time order). Only when work starts changes, never what it
/// makes. A pthread mutex and condition, so ThreadSanitizer sees the hand-over.
package final class EncodeGate: @unchecked Sendable {  // every var is read and written under `mutex`
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let permits: Int
    /// Whether a finished encoder's freed memory goes back to the system (`GlibcMalloc.trim`).
    private let trims: Bool
    private var free: Int
    /// Each output's cost, by index.
    private let costs: [Int: Int]
    /// Outputs that have neither started nor given up.
    private var pending: Set<Int>

    /// `costs`: every output that will ask, by index, with its expected encoding work.
    package init(permits: Int, costs: [Int: Int], trims: Bool = false) {
        self.permits = max(1, permits)
        self.trims = trims
        free = self.permits
        self.costs = costs
        pending = Set(costs.keys)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    /// Runs output `index`'s `body` once a permit is free beyond those kept for costlier
    /// outputs that have not started.
    package func run<T>(index: Int, _ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        while free <= min(costlierPending(than: index), permits - 1) { pthread_cond_wait(changed, mutex) }
        pending.remove(index)
        free -= 1
        pthread_mutex_unlock(mutex)
        defer {
            // The encoder's working memory goes back to the system before the next starts:
            // glibc keeps freed pages inside its arenas (imgscale keeps them on purpose), and
            // two dozen encoders one after another grew a srcset's peak 60-180 MiB past
            // what any of them held at once.
            if trims { GlibcMalloc.trim() }
            pthread_mutex_lock(mutex)
            free += 1
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(mutex)
        }
        return try body()
    }

    /// Output `index` will not ask (it failed, or was cancelled): nothing waits for it.
    package func withdraw(_ index: Int) {
        pthread_mutex_lock(mutex)
        if pending.remove(index) != nil { pthread_cond_broadcast(changed) }
        pthread_mutex_unlock(mutex)
    }

    /// Ties go to the lower index, so the order is total.
    private func costlierPending(than index: Int) -> Int {
        let mine = costs[index] ?? 0
        return pending.count { j in
            let theirs = costs[j] ?? 0
            return theirs > mine || (theirs == mine && j < index)
        }
    }
}
