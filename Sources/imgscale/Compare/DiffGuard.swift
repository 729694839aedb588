#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// What a `compare --server` request may name as its `diff`: never an image the server
/// has compared since it started (another pair's golden would be overwritten), never a
/// path inside a directory that held a compared golden, and never a link, FIFO or
/// device. Paths are compared by their canonical spelling, so `a/../g.png` is `g.png`.
struct DiffGuard {
    private var compared = Set<String>()
    private var goldenDirectories = Set<String>()

    /// Records a pair about to be compared.
    mutating func compare(expected: String, actual: String) {
        compared.insert(PathIdentity(path: expected).canonical)
        compared.insert(PathIdentity(path: actual).canonical)
        goldenDirectories.insert(PathIdentity.canonicalDirectory(ImageFile.split(expected).dir))
    }

    /// Why `diff` may not be written, or nil when it may.
    func refusal(_ diff: String) -> String? {
        var st = stat()
        if FileName.withCString(diff, { lstat($0, &st) }) == 0, (st.st_mode & S_IFMT) != S_IFREG {
            return "\"diff\" \(FileName.display(diff)) is \(ImageFile.kind(st.st_mode)); a diff is written only as a regular file"
        }
        let canonical = PathIdentity(path: diff).canonical
        if compared.contains(canonical) {
            return "\"diff\" \(FileName.display(diff)) is an image this server has compared; a diff never overwrites one"
        }
        let dir = PathIdentity.canonicalDirectory(ImageFile.split(diff).dir)
        for g in goldenDirectories where dir == g || dir.hasPrefix(g == "/" ? "/" : g + "/") {
            return "\"diff\" \(FileName.display(diff)) lies inside \(FileName.display(g)), which holds a golden this server compared; write diffs elsewhere"
        }
        return nil
    }
}
