#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// All of the library's file I/O. Paths are `FileName` strings (bytes kept exactly).
/// Reads whole files (`-` is stdin) up to a byte limit; writes a regular file through a
/// temporary in the target's directory linked or renamed into place, so a reader or a
/// crash sees either the old file or the complete new one; writes devices, FIFOs and
/// `/dev/fd/N` through, as `cp` does, and replaces the file a symlink points to, never
/// the symlink.
public enum ImageFile {
    /// Reads the whole file, refusing one of more than `limit` bytes without reading past
    /// the limit (a FIFO, `/dev/zero` or endless stdin stops there).
    public static func read(_ path: String, limit: Int = Int.max, regularOnly: Bool = false) throws -> [UInt8] {
        try withOpenFile(path, regularOnly: regularOnly) { fd, size in
            if let size, size > limit { throw FileError.tooLarge(limit: limit) }
            return try readAll(fd, sizeHint: size ?? 0, limit: limit)
        }
    }

    /// Reads an image file: its first bytes must carry a known signature, checked before
    /// anything else is read, so a non-image of any length is refused at once. A regular
    /// file is peeked at and then read into one allocation of its size (no copy). The
    /// limit defaults to the memory budget's default: a file larger than the budget
    /// could never be decoded within it.
    ///
    /// `regularOnly` is for paths imgscale finds or is handed by a program (a manifest, a
    /// mask, a server request's images): a symlink is not followed and a FIFO or device
    /// is refused before anything blocks on it.
    public static func readImage(_ path: String, limit: Int = RenderOptions.Limits().maxMemory, regularOnly: Bool = false) throws -> [UInt8] {
        try withOpenFile(path, regularOnly: regularOnly) { fd, size in
            var head = [UInt8](repeating: 0, count: 16)
            let got: Int
            if size != nil {
                got = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
                if got < 0 { throw FileError.read(errnoText()) }
            } else {
                got = try readUpTo(fd, into: &head, count: head.count)
            }
            head.removeSubrange(got...)
            if head.isEmpty { throw DecodeError.empty }
            guard ImageFormat.sniff(head) != nil else { throw DecodeError.unknownFormat }
            if let size {
                if size > limit { throw FileError.tooLarge(limit: limit) }
                // The file is read again from its start: one rewritten since the peek
                // (an upload replaced, `rsync --inplace`) must still carry a signature.
                let bytes = try readAll(fd, sizeHint: size, limit: limit)
                guard ImageFormat.sniff(bytes) != nil else { throw DecodeError.unknownFormat }
                return bytes
            }
            return try readAll(fd, sizeHint: 0, limit: limit, prefix: head)
        }
    }

    /// The first `count` bytes of a regular file and its length, for what a header
    /// predicts; nil for anything else, which is never opened in a way that could block
    /// (a FIFO) or consume it (stdin).
    package static func readHead(_ path: String, count: Int) -> (bytes: [UInt8], size: Int)? {
        guard path != "-" else { return nil }
        let fd = FileName.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        let want = min(count, Int(st.st_size))
        var bytes = [UInt8](repeating: 0, count: want)
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, 0) }
        guard got >= 0 else { return nil }
        bytes.removeSubrange(got...)
        return (bytes, Int(st.st_size))
    }

    private static func withOpenFile<T>(_ path: String, regularOnly: Bool = false, _ body: (Int32, Int?) throws -> T) throws -> T {
        if regularOnly && path == "-" { throw FileError.read("is standard input, not a regular file") }
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
        let flags = O_RDONLY | O_CLOEXEC | (regularOnly ? O_NOFOLLOW | O_NONBLOCK : 0)
        let fd = path == "-" ? STDIN_FILENO : FileName.withCString(path) { open($0, flags) }
        guard fd >= 0 else {
            throw FileError.read(regularOnly && errno == ELOOP ? "is a symbolic link, which imgscale does not follow here" : errnoText())
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw FileError.read(errnoText()) }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw FileError.read("is a directory") }
        if regularOnly {
            guard (st.st_mode & S_IFMT) == S_IFREG else { throw FileError.read("is \(kind(st.st_mode)), not a regular file") }
            _ = fcntl(fd, F_SETFL, O_RDONLY)
        }
        return try body(fd, (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : nil)
    }

    private static func readUpTo(_ fd: Int32, into buffer: inout [UInt8], count: Int) throws -> Int {
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError.read(errnoText())
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Reads to the end of the file; a regular file's size is read in one allocation, and
    /// a file that grew while being read is still read to its end (within the limit).
    private static func readAll(_ fd: Int32, sizeHint: Int, limit: Int, prefix: [UInt8] = []) throws -> [UInt8] {
        // A regular file is read straight into one allocation of its size.
        let expected = max(min(sizeHint, limit), prefix.count)
        var failure: Int32 = 0
        var bytes = [UInt8](unsafeUninitializedCapacity: expected) { buf, count in
            _ = buf.initialize(from: prefix)
            count = prefix.count
            while count < expected {
                let n = Glibc.read(fd, buf.baseAddress! + count, expected - count)
                if n < 0 && errno == EINTR { continue }
                if n < 0 { failure = errno; return }
                if n == 0 { return }
                count += n
            }
        }
        if failure != 0 { errno = failure; throw FileError.read(errnoText()) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            // One byte past the limit tells a file of exactly `limit` bytes from a longer one.
            let room = limit - bytes.count
            let want = room >= chunk.count ? chunk.count : room + 1
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, want) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError.read(errnoText())
            }
            if n == 0 { return bytes }
            if n > room { throw FileError.tooLarge(limit: limit) }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }

    /// Writes `bytes` to `path` (`-` is stdout), complete or not at all for a regular file.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        if path == "-" {
            try writeAll(bytes, fd: STDOUT_FILENO, path: path)
            return
        }
        switch OutputTarget.resolve(path) {
        case .through:
            try writeThrough(bytes, to: path)
        case .file(let target):
            try writeAtomically(bytes, to: target, shownAs: path)
        case .failure(let reason):
            throw FileError.write(reason, path: path)
        }
    }

    /// Writes a file imgscale keeps for itself (a manifest): complete or not at all, and only
    /// as a regular file at exactly `path`. A symlink there (one a repository can commit)
    /// is refused, never written through, and so is a FIFO or device.
    public static func writeRegular(_ bytes: [UInt8], to path: String) throws {
        var st = stat()
        if FileName.withCString(path, { lstat($0, &st) }) == 0, (st.st_mode & S_IFMT) != S_IFREG {
            throw FileError.write("it is \(kind(st.st_mode)), which imgscale neither follows nor replaces", path: path)
        }
        try writeAtomically(bytes, to: path, shownAs: path)
    }

    /// The kind of a file that is not a regular one, for an error.
    package static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFDIR: return "a directory"
        case S_IFREG: return "a regular file"
        default: return "not a regular file"
        }
    }

    /// A device, FIFO or inherited descriptor: opened and written in place, as `cp` does.
    private static func writeThrough(_ bytes: [UInt8], to path: String) throws {
        let fd = FileName.withCString(path) { open($0, O_WRONLY | O_CLOEXEC | O_TRUNC) }
        guard fd >= 0 else { throw FileError.write(errnoText(), path: path) }
        do {
            try writeAll(bytes, fd: fd, path: path)
        } catch {
            close(fd)
            throw error
        }
        guard close(fd) == 0 else { throw FileError.write(errnoText(), path: path) }
    }

    /// The data goes into an unnamed O_TMPFILE in the target directory, which a crash or
    /// `kill -9` simply discards; only the complete file is given a name. Where O_TMPFILE
    /// is not supported, a named temporary is written instead.
    private static func writeAtomically(_ bytes: [UInt8], to target: String, shownAs path: String) throws {
        let (dir, _) = split(target)
        let mode = 0o666 & ~processUmask
        let fd = FileName.withCString(dir) { open($0, oTmpfile | O_WRONLY | O_CLOEXEC, mode) }
        if fd < 0 {
            guard errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL else {
                throw FileError.write(errnoText(), path: path)
            }
            try writeThroughNamedTemporary(bytes, to: target, dir: dir, shownAs: path)
            return
        }
        defer { close(fd) }
        try writeAll(bytes, fd: fd, path: path)
        keepOwnership(fd, of: target)
        let procPath = "/proc/self/fd/\(fd)"
        // Linking straight to the final name is atomic when nothing is there yet;
        // replacing a file needs a named temporary renamed over it.
        let linked = FileName.withCString(target) { linkat(AT_FDCWD, procPath, AT_FDCWD, $0, AT_SYMLINK_FOLLOW) }
        if linked == 0 { return }
        if errno == ENOENT && access("/proc/self/fd", F_OK) != 0 {
            // No /proc (a chroot, a minimal container): the unnamed file cannot be
            // named, so the bytes go through a named temporary instead.
            try writeThroughNamedTemporary(bytes, to: target, dir: dir, shownAs: path)
            return
        }
        guard errno == EEXIST else { throw FileError.write(errnoText(), path: path) }
        // Only runs that name temporaries can leave them behind, and only those scan for
        // them: a new file in a directory of 20,000 never reads the directory.
        TemporaryName.removeStale(in: dir)
        for _ in 0..<100 {
            let temp = dir + TemporaryName.next()
            let made = FileName.withCString(temp) { linkat(AT_FDCWD, procPath, AT_FDCWD, $0, AT_SYMLINK_FOLLOW) }
            if made == 0 {
                try renameIntoPlace(temp, target, shownAs: path)
                return
            }
            guard errno == EEXIST else { throw FileError.write(errnoText(), path: path) }
        }
        throw FileError.write("no free temporary name", path: path)
    }

    private static func renameIntoPlace(_ temp: String, _ target: String, shownAs path: String) throws {
        let status = FileName.withCString(temp) { t in FileName.withCString(target) { rename(t, $0) } }
        guard status == 0 else {
            let reason = errnoText()
            _ = FileName.withCString(temp) { unlink($0) }
            throw FileError.write(reason, path: path)
        }
    }

    /// A file replaced keeps its permission bits and, where the process may set them,
    /// its owner and group, as `cp` over an existing file does (a 0600 key stays 0600).
    private static func keepOwnership(_ fd: Int32, of target: String) {
        var st = stat()
        guard FileName.withCString(target, { stat($0, &st) }) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return }
        _ = fchown(fd, st.st_uid, st.st_gid)
        _ = fchmod(fd, st.st_mode & 0o7777)
    }

    /// Linux's O_TMPFILE, which the Glibc module does not import: __O_TMPFILE
    /// (020000000 on every Linux architecture glibc supports) with O_DIRECTORY.
    private static let oTmpfile: Int32 = 0o20000000 | O_DIRECTORY

    private static func writeThroughNamedTemporary(_ bytes: [UInt8], to target: String, dir: String, shownAs path: String) throws {
        TemporaryName.removeStale(in: dir)
        for _ in 0..<100 {
            let temp = dir + TemporaryName.next()
            let fd = FileName.withCString(temp) { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666 & ~processUmask) }
            if fd < 0 {
                if errno == EEXIST { continue }
                throw FileError.write(errnoText(), path: path)
            }
            do {
                try writeAll(bytes, fd: fd, path: path)
            } catch {
                close(fd)
                _ = FileName.withCString(temp) { unlink($0) }
                throw error
            }
            keepOwnership(fd, of: target)
            guard close(fd) == 0 else {
                let reason = errnoText()
                _ = FileName.withCString(temp) { unlink($0) }
                throw FileError.write(reason, path: path)
            }
            try renameIntoPlace(temp, target, shownAs: path)
            return
        }
        throw FileError.write("no free temporary name", path: path)
    }

    private static func writeAll(_ bytes: [UInt8], fd: Int32, path: String) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError.write(errnoText(), path: path)
            }
            done += n
        }
    }

    /// Creates `path` and any missing parents, like `mkdir -p`; an existing directory is
    /// fine, an existing file of another kind is an error naming it.
    public static func makeDirectory(_ path: String) throws {
        guard !path.isEmpty else { return }
        var st = stat()
        if FileName.withCString(path, { stat($0, &st) }) == 0 {
            if (st.st_mode & S_IFMT) != S_IFDIR { throw FileError.write("not a directory", path: path) }
            return
        }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex { try makeDirectory(String(path[..<slash])) }
        if FileName.withCString(path, { mkdir($0, 0o777) }) != 0 && errno != EEXIST {
            throw FileError.write("cannot create directory: \(errnoText())", path: path)
        }
    }

    /// The directory part (with its trailing slash, "./" when none) and the last name.
    package static func split(_ path: String) -> (dir: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("./", path) }
        return (String(path[...slash]), String(path[path.index(after: slash)...]))
    }

    static func errnoText() -> String {
        String(cString: strerror(errno))
    }

    /// Read once: umask can only be read by setting it, which must not race with
    /// other threads creating files.
    private static let processUmask: mode_t = {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }()
}
