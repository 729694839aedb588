#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// `imgscale info FILE...`: each input's header, one line (or JSON object) each, in the
/// order given. Each input is read in a forked worker (one file: in this process,
/// guarded), so a decoder library that crashes on one file costs that file's line, not
/// the ones after it; a worker's writable memory is bounded by the memory budget.
enum InfoCommand {
    static func run(_ args: ParsedArguments) throws -> Int32 {
        let paths = args.positionals
        guard !paths.isEmpty else { throw UsageError(message: "no input files") }
        let limit = Commands.maxMemory(args)
        let density = try Commands.density(args)
        let page = args.int("page") ?? 0
        let json = args.has("json")
        let hashes = try hashList(args)
        let limits = WorkerPool.Limits(budget: limit, images: 1, cpuSeconds: nil)
        var status: Int32 = 0
        func print(_ o: InfoOutcome) {
            if let out = o.out { Console.out(out) }
            o.err.forEach { Console.err($0) }
            if o.failed { status = 1 }
        }
        func crashed(_ path: String, _ why: String) -> InfoOutcome {
            InfoOutcome(display: FileName.display(path), err: ["imgscale: \(FileName.display(path)): \(why)"], failed: true)
        }
        if paths.count == 1 {
            let path = paths[0]
            print(CrashGuard.run(limits: limits, reportFD: nil, display: FileName.display(path),
                                 outcome: { BatchReporter.InputOutcome(input: path, error: $0, outputs: [], milliseconds: 0) }) {
                describe(path, limit: limit, density: density, page: page, json: json, hashes: hashes)
            })
        } else if WorkerPool.available {
            // One worker, so the lines come back in order; a header read is too quick to
            // gain from more.
            let pool = WorkerPool(limits: limits)
            let finished = pool.runAll(count: paths.count, width: 1, run: { describe(paths[$0], limit: limit, density: density, page: page, json: json, hashes: hashes) },
                                       record: { print($1) }, crashed: { crashed(paths[$0], $1) })
            if !finished { return 130 }
        } else {
            paths.forEach { print(describe($0, limit: limit, density: density, page: page, json: json, hashes: hashes)) }
        }
        return status
    }

    /// One input's line, warnings or error.
    /// `--hash ahash,dhash,phash`: the perceptual hashes asked for, in the order given.
    static func hashList(_ args: ParsedArguments) throws -> [PerceptualHash] {
        guard let given = args.value("hash") else { return [] }
        let names = given.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let hashes = try names.map { name in
            guard let h = PerceptualHash(rawValue: name) else {
                throw UsageError(message: "--hash takes \(PerceptualHash.allCases.map(\.rawValue).joined(separator: ", ")), comma-separated, not '\(name)'")
            }
            return h
        }
        if let twice = hashes.first(where: { h in hashes.filter { $0 == h }.count > 1 }) {
            throw UsageError(message: "--hash names \(twice.rawValue) twice")
        }
        return hashes
    }

    static func describe(_ path: String, limit: Int, density: Double, page: Int = 0, json: Bool, hashes: [PerceptualHash] = []) -> InfoOutcome {
        CrashGuard.faultForTests(on: path)
        var o = InfoOutcome(display: FileName.display(path))
        do {
            var options = DecodeOptions()
            options.density = density
            options.page = page
            options.maxMemory = limit
            let data = try ImageFile.readImage(path, limit: limit)
            let info = try ImageCodec.info(data, options: options)
            // Hashes are of the picture as shown: decoded whole, turned upright.
            var hashed: [(PerceptualHash, UInt64)] = []
            if !hashes.isEmpty {
                let (image, decoded) = try ImageFile.decode(data, options: options)
                let upright = Orienter.upright(image, decoded.orientation)
                hashed = Array(zip(hashes, PerceptualHash.hashes(hashes, of: upright)))
            }
            for warning in info.warnings + [info.gainMapDropped].compactMap({ $0 }) { o.err.append("imgscale: \(FileName.display(path)): warning: \(warning)") }
            let upright = info.uprightSize
            if json {
                var j = JSON()
                j.add(path: "path", path)
                j.add("format", info.format.rawValue)
                j.add("width", info.size.width)
                j.add("height", info.size.height)
                j.add("channels", info.channels)
                j.add("bit_depth", info.bitDepth)
                j.add("color", info.colorModel.rawValue)
                j.add("orientation", info.orientation.rawValue)
                j.add("upright_width", upright.width)
                j.add("upright_height", upright.height)
                j.add(info.format.incrementalName, info.interlaced)
                j.add("frames", info.frames)
                j.add("images", info.images)
                j.add("page", ifAny: info.format.pageRead(page))
                j.add("primary_item", info.primaryItem)
                j.add("icc", info.iccProfile != nil)
                j.add("exif", info.exif != nil)
                j.add("xmp", info.xmp != nil)
                j.add("text", info.textCount)
                j.add("metadata", raw: "[" + info.metadataKinds.map(JSON.quote).joined(separator: ",") + "]")
                if let map = info.gainMap {
                    j.add("gain_map_width", map.size.width)
                    j.add("gain_map_height", map.size.height)
                }
                for (h, v) in hashed { j.add(h.rawValue, PerceptualHash.hex(v)) }
                o.out = j.text
            } else {
                var line = "\(FileName.display(path)): \(info.format.displayName) \(info.size), \(info.channels) channel\(info.channels == 1 ? "" : "s") (\(info.colorModel.rawValue)), \(info.bitDepth)-bit"
                if info.frames > 1 { line += ", \(info.frames) frames (the first is used)" }
                line += info.format.imagesNote(info, page: page).map { ", " + $0 } ?? ""
                if info.format.appliesExifOrientation || info.orientation != .up {
                    line += ", orientation \(info.orientation.rawValue)"
                    if info.orientation != .up { line += " (upright \(upright))" }
                }
                if !info.metadataKinds.isEmpty { line += ", metadata: " + info.metadataKinds.joined(separator: " ") }
                if let map = info.gainMap { line += ", gain map \(map.size) (HDR)" }
                for (h, v) in hashed { line += ", \(h.rawValue) \(PerceptualHash.hex(v))" }
                o.out = line
            }
        } catch {
            o.err.append("imgscale: \(FileName.display(path)): \(ErrorText.describe(error))")
            o.failed = true
        }
        return o
    }
}
