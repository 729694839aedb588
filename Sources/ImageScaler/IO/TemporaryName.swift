#if canImport(Glibc)
import Glibc
#endif

/// Names for the temporaries an atomic write links before renaming over an existing
/// file: `.imgscale-HOST-PID-N.tmp`. The length is fixed whatever the output's name, so
/// it always fits NAME_MAX; host and PID say whose it is, so a temporary left by a
/// killed run (on this host, by a PID no longer alive) is recognised and removed by the
/// next run that names a temporary in that directory, while another live run's is left alone, also
/// across hosts sharing the directory.
enum TemporaryName {
    private static let prefix = ".imgscale-"
    private static let suffix = ".tmp"
    private static let counter = Locked(0)
    private static let cleaned = Locked(Set<String>())
    /// How many temporaries this run has asked to name in each directory.
    private static let named = Locked([String: Int]())
    /// The largest directory (its `st_size`) read for debris at a run's first temporary
    /// there: on ext4 about 1,800 names, half a millisecond to read. A larger one is read
    /// at the process's second temporary there instead, so a batch's workers still clean
    /// it, while a shell loop replacing one file a process in a directory of 10,000
    /// (352 KiB, 3.8 ms a read) does not read it 10,000 times.
    static let smallDirectoryBytes = 64 * 1024

    private static let host: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count - 1)
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // At most 40 safe characters: the name must parse back and stay short.
        let safe = name.unicodeScalars.filter { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "." }
        return String(String.UnicodeScalarView(safe.prefix(40)))
    }()

    static func next() -> String {
        let n = counter.withLock { c -> Int in c += 1; return c }
        return "\(prefix)\(host)-\(getpid())-\(n)\(suffix)"
    }

    /// Removes this host's temporaries in `dir` whose process is gone: called before each
    /// temporary is named there. One scan per directory per run, at the first call where
    /// the directory is small, else at the second: a batch writing thousands of files into
    /// one directory pays once, and a run replacing a single file in a large one not at all.
    static func removeStale(in dir: String) {
        let calls = named.withLock { n -> Int in
            n[dir, default: 0] += 1
            return n[dir]!
        }
        guard calls >= 2 || isSmall(dir) else { return }
        let first = cleaned.withLock { $0.insert(dir).inserted }
        guard first, let handle = FileName.withCString(dir, { opendir($0) }) else { return }
        defer { closedir(handle) }
        var stale: [String] = []
        let mine = (prefix + host + "-").utf8.map { CChar(bitPattern: $0) }
        while let entry = readdir(handle) {
            // d_name is read in place: glibc sizes each record to its name, so copying
            // the field's declared 256 bytes would read past a short record.
            let raw = UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!
            // Compared as bytes before any String is made: a directory of 20,000 photos
            // took 35 ms to scan by name, as long as the thumbnail that writes into it.
            guard strncmp(raw.assumingMemoryBound(to: CChar.self), mine, mine.count) == 0 else { continue }
            let name = FileName.decode(UnsafeRawBufferPointer(start: raw, count: strlen(raw.assumingMemoryBound(to: CChar.self))))
            guard name.hasPrefix(prefix + host + "-"), name.hasSuffix(suffix) else { continue }
            let middle = name.dropFirst(prefix.count + host.count + 1).dropLast(suffix.count)
            guard let dash = middle.firstIndex(of: "-"), let pid = Int32(middle[..<dash]) else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { stale.append(name) }
        }
        for name in stale { _ = FileName.withCString(dir + name) { unlink($0) } }
    }

    /// Whether reading `dir` whole is cheap (a directory that cannot be stat'ed counts as
    /// small: opening it then fails the same way).
    private static func isSmall(_ dir: String) -> Bool {
        var st = stat()
        return FileName.withCString(dir) { stat($0, &st) } != 0 || Int(st.st_size) <= smallDirectoryBytes
    }
}
