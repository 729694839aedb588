#if canImport(Glibc)
import Glibc
#endif

/// The bytes one job may hold at its peak: the input file, the decoder's working memory
/// and the pipeline's buffers. An input whose header shows it would need more is
/// refused before the memory is committed, with the figure it would need.
package enum MemoryBudget {
    /// 512 MiB: a 268-megapixel RGBA image (the pixel limit) needs more than this only
    /// when it must be held whole; streamed thumbnails of it need a few MiB.
    public static let defaultBytes = 512 << 20

    /// Refuses `needed` bytes over `budget`; then asks the system for them once (and
    /// gives them back), so a limit below the budget (`ulimit -v`, a container's) fails
    /// this input with an error instead of aborting the process on an allocation later.
    static func check(_ needed: Int, budget: Int) throws {
        if needed > budget { throw DecodeError.overBudget(needed: needed, budget: budget) }
        // No machine has a terabyte to give one image; sanitizer allocators abort on
        // such a request instead of returning NULL.
        if needed >= 1 << 40 { throw DecodeError.outOfMemory(needed) }
        // mmap, not malloc: the optimiser may delete a malloc whose block is only freed
        // (it did, in release builds, so the probe never ran). The kernel applies the
        // same data limit (`RLIMIT_DATA`, `ulimit -d`) and overcommit rule to both.
        let probe = mmap(nil, needed, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let probe, probe != MAP_FAILED else { throw DecodeError.outOfMemory(needed) }
        munmap(probe, needed)
    }

    /// "512 MiB", "1.5 GiB", "300 KiB": sizes as the budget is given and reported.
    public static func describe(_ bytes: Int) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes), unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        if unit == 0 { return "\(bytes) bytes" }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded)) \(units[unit])" : "\(rounded) \(units[unit])"
    }
}
