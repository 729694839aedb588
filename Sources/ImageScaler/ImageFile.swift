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
        // Regular files are read in one allocation of their size; pipes grow as needed.
        var bytes = [UInt8]()
        var capacity = (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) + 1 : 1 << 16
        bytes.reserveCapacity(capacity)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError.read(errnoText())
            }
            if n == 0 { break }
            if bytes.count + n > capacity { capacity *= 2; bytes.reserveCapacity(capacity) }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// Writes `bytes` to `path` atomically (`-` is stdout). The temporary file is
    /// `.<name>.imgscale-XXXXXX` beside the target and is removed on any failure.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        if path == "-" {
            try writeAll(bytes, fd: STDOUT_FILENO, path: path)
            return
        }
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
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
