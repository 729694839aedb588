import XCTest
import TestReferences
import Foundation

/// `--shard auto` under each engine's variables, `--balance cost` over many names and a
/// mixed folder, and a retried shard's report merged to what one run over the list writes.
final class ShardTests: XCTestCase {
    /// The inputs `plan` shows for a command: the shard's inputs, in its order.
    private func planned(_ args: [String], environment: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) -> [String] {
        let r = CLI.run(["plan", "fill", "--size", "8x8", "--name", "{stem}.png"] + args, environment: environment)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        // By bytes: splitting a megabyte of plans by Characters takes a second.
        let prefix = Array("plan: ".utf8)
        return r.stdout.utf8.split(separator: 0x0A).filter { $0.starts(with: prefix) }.map { String(decoding: $0.dropFirst(prefix.count), as: UTF8.self) }
    }

    private let images = ["scene-640x427.jpg", "gradient-rgb-64x48.png", "alpha-disc-100x100.png", "strokes-130x90.png",
                          "two-colour-8x8.png", "gray16-33x17.png", "checker-1px-64x64.png"].map { CLI.testImages + "/" + $0 }

    func testShardAutoReadsEachEngineAsItsOwnIndex() throws {
        let out = CLI.tempDir()
        let explicit = (1...3).map { planned(["--shard", "\($0)/3", "--out-dir", out] + images) }
        XCTAssertEqual(Set(explicit.joined()), Set(images))
        XCTAssertEqual(explicit.map(\.count).reduce(0, +), images.count)
        for k in 0..<3 {
            let engines: [(String, [String: String])] = [
                ("auto/3", ["JOB_COMPLETION_INDEX": "\(k)"]),
                ("auto/3", ["AWS_BATCH_JOB_ARRAY_INDEX": "\(k)"]),
                ("auto", ["CLOUD_RUN_TASK_INDEX": "\(k)", "CLOUD_RUN_TASK_COUNT": "3"]),
                ("auto/3", ["CLOUD_RUN_TASK_INDEX": "\(k)", "CLOUD_RUN_TASK_COUNT": "3"]),
                // --array=1-3, and --array=10-14:2 (tasks 10, 12 and 14).
                ("auto", ["SLURM_ARRAY_TASK_ID": "\(k + 1)", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3"]),
                ("auto", ["SLURM_ARRAY_TASK_ID": "\(10 + 2 * k)", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "3"]),
                // Two engines that agree.
                ("auto/3", ["JOB_COMPLETION_INDEX": "\(k)", "CLOUD_RUN_TASK_INDEX": "\(k)"]),
            ]
            for (spec, env) in engines {
                XCTAssertEqual(planned(["--shard", spec, "--out-dir", out] + images, environment: env), explicit[k], "\(spec) \(env)")
            }
        }
        // Each report line says which shard, engine and index made it.
        let r = CLI.run(["fill", "--size", "8x8", "--shard", "auto/3", "--out-dir", out, "--name", "{stem}.png", "--report", out + "/r.jsonl", "-q"] + images,
                        environment: ["JOB_COMPLETION_INDEX": "1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = try String(contentsOfFile: out + "/r.jsonl", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, explicit[1].count)
        for line in lines {
            let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(o["shard"] as? String, "2/3")
            XCTAssertEqual(o["engine"] as? String, "kubernetes")
            XCTAssertEqual(o["index"] as? Int, 1)
            XCTAssertNil(o["attempt"], "a first attempt says none")
        }
    }

    func testShardAutoRefusesWhatItCannotRead() {
        let out = CLI.tempDir()
        func refused(_ spec: String, _ env: [String: String], _ words: String, file: StaticString = #filePath, line: UInt = #line) {
            let r = CLI.run(["fill", "--size", "8x8", "--shard", spec, "--out-dir", out, images[0]], environment: env)
            XCTAssertEqual(r.status, 2, r.stderr, file: file, line: line)
            XCTAssertTrue(r.stderr.contains(words), r.stderr, file: file, line: line)
            XCTAssertEqual(CLI.files(out), [], "nothing made", file: file, line: line)
        }
        refused("auto", [:], "none of JOB_COMPLETION_INDEX (a Kubernetes Indexed Job), AWS_BATCH_JOB_ARRAY_INDEX (an AWS Batch array job), CLOUD_RUN_TASK_INDEX (a Cloud Run job), SLURM_ARRAY_TASK_ID (a Slurm array) is set")
        refused("auto", ["JOB_COMPLETION_INDEX": "2"], "does not export how many there are; give --shard auto/N")
        refused("auto/4", ["JOB_COMPLETION_INDEX": "1", "AWS_BATCH_JOB_ARRAY_INDEX": "2"], "disagree: JOB_COMPLETION_INDEX gives index 1, AWS_BATCH_JOB_ARRAY_INDEX gives index 2")
        refused("auto/4", ["CLOUD_RUN_TASK_INDEX": "1", "CLOUD_RUN_TASK_COUNT": "3"], "CLOUD_RUN_TASK_INDEX gives index 1 of 3, not 4 shards")
        refused("auto", ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "3"], "past the last of 3 shards")
        refused("auto/2", ["AWS_BATCH_JOB_ARRAY_INDEX": "one"], "AWS_BATCH_JOB_ARRAY_INDEX='one' is not a whole number")
        refused("auto/x", ["JOB_COMPLETION_INDEX": "0"], "--shard must be K/N")
        refused("auto", ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "100000000000"], "100000000000 shards is more than 16777216")
        refused("3/2", [:], "--shard must be K/N")
        let balance = CLI.run(["fill", "--size", "8x8", "--balance", "cost", "--out-dir", out, images[0]])
        XCTAssertEqual(balance.status, 2)
        XCTAssertTrue(balance.stderr.contains("--balance deals the inputs of --shard"), balance.stderr)
    }

    /// 3,000 names (hard links to the test images, costs differing 1,000-fold) in 5
    /// shards: each name in exactly one, and the same dealing from the list in any order.
    func testCostBalanceDealsEveryNameOnceInAnyListOrder() throws {
        if ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] != nil {
            throw XCTSkip("SKIPPED under the sanitizers: 18,000 headers read; the plain run covers the dealing, MergeReportsTests the scanner")
        }
        let dir = CLI.tempDir()
        var names: [String] = []
        for i in 0..<3_000 {
            let name = dir + "/\(i % 10)/p\(i).\(images[i % images.count].hasSuffix("jpg") ? "jpg" : "png")"
            if i < 10 { try FileManager.default.createDirectory(atPath: dir + "/\(i)", withIntermediateDirectories: true) }
            XCTAssertEqual(link(images[i % images.count], name), 0)
            names.append(name)
        }
        try (names.joined(separator: "\n") + "\n").write(toFile: dir + "/list.txt", atomically: true, encoding: .utf8)
        var shuffled = names
        var seed: UInt64 = 42
        for i in stride(from: shuffled.count - 1, to: 0, by: -1) {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            shuffled.swapAt(i, Int(seed >> 33) % (i + 1))
        }
        try (shuffled.joined(separator: "\n") + "\n").write(toFile: dir + "/shuffled.txt", atomically: true, encoding: .utf8)
        var seen: [String: Int] = [:]
        for k in 1...5 {
            let mine = planned(["--shard", "\(k)/5", "--balance", "cost", "--files-from", dir + "/list.txt", "--out-dir", dir + "/out"])
            for name in mine { seen[name, default: 0] += 1 }
            XCTAssertEqual(mine, mine.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }, "a shard runs in path order")
            if k == 2 {
                XCTAssertEqual(planned(["--shard", "\(k)/5", "--balance", "cost", "--files-from", dir + "/shuffled.txt", "--out-dir", dir + "/out"]), mine,
                               "the list's order does not change the dealing")
            }
        }
        XCTAssertEqual(seen.count, 3_000)
        XCTAssertTrue(seen.values.allSatisfy { $0 == 1 })
    }

    /// The camera photos at 1, 12 and 100 MP, PNGs and TIFFs: the largest shard's
    /// predicted cost within 1.1x of the mean at 2, 8 and 64 shards.
    func testCostBalanceEvensAMixedFolder() throws {
        if ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] != nil {
            throw XCTSkip("SKIPPED under the sanitizers: a 100 MP photo made and 8,000 headers read; the plain run covers the balance")
        }
        let photos = try CLI.sharedDir("photos"), tiffs = try CLI.sharedDir("tiff")
        let dir = CLI.tempDir(), made = dir + "/made"
        let jpegs = CLI.files(photos).filter { $0.hasSuffix(".jpg") }
        XCTAssertEqual(jpegs.count, 4)
        var distinct: [String] = []
        for name in jpegs {
            let stem = String(name.dropLast(4))
            XCTAssertEqual(CLI.run(["fit", "--size", "1155x", photos + "/" + name, "-o", made + "-1mp-\(stem).jpg"]).status, 0)
            XCTAssertEqual(CLI.run(["fit", "--size", "1600x", "--compression", "1", photos + "/" + name, "-o", made + "-png-\(stem).png"]).status, 0)
            distinct += [made + "-1mp-\(stem).jpg", photos + "/" + name, made + "-png-\(stem).png"]
        }
        XCTAssertEqual(CLI.run(["fit", "--size", "11547x", "--quality", "70", photos + "/" + jpegs[0], "-o", made + "-100mp.jpg"]).status, 0)
        let tiffNames = ["16bit.deflate.tif", "12in16bit.tif", "copyleft.tiff", "16_bit_noise.tif"].map { tiffs + "/" + $0 }
        var list: [String] = []
        // Mostly small photos, as a phone library is; each name is a file of its own.
        let mix = [(distinct[0], 600), (distinct[3], 600), (distinct[6], 600), (distinct[9], 600), (distinct[1], 60), (distinct[4], 60),
                   (distinct[7], 60), (distinct[10], 60), (distinct[2], 15), (distinct[5], 15), (distinct[8], 15), (distinct[11], 15),
                   (made + "-100mp.jpg", 2)] + tiffNames.map { ($0, 30) }
        for (i, (source, copies)) in mix.enumerated() {
            for c in 0..<copies {
                let name = dir + "/m\(i)-\(c)." + (source as NSString).pathExtension
                try FileManager.default.linkItem(atPath: source, toPath: name)
                list.append(name)
            }
        }
        try (list.joined(separator: "\n") + "\n").write(toFile: dir + "/list.txt", atomically: true, encoding: .utf8)
        for n in [2, 8, 64] {
            let r = CLI.run(["plan", "fill", "--size", "256x256", "--name", "{stem}.jpg", "--shard", "1/\(n)", "--balance", "cost", "-v",
                             "--files-from", dir + "/list.txt", "--out-dir", dir + "/out"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let ratio = try XCTUnwrap(r.stderr.firstMatch(of: /largest shard \d+: ([0-9.]+)x the mean/).flatMap { Double($0.1) }, r.stderr)
            XCTAssertLessThanOrEqual(ratio, 1.1, "N=\(n): \(r.stderr)")
            print("ShardTests: \(list.count) inputs in \(n) shards: the largest predicted \(ratio)x the mean")
        }
    }

    /// A shard killed mid-line and run again with the same report: the report keeps the
    /// first attempt's whole lines, drops the cut one, and marks the retry's; merged with
    /// the other shard, it is one run's report over the whole list, output for output.
    func testRetriedShardMergesToOneRun() throws {
        let dir = CLI.tempDir()
        try (images.joined(separator: "\n") + "\n").write(toFile: dir + "/list.txt", atomically: true, encoding: .utf8)
        func shard(_ k: Int) -> CLI.Result {
            CLI.run(["fill", "--size", "16x16", "--files-from", dir + "/list.txt", "--shard", "\(k)/2", "--balance", "cost", "--if-changed",
                     "--out-dir", dir + "/out", "--name", "{stem}.png", "--report", dir + "/r\(k).jsonl", "-q"])
        }
        XCTAssertEqual(shard(1).status, 0)
        let first = try XCTUnwrap(CLI.bytes(dir + "/r1.jsonl"))
        let cut = first.firstIndex(of: 0x0A)! + 20
        try first.prefix(cut).write(to: URL(fileURLWithPath: dir + "/r1.jsonl"))
        // Killed, it wrote no manifest: the retry makes every output again, the same bytes.
        try FileManager.default.removeItem(atPath: dir + "/out/.imgscale-manifest")
        XCTAssertEqual(shard(1).status, 0)
        XCTAssertEqual(shard(2).status, 0)
        let lines = try String(contentsOfFile: dir + "/r1.jsonl", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 1 + (first.split(separator: 0x0A).count))
        XCTAssertFalse(lines[0].contains("\"attempt\""))
        XCTAssertTrue(lines.dropFirst().allSatisfy { $0.contains("\"attempt\":2") }, "\(lines)")

        let merged = CLI.run(["merge-reports", "--merged", dir + "/merged.jsonl", dir + "/r1.jsonl", dir + "/r2.jsonl"])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertTrue(merged.stdout.hasPrefix("\(images.count) outputs in 2 reports: \(images.count) ok, 0 skipped, 0 failed, "), merged.stdout)
        let single = CLI.run(["fill", "--size", "16x16", "--files-from", dir + "/list.txt", "--out-dir", dir + "/one", "--name", "{stem}.png",
                              "--report", dir + "/one.jsonl", "-q"])
        XCTAssertEqual(single.status, 0)
        func normalised(_ path: String) throws -> [[String: String]] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
                let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                var kept: [String: String] = [:]
                for (k, v) in o where !["ms", "shard", "engine", "index", "attempt"].contains(k) {
                    kept[k] = k == "output" ? ((v as! String) as NSString).lastPathComponent : "\(v)"
                }
                return kept
            }
        }
        let one = try normalised(dir + "/one.jsonl").sorted { Array($0["input"]!.utf8).lexicographicallyPrecedes(Array($1["input"]!.utf8)) }
        XCTAssertEqual(try normalised(dir + "/merged.jsonl"), one)
        for name in CLI.files(dir + "/one") {
            XCTAssertEqual(CLI.bytes(dir + "/one/" + name), CLI.bytes(dir + "/out/" + name), name)
        }
        XCTAssertEqual(CLI.files(dir + "/out").filter { !$0.hasSuffix(".png") }, [".imgscale-manifest"], "no temporary left")
    }
}
