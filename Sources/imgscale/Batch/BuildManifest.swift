#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// What `--if-changed` knows about the outputs it made: a sidecar file,
/// `.imgscale-manifest`, in each output directory, with one line per output: the key of
/// what made it (SHA-256 over imgscale's version, the input's bytes and every option that
/// changes the output's bytes) and the SHA-256 of the file written. An output is skipped
/// when its line's key is the key of this run and the file on disk still has that digest.
/// A sidecar rather than extended attributes: git, tar, CI caches and tmpfs all keep a
/// plain file, and none of them loses it the way they drop xattrs; mtimes play no part,
/// so a fresh `git clone` skips as well as the checkout that made the outputs.
///
/// The file is text: a first line `imgscale-manifest 1`, then
/// `KEY SHA256 WxH OUTPUTSTAMP INPUTSTAMP INPUTSHA NAMEHEX [PLACEHOLDERSHEX]`, the name
/// as hex bytes (any file name, one field), then the output's placeholders' text
/// (`Placeholders.text`) as hex where it has any. A file that does not parse is foreign or
/// corrupt: ignored with one warning, its outputs remade, and replaced. Runs sharing a
/// directory (shards) add their lines under its lock; a skip needs a key and a digest
/// that both match, so even a lost line would only cost a remake.
struct BuildManifest: Sendable {
    struct Entry: Equatable, Sendable {
        let key: String
        let sha256: String
        /// The output's size, so a current output is reported without parsing it.
        let size: Size
        /// What the run knew of the files (`Stamps`).
        let stamps: Stamps
        /// Its `--placeholder` fields, so a skipped output is reported with them.
        var placeholders = Placeholders()
    }

    /// What lets a rerun skip reading files, as git's index does: the input's and the
    /// output's inode, length, mtime and ctime (ctime moves on every change and cannot
    /// be set back), and the input's SHA-256 when it had that stamp. A file whose stamp
    /// differs (every file after a clone) is read and hashed; one whose stamp matches is
    /// the file that was hashed.
    struct Stamps: Hashable, Sendable {
        let input: String
        let inputSHA: String
        let output: String
    }

    /// `ino-size-mtime-ctime` (nanoseconds) of a regular file; nil for anything else.
    static func stamp(_ path: String) -> String? {
        var st = stat()
        guard path != "-", FileName.withCString(path, { stat($0, &st) }) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return "\(st.st_ino)-\(st.st_size)-\(st.st_mtim.tv_sec)\(nanos(st.st_mtim.tv_nsec))-\(st.st_ctim.tv_sec)\(nanos(st.st_ctim.tv_nsec))"
    }

    private static func nanos(_ n: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, 9 - s.count)) + s
    }

    static let fileName = ".imgscale-manifest"
    static let header = "imgscale-manifest 1"

    /// Per output directory (as `ImageFile.split` gives it), per file name.
    private(set) var directories: [String: [String: Entry]] = [:]

    /// The manifests of the directories `paths` are in; the warnings for those ignored.
    static func load(outputs paths: [String]) -> (BuildManifest, [String]) {
        var manifest = BuildManifest(), warnings: [String] = []
        for dir in Set(paths.filter { $0 != "-" }.map { ImageFile.split($0).dir }) {
            let path = dir + fileName
            var st = stat()
            guard FileName.withCString(path, { lstat($0, &st) }) == 0 else { continue }
            let bytes: [UInt8]
            do {
                bytes = try ImageFile.read(path, limit: 64 << 20, regularOnly: true)
            } catch {
                // A link a repository committed, or a FIFO, is neither followed nor waited on.
                warnings.append("\(FileName.display(path)): \(ErrorText.describe(error)); ignoring it, so its directory's outputs are remade")
                continue
            }
            if let entries = parse(bytes) {
                manifest.directories[dir] = entries
            } else {
                warnings.append("\(FileName.display(path)) is not an imgscale manifest; ignoring it, so its directory's outputs are remade")
            }
        }
        return (manifest, warnings)
    }

    static func parse(_ bytes: [UInt8]) -> [String: Entry]? {
        // Bytes, not Strings, until a line has passed: a rerun over thousands of unchanged
        // files spent most of its time splitting and indexing Strings here.
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        guard let first = lines.first, first.elementsEqual(header.utf8) else { return nil }
        func text(_ field: ArraySlice<UInt8>) -> String { String(decoding: field, as: UTF8.self) }
        var entries: [String: Entry] = [:]
        entries.reserveCapacity(lines.count)
        for line in lines.dropFirst() where !line.isEmpty {
            let fields = line.split(separator: 0x20, omittingEmptySubsequences: false)
            guard fields.count == 7 || fields.count == 8, isDigest(fields[0]), isDigest(fields[1]), isDigest(fields[5]),
                  case let sides = fields[2].split(separator: 0x78, omittingEmptySubsequences: false), sides.count == 2,
                  let w = decimal(sides[0]), let h = decimal(sides[1]), w > 0, h > 0, isStamp(fields[3]), isStamp(fields[4]),
                  let name = Hex.bytes(fields[6]), !name.isEmpty, !name.contains(0x2F), !name.contains(0) else { return nil }
            var placeholders = Placeholders()
            if fields.count == 8 {
                guard let bytes = Hex.bytes(fields[7]), let parsed = Placeholders(text: String(decoding: bytes, as: UTF8.self)) else { return nil }
                placeholders = parsed
            }
            entries[FileName.decode(name)] = Entry(key: text(fields[0]), sha256: text(fields[1]), size: Size(width: w, height: h),
                                                   stamps: Stamps(input: text(fields[4]), inputSHA: text(fields[5]), output: text(fields[3])),
                                                   placeholders: placeholders)
        }
        return entries
    }

    /// 64 lowercase hex digits.
    private static func isDigest(_ field: ArraySlice<UInt8>) -> Bool {
        field.count == 64 && field.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// A decimal of 1 to 9 digits (a side in pixels).
    private static func decimal(_ field: ArraySlice<UInt8>) -> Int? {
        guard (1...9).contains(field.count) else { return nil }
        var value = 0
        for digit in field {
            guard digit >= 0x30 && digit <= 0x39 else { return nil }
            value = value * 10 + Int(digit - 0x30)
        }
        return value
    }

    private static func isStamp(_ field: ArraySlice<UInt8>) -> Bool {
        let parts = field.split(separator: 0x2D, omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 30 && $0.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
    }

    func entry(for path: String) -> Entry? {
        let (dir, name) = ImageFile.split(path)
        return directories[dir]?[name]
    }

    /// What a run's settings contribute to every key: everything that changes the bytes
    /// written (not the thread count, the limits or the reports). Made once a run; the
    /// first page adds nothing, so manifests written before `--page` existed still hold.
    static func signature(_ settings: JobSettings) -> String {
        let d = settings.decode, r = settings.render
        var e = settings.encode
        e.threads = 1
        return ["imgscale \(Commands.version)", String(reflecting: e), "\(d.failOn) \(d.toSRGB) \(d.density) \(d.shrink)" + (d.export.map { " export \(SHA256.hex($0.icc)) \($0.intent)" } ?? "") + (d.page > 0 ? " page \(d.page)" : ""),
                "\(r.autoOrient) \(r.carryProfile) \(r.keepMetadata) \(r.upscale) \(r.filter)" + (r.animated ? " animated \(d.maxFrames)" : "")
                    + (r.sharpen.map { " sharpen \($0.radius),\($0.percent),\($0.threshold)" } ?? "") + (r.linear ? " linear" : "")
                    + (r.trim.map { " trim \($0.threshold) \($0.color?.hex ?? "corner")" } ?? "") + (r.keepGainMap ? "" : " drop-gain-map")].joined(separator: "\n")
    }

    /// What one output spec contributes: its operation, its container's other sizes and
    /// its format.
    static func signature(_ output: Job.Output) -> String {
        ([output.operation] + output.entries).map(describe).joined(separator: " ") + " " + (output.format?.rawValue ?? "own")
    }

    /// An operation with every value it holds, spelled out (no reflection: it is made per
    /// input and output).
    private static func describe(_ operation: ImageOperation) -> String {
        func rect(_ r: Rect?) -> String { r.map { "\($0.x),\($0.y),\($0.width),\($0.height)" } ?? "-" }
        switch operation {
        case .fill(let s, let from, let origin, let gravity, let focus):
            return "fill \(s.width)x\(s.height) \(rect(from)) \(origin.rawValue) \(gravity.rawValue)" + (focus.map { " focus \($0.text)" } ?? "")
        case .crop(let r, let origin): return "crop \(rect(r)) \(origin.rawValue)"
        case .fit(let s, let pad, let from): return "fit \(s.width)x\(s.height) \(pad?.hex ?? "-")" + (from.map { " from \($0.x),\($0.y),\($0.width),\($0.height)" } ?? "")
        case .convert: return "convert"
        }
    }

    /// The key of an output of `signature` (settings and output) made from an input whose
    /// bytes hash to `input`.
    static func key(input: String, signature: String) -> String {
        SHA256.hex(Array((input + "\n" + signature).utf8))
    }

    /// Each directory's manifest with `made` (output path -> entry) merged into what is
    /// on disk now, written atomically; warnings for those that could not be written.
    /// Shards of one run share output directories and finish at any time: each holds
    /// the directory's lock (`flock` on the directory itself, so no lock file is left
    /// beside the outputs) while it reads the manifest again and adds its own lines, so
    /// no shard's lines are lost to another's.
    static func write(_ made: [String: Entry], over loaded: BuildManifest) -> [String] {
        var byDirectory: [String: [String: Entry]] = [:]
        for (path, entry) in made where path != "-" {
            let (dir, name) = ImageFile.split(path)
            byDirectory[dir, default: [:]][name] = entry
        }
        var warnings: [String] = []
        for (dir, mine) in byDirectory {
            var entries = loaded.directories[dir] ?? [:]
            // A rerun that remade nothing leaves the manifest as it is (and as another run
            // may have written it since).
            if mine.allSatisfy({ entries[$0.key] == $0.value }) { continue }
            let lock = FileName.withCString(dir.isEmpty ? "." : dir) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            if lock >= 0 { while flock(lock, LOCK_EX) != 0 && errno == EINTR {} }
            defer { if lock >= 0 { close(lock) } }
            // What another run wrote since this one loaded: a manifest that does not parse
            // now was warned about at the start, or is another run's half (never: writes
            // are atomic), and is replaced.
            var onDisk: [String: Entry]? = nil
            if let bytes = try? ImageFile.read(dir + fileName, limit: 64 << 20, regularOnly: true), let now = parse(bytes) {
                entries.merge(now) { _, disk in disk }
                onDisk = now
            }
            entries.merge(mine) { _, made in made }
            if entries == onDisk { continue }
            var text = header + "\n"
            for name in entries.keys.sorted() {
                let e = entries[name]!
                text += "\(e.key) \(e.sha256) \(e.size.width)x\(e.size.height) \(e.stamps.output) \(e.stamps.input) \(e.stamps.inputSHA) "
                    + SHA256.hex(digest: FileName.bytes(name))
                    + (e.placeholders.fields.isEmpty ? "" : " " + SHA256.hex(digest: Array(e.placeholders.text.utf8))) + "\n"
            }
            do {
                try ImageFile.writeRegular(Array(text.utf8), to: dir + fileName)
            } catch {
                warnings.append("\(ErrorText.describe(error)); the next --if-changed run remakes its outputs")
            }
        }
        return warnings
    }
}
