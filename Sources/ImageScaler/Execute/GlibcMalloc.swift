#if canImport(Glibc)
import Glibc
#endif

/// glibc's malloc tuning, which not every build's Glibc module declares (the fuzzer's
/// does not): looked up once by name, and nothing on another libc.
package enum GlibcMalloc {
    private static let mallopt: (@convention(c) (Int32, Int32) -> Int32)? = symbol("mallopt")
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = symbol("malloc_trim")

    /// Every job allocates and frees the same few megabyte-sized buffers (file bytes, a
    /// restart-interval cut, decoder rows). Left to glibc's defaults each is a fresh mmap
    /// whose pages fault in zeroed, job after job; kept in the heap (M_MMAP_THRESHOLD
    /// 32 MiB, M_TRIM_THRESHOLD 128 MiB) they are reused (measured: 2.5x fewer page
    /// faults, a batch ~4% faster). `trim` gives them back where the budget is tight.
    package static func keepBuffersInTheHeap() {
        _ = mallopt?(-3, 32 << 20)
        _ = mallopt?(-1, 128 << 20)
    }

    /// At most `arenas` malloc arenas (M_ARENA_MAX): each thread that allocates would
    /// otherwise reserve one of 64 MiB, up to eight a core.
    package static func limitArenas(_ arenas: Int32) {
        // M_ARENA_MAX of <malloc.h>.
        _ = mallopt?(-8, arenas)
    }

    /// Gives the pages of freed memory back to the system (malloc_trim(0)): glibc keeps
    /// them in its arenas, where one encoder's freed memory stays resident beside the next.
    package static func trim() {
        _ = mallocTrim?(0)
    }

    private static func symbol<F>(_ name: String) -> F? {
        guard let p = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(p, to: F.self)
    }
}
