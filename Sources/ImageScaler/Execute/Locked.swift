import Glibc

/// A value shared between threads, read and written only under its pthread mutex.
/// Not Synchronization.Mutex: that one locks with bare atomics and futexes, which
/// ThreadSanitizer cannot see, so every access under it would be reported as a race;
/// pthread's lock and unlock are intercepted, so races can still be checked for.
package final class Locked<Value>: @unchecked Sendable {  // every access is under the mutex
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
