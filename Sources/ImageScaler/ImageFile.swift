#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// All of the library's file I/O. Reads whole files (`-` is stdin); writes through a
/// temporary file in the target directory renamed into place, so a reader or a crash
/// sees either the old file or the complete new one, never a half-written image.
public enum ImageFile {
    public static func read(_ path: String) throws -> [UInt8] {
        let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError.read(errnoText()) }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var st = stat()
        if fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR { throw FileError.read("is a directory") }
        if (st.st_mode & S_IFMT) == S_IFREG {
            // A regular file is read straight into one allocation of its size.
            let size = Int(st.st_size)
            var failure: Int32 = 0
            var bytes = [UInt8](unsafeUninitializedCapacity: size) { buf, count in
                count = 0
                while count < size {
                    let n = Glibc.read(fd, buf.baseAddress! + count, size - count)
                    if n < 0 && errno == EINTR { continue }
                    if n < 0 { failure = errno; return }
                    if n == 0 { return }
                    count += n
                }
            }
            if failure != 0 { errno = failure; throw FileError.read(errnoText()) }
            // A file that grew while being read: take the rest too.
            bytes += try readToEnd(fd)
            return bytes
        }
        return try readToEnd(fd)
    }

    private static func readToEnd(_ fd: Int32) throws -> [UInt8] {
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError.read(errnoText())
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }

    /// Writes `bytes` to `path` atomically (`-` is stdout). The data goes into an
    /// unnamed O_TMPFILE in the target directory, which a crash or `kill -9` simply
    /// discards; only the complete file is given a name. Where O_TMPFILE is not
    /// supported, a `.<name>.imgscale-XXXXXX` temporary is used and removed on failure.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        if path == "-" {
            try writeAll(bytes, fd: STDOUT_FILENO, path: path)
            return
        }
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[...$0]) } ?? "./"
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let mode = 0o666 & ~processUmask
        let fd = open(dir, oTmpfile | O_WRONLY | O_CLOEXEC, mode)
        if fd < 0 {
            guard errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL else {
                throw FileError.write(errnoText(), path: path)
            }
            try writeThroughNamedTemporary(bytes, to: path, dir: dir, name: name)
            return
        }
        do {
            try writeAll(bytes, fd: fd, path: path)
        } catch {
            close(fd)
            throw error
        }
        let procPath = "/proc/self/fd/\(fd)"
        defer { close(fd) }
        // Linking straight to the final name is atomic when nothing is there yet;
        // replacing a file needs a named temporary renamed over it.
        if linkat(AT_FDCWD, procPath, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 { return }
        guard errno == EEXIST else { throw FileError.write(errnoText(), path: path) }
        var suffix = UInt64(getpid()) << 20 ^ UInt64(fd)
        for _ in 0..<100 {
            let temp = "\(dir).\(name).imgscale-\(String(suffix, radix: 36))"
            if linkat(AT_FDCWD, procPath, AT_FDCWD, temp, AT_SYMLINK_FOLLOW) == 0 {
                guard rename(temp, path) == 0 else {
                    let reason = errnoText()
                    unlink(temp)
                    throw FileError.write(reason, path: path)
                }
                return
            }
            guard errno == EEXIST else { throw FileError.write(errnoText(), path: path) }
            suffix = suffix &* 6364136223846793005 &+ 1442695040888963407
        }
        throw FileError.write("no free temporary name", path: path)
    }

    /// Linux's O_TMPFILE, which the Glibc module does not import: __O_TMPFILE
    /// (020000000 on every Linux architecture glibc supports) with O_DIRECTORY.
    private static let oTmpfile: Int32 = 0o20000000 | O_DIRECTORY

    private static func writeThroughNamedTemporary(_ bytes: [UInt8], to path: String, dir: String, name: String) throws {
        var template = Array("\(dir).\(name).imgscale-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw FileError.write(errnoText(), path: path) }
        let tempPath = String(cString: template)
        var renamed = false
        defer { if !renamed { unlink(tempPath) } }
        do {
            try writeAll(bytes, fd: fd, path: path)
        } catch {
            close(fd)
            throw error
        }
        // mkstemp creates 0600; outputs get the usual 0666 less the umask, like cp.
        fchmod(fd, 0o666 & ~processUmask)
        guard close(fd) == 0 else { throw FileError.write(errnoText(), path: path) }
        guard rename(tempPath, path) == 0 else { throw FileError.write(errnoText(), path: path) }
        renamed = true
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
