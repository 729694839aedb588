#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// `compare DIR DIR --cache FILE`: for each pair that passed, the key of what judged it
/// (imgscale's version, the limits, the rules that apply to it, the golden compared) and
/// both images' SHA-256, with the stamps (inode, length, mtime, ctime: `BuildManifest`'s)
/// they had when hashed. A rerun whose key is the same and whose images still have those
/// digests skips the pair as `unchanged`; as git's index does, a file whose stamp is the
/// one recorded is the file that was hashed, and only the others are read again. The file
/// is text, `imgscale-compare-cache 1` then `NAMEHEX KEY ESTAMP ESHA ASTAMP ASHA` lines,
/// written whole or not at all, never through a link; one that does not parse is
/// ignored with one warning (and every pair compared).
struct CompareCache {
    struct Entry: Sendable {
        let key: String
        let expectedStamp: String
        let expectedSHA: String
        let actualStamp: String
        let actualSHA: String
    }
    private(set) var entries: [String: Entry] = [:]

    static let header = "imgscale-compare-cache 1"

    /// The cache at `path` (empty when there is none), the warning for one ignored, and
    /// whether the run may write its own there (not over a link, a FIFO or a device).
    static func load(_ path: String) -> (CompareCache, String?, writable: Bool) {
        var st = stat()
        guard FileName.withCString(path, { lstat($0, &st) }) == 0 else { return (CompareCache(), nil, true) }
        let bytes: [UInt8]
        do {
            bytes = try ImageFile.read(path, limit: 1 << 30, regularOnly: true)
        } catch {
            return (CompareCache(), "--cache \(FileName.display(path)): \(ErrorText.describe(error)); comparing every pair, and keeping no cache", false)
        }
        var cache = CompareCache()
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        guard let first = lines.first, String(decoding: first, as: UTF8.self) == header else {
            return (CompareCache(), "--cache \(FileName.display(path)) is not an imgscale compare cache; comparing every pair, then replacing it", true)
        }
        for line in lines.dropFirst() where !line.isEmpty {
            let f = String(decoding: line, as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
            guard f.count == 6, let name = Hex.bytes(f[0].utf8), !name.isEmpty, SHA256.isDigest(f[1]), SHA256.isDigest(f[3]), SHA256.isDigest(f[5]) else {
                return (CompareCache(), "--cache \(FileName.display(path)) is damaged; comparing every pair, then replacing it", true)
            }
            cache.entries[FileName.decode(name)] = Entry(key: String(f[1]), expectedStamp: String(f[2]), expectedSHA: String(f[3]),
                                                         actualStamp: String(f[4]), actualSHA: String(f[5]))
        }
        return (cache, nil, true)
    }

    /// The entry for the pair `name` as it is now, when it is the one recorded under `key`:
    /// each image vouched for by its stamp, or else by its digest.
    func unchanged(_ name: String, key: String, expected: String, actual: String) -> Entry? {
        guard let e = entries[name], e.key == key,
              let (eStamp, eSHA) = CompareCache.vouch(expected, stamp: e.expectedStamp, sha: e.expectedSHA),
              let (aStamp, aSHA) = CompareCache.vouch(actual, stamp: e.actualStamp, sha: e.actualSHA) else { return nil }
        return Entry(key: key, expectedStamp: eStamp, expectedSHA: eSHA, actualStamp: aStamp, actualSHA: aSHA)
    }

    private static func vouch(_ path: String, stamp: String, sha: String) -> (String, String)? {
        guard let now = BuildManifest.stamp(path) else { return nil }
        if now == stamp { return (now, sha) }
        guard let bytes = try? ImageFile.read(path, limit: 1 << 31, regularOnly: true), SHA256.hex(bytes) == sha else { return nil }
        return (now, sha)
    }

    /// The entry of a pair that passed, its images hashed now.
    static func entry(key: String, expected: String, actual: String) -> Entry? {
        guard let es = BuildManifest.stamp(expected), let a = BuildManifest.stamp(actual),
              let eb = try? ImageFile.read(expected, limit: 1 << 31, regularOnly: true),
              let ab = try? ImageFile.read(actual, limit: 1 << 31, regularOnly: true) else { return nil }
        return Entry(key: key, expectedStamp: es, expectedSHA: SHA256.hex(eb), actualStamp: a, actualSHA: SHA256.hex(ab))
    }

    /// `entries` written to `path`, whole or not at all.
    static func write(_ entries: [String: Entry], to path: String) throws {
        var text = header + "\n"
        for name in entries.keys.sorted() {
            let e = entries[name]!
            text += "\(SHA256.hex(digest: FileName.bytes(name))) \(e.key) \(e.expectedStamp) \(e.expectedSHA) \(e.actualStamp) \(e.actualSHA)\n"
        }
        try ImageFile.writeRegular(Array(text.utf8), to: path)
    }
}
