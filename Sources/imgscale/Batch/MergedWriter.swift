#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// `merge-reports --merged PATH`: lines written through a buffer into a temporary file
/// beside PATH, renamed over it by `finish`, so PATH is the old file or the whole merge,
/// never part of one (`-` writes to stdout as the lines come). A writer never finished
/// removes its temporary file.
final class MergedWriter {
    private let path: String
    private let fd: Int32
    private let temporary: String?
    private var buffer: [UInt8] = []
    private var finished = false

    init(_ path: String) throws {
        self.path = path
        guard path != "-" else {
            fd = 1
            temporary = nil
            return
        }
        let (dir, name) = ImageFile.split(path)
        var template = FileName.bytes(dir + "." + name + ".XXXXXX").map { CChar(bitPattern: $0) } + [0]
        let made = mkstemp(&template)
        guard made >= 0 else { throw UsageError(message: "--merged \(FileName.display(path)): \(String(cString: strerror(errno)))") }
        fd = made
        _ = fchmod(made, 0o644)
        temporary = FileName.decode(template.dropLast().map { UInt8(bitPattern: $0) })
    }

    deinit {
        if let temporary, !finished {
            close(fd)
            _ = FileName.withCString(temporary) { unlink($0) }
        }
    }

    func append(_ line: ArraySlice<UInt8>) throws {
        buffer += line
        buffer.append(0x0A)
        if buffer.count >= 1 << 20 { try flush() }
    }

    private func flush() throws {
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw FileError.write(String(cString: strerror(errno)), path: path) }
            done += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    func finish() throws {
        try flush()
        guard let temporary else { return }
        guard FileName.withCString(temporary, { from in FileName.withCString(path) { rename(from, $0) } }) == 0 else {
            throw FileError.write(String(cString: strerror(errno)), path: path)
        }
        close(fd)
        finished = true
    }
}
