#if canImport(Glibc)
import Glibc
#endif

/// Where the bytes of an output path really go. A regular file (or a name not yet
/// taken) is replaced atomically at the end of any chain of symlinks, so the links stay
/// links; devices, FIFOs and inherited descriptors (`/dev/fd/N`, `/dev/stdout`) are
/// written through in place, since replacing them would destroy a device node or miss
/// the reader.
package enum OutputTarget: Equatable {
    case through
    /// The final path to replace: no symlink at its last component.
    case file(String)
    case failure(String)

    package static func resolve(_ path: String) -> OutputTarget {
        if isWrittenThrough(path) { return .through }
        var st = stat()
        if FileName.withCString(path, { stat($0, &st) }) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: return .failure("is a directory")
            default: return .through
            }
        }
        return finalLink(path).map(OutputTarget.file) ?? .failure("too many levels of symbolic links")
    }

    /// An inherited descriptor's name: written through whatever it is.
    package static func isWrittenThrough(_ path: String) -> Bool {
        ["/dev/fd/", "/proc/self/fd/", "/dev/stdout", "/dev/stderr"].contains { path.hasPrefix($0) }
    }

    /// Follows symlinks at the last component (dangling ones too, which name the file to
    /// create); relative link targets are taken from the link's own directory.
    package static func finalLink(_ path: String) -> String? {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard FileName.withCString(current, { lstat($0, &st) }) == 0, (st.st_mode & S_IFMT) == S_IFLNK else {
                return current
            }
            var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = FileName.withCString(current) { p in buffer.withUnsafeMutableBytes { readlink(p, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count - 1) } }
            guard n > 0 else { return current }
            let target = FileName.decode(buffer[0..<n])
            current = target.hasPrefix("/") ? target : ImageFile.split(current).dir + target
        }
        return nil
    }
}
