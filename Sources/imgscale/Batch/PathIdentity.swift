#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// What a path names on disk, for the checks that no output is an input and no two
/// outputs are one file: compared by device and inode where the file exists, and by a
/// canonical spelling (symlinked directories and `..` resolved, a symlink at the last
/// component followed) where it does not yet.
struct PathIdentity {
    let path: String

    /// Device and inode after symlinks; nil when nothing is there.
    var fileID: String? {
        var st = stat()
        guard FileName.withCString(path, { stat($0, &st) }) == 0 else { return nil }
        return "\(st.st_dev):\(st.st_ino)"
    }

    /// A regular file or a name not taken yet: something an output would replace.
    /// Devices, FIFOs and inherited descriptors are written through and may be shared.
    var isReplaceable: Bool {
        OutputTarget.resolve(path) != .through
    }

    /// The absolute path the bytes would land at.
    var canonical: String {
        var directories: [String: String] = [:]
        return canonical(directories: &directories)
    }

    /// `canonical`, with each directory's spelling kept in `directories` between calls:
    /// realpath costs a getcwd and a readlink a component, which for a thousand outputs
    /// in one directory was a third of an `--if-changed` rerun.
    func canonical(directories: inout [String: String]) -> String {
        PathIdentity.canonical(of: OutputTarget.finalLink(path) ?? path, directories: &directories)
    }

    /// `canonical`, `fileID` and `isReplaceable` at once, for each output of a batch:
    /// where the last component is no symlink (every ordinary output) one lstat answers
    /// all three, since stat would see the same file.
    func outputFacts(directories: inout [String: String]) -> (canonical: String, fileID: String?, isReplaceable: Bool) {
        var st = stat()
        let listed = FileName.withCString(path, { lstat($0, &st) }) == 0
        guard !OutputTarget.isWrittenThrough(path), !listed || (st.st_mode & S_IFMT) == S_IFREG else {
            return (canonical(directories: &directories), fileID, isReplaceable)
        }
        return (PathIdentity.canonical(of: path, directories: &directories), listed ? "\(st.st_dev):\(st.st_ino)" : nil, true)
    }

    private static func canonical(of target: String, directories: inout [String: String]) -> String {
        let (dir, name) = ImageFile.split(target)
        if let known = directories[dir] { return known + "/" + name }
        let resolved = canonicalDirectory(dir)
        directories[dir] = resolved
        return resolved + "/" + name
    }

    /// The first part of `relative` under `dir` that is a symlink, or not a directory
    /// where one leads on, or not a regular file at the end; nil when the whole path is
    /// reached without following a link. `dir` itself is the user's and may be one.
    static func linkOnTheWay(_ relative: String, under dir: String) -> (path: String, kind: String)? {
        var path = dir.hasSuffix("/") ? String(dir.dropLast()) : dir
        let parts = relative.split(separator: "/", omittingEmptySubsequences: true)
        for (i, part) in parts.enumerated() {
            path += "/" + part
            var st = stat()
            guard FileName.withCString(path, { lstat($0, &st) }) == 0 else { return (path, "missing") }
            let want = i == parts.count - 1 ? S_IFREG : S_IFDIR
            if (st.st_mode & S_IFMT) != want { return (path, ImageFile.kind(st.st_mode)) }
        }
        return nil
    }

    /// realpath of the longest existing prefix, then the rest resolved lexically: parts
    /// that do not exist yet cannot be symlinks.
    static func canonicalDirectory(_ dir: String) -> String {
        var parts = dir.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var base = dir.hasPrefix("/") ? "/" : "."
        var pending: [String] = []
        while true {
            let candidate = (base == "/" ? "/" : base + "/") + parts.joined(separator: "/")
            if let real = realPath(candidate) {
                return normalise(real, pending)
            }
            guard let last = parts.popLast() else {
                base = realPath(base) ?? base
                return normalise(base, pending)
            }
            pending.insert(last, at: 0)
        }
    }

    private static func normalise(_ base: String, _ rest: [String]) -> String {
        var parts = base.split(separator: "/").map(String.init)
        for p in rest {
            if p == "." || p.isEmpty { continue }
            if p == ".." { _ = parts.popLast() } else { parts.append(p) }
        }
        return "/" + parts.joined(separator: "/")
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = FileName.withCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return FileName.decode(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
    }
}
