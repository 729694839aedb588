import XCTest
import Foundation
import TestReferences

/// A crash or a runaway inside a decoder costs one input: each input runs in a forked
/// worker process, whose death the parent turns into that input's line.
final class WorkerIsolationTests: XCTestCase {
    override func setUpWithError() throws {
        // A sanitizer's runtime thread (TSan's) means no forking: the batch then runs
        // in-process, as -v says, and there is no isolation to test.
        let input = CLI.testImages + "/two-colour-8x8.png"
        let r = CLI.run(["fit", "-v", "--size", "8x8", input, CLI.testImages + "/gray-alpha-31x29.png", "--out-dir", CLI.tempDir()])
        if !r.stderr.contains("worker process") {
            throw XCTSkip("SKIPPED: this imgscale runs inputs in-process here: \(r.stderr)")
        }
    }

    func batch(_ dir: String) -> [String] {
        for name in ["a", "b", "crash-1", "c", "crash-2", "d"] {
            try? FileManager.default.copyItem(atPath: CLI.testImages + "/scene-640x427.jpg", toPath: "\(dir)/\(name).jpg")
        }
        return ["a", "b", "crash-1", "c", "crash-2", "d"].map { "\(dir)/\($0).jpg" }
    }

    func testACrashingInputCostsOnlyItselfAtAnyJobCount() throws {
        let dir = CLI.tempDir()
        let inputs = batch(dir)
        var reports: [String] = []
        for j in ["1", "2", "4"] {
            let out = "\(dir)/out\(j)"
            let r = CLI.sh("IMGSCALE_TEST_CRASH=crash- \"$IMGSCALE\" fill --size 64x48 -j\(j) --out-dir '\(out)' --report '\(dir)/r\(j).jsonl' "
                           + inputs.map { "'\($0)'" }.joined(separator: " "))
            XCTAssertEqual(r.status, 1, r.stderr)
            for n in [1, 2] {
                XCTAssertTrue(r.stderr.contains("imgscale: \(dir)/crash-\(n).jpg: decoder crashed (SIGSEGV); nothing written\n"), r.stderr)
            }
            XCTAssertTrue(r.stderr.hasSuffix("4 ok, 2 failed in " + r.stderr.components(separatedBy: "4 ok, 2 failed in ").last!), r.stderr)
            XCTAssertEqual(CLI.files(out), ["a.jpg", "b.jpg", "c.jpg", "d.jpg"])
            let report = try String(contentsOfFile: "\(dir)/r\(j).jsonl", encoding: .utf8)
            reports.append(report.replacingOccurrences(of: #""ms":[0-9]+"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: out, with: "OUT"))
        }
        // The report is in input order, the same at every -j.
        XCTAssertEqual(Set(reports).count, 1, reports.joined(separator: "\n"))
        let lines = reports[0].split(separator: "\n")
        XCTAssertEqual(lines.count, 6)
        XCTAssertTrue(lines[2].contains("crash-1.jpg") && lines[2].contains("\"status\":\"failed\""), String(lines[2]))
        // Outputs are byte for byte those made without workers.
        let plain = CLI.sh("IMGSCALE_IN_PROCESS=1 \"$IMGSCALE\" fill --size 64x48 -j2 --out-dir '\(dir)/plain' '\(inputs[0])' '\(inputs[1])'")
        XCTAssertEqual(plain.status, 0, plain.stderr)
        for name in ["a.jpg", "b.jpg"] {
            XCTAssertEqual(FileManager.default.contents(atPath: "\(dir)/plain/\(name)"), FileManager.default.contents(atPath: "\(dir)/out2/\(name)"))
        }
    }

    func testARunawayInputFailsAtItsCPULimit() throws {
        let dir = CLI.tempDir()
        // AVIF at effort 9 of 400x400 of noise takes aom many seconds of CPU.
        let noise = [UInt8](try XCTUnwrap(FileHandle(forReadingAtPath: "/dev/urandom")).readData(ofLength: 400 * 400 * 3))
        // Built in steps with stated types: as one expression it took the type checker 13 s.
        var rows: [UInt8] = []
        for y in 0..<400 {
            rows.append(0)
            rows += noise[y * 1200 ..< (y + 1) * 1200]
        }
        let header: [UInt8] = Crafted.be32(400) + Crafted.be32(400) + [8, 2, 0, 0, 0]
        var png: [UInt8] = Crafted.signature
        png += Crafted.chunk("IHDR", header)
        png += Crafted.chunk("IDAT", Crafted.zlibStored(rows))
        png += Crafted.chunk("IEND", [])
        try Data(png).write(to: URL(fileURLWithPath: dir + "/noise.png"))
        let t0 = Date()
        let r = CLI.run(["convert", "--max-cpu", "1", "--effort", "9", "--format", "avif", dir + "/noise.png",
                         CLI.testImages + "/two-colour-8x8.png", "--out-dir", dir + "/out"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("imgscale: \(dir)/noise.png: took more than 1 s of CPU (raise it with --max-cpu); nothing written"), r.stderr)
        XCTAssertEqual(CLI.files(dir + "/out"), ["two-colour-8x8.avif"])
        XCTAssertLessThan(Date().timeIntervalSince(t0), 20)
        // The limit is for each output: two outputs may take twice as long, and the line says so.
        let two = CLI.run(["fill", "--max-cpu", "1", "--effort", "9", "--format", "avif", "--size", "399x399", "--size", "398x398",
                           dir + "/noise.png", "--out-dir", dir + "/two", "--name", "{w}.{ext}"])
        XCTAssertEqual(two.status, 1, two.stderr)
        XCTAssertTrue(two.stderr.contains("took more than 2 s of CPU (1 s for each of its 2 outputs; raise it with --max-cpu); nothing written"), two.stderr)
    }

    /// An encoder that fails for want of memory says so: under a data limit set outside
    /// imgscale (`prlimit`, `ulimit -d`, a container) below what the 512 MiB budget asks,
    /// libaom cannot allocate a 1920-wide frame, and the line names that limit, the budget
    /// and what to raise; nothing is written.
    func testAnEncoderOutOfMemoryNamesTheLimit() throws {
        try XCTSkipIf(HostileInputTests.sanitized, "SKIPPED under sanitizers: the memory limit is not applied under them")
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else { throw missingReference("prlimit (util-linux) is missing") }
        let photo = try CLI.sharedDir("photos") + "/street-4032x3024.jpg"
        let dir = CLI.tempDir()
        let r = CLI.sh("prlimit --data=150000000 \"$IMGSCALE\" fit --size 1920x --format avif '\(photo)' -o '\(dir)/out.avif'")
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("imgscale: \(photo): AVIF encoding failed: "), r.stderr)
        XCTAssertTrue(r.stderr.contains("it ran out of memory under this process's data limit of 143.1 MiB, set outside imgscale below what the budget of 512 MiB asks (raise it with ulimit -d)"), r.stderr)
        XCTAssertEqual(CLI.files(dir), [])
    }

    func testInterruptStopsTheWorkersAndSaysSo() throws {
        // The interrupt waits for the first output: a background job starts with SIGINT
        // ignored until the pool's handler is in place, and on a loaded machine (or under
        // a sanitizer) planning 200 inputs can take longer than any fixed sleep.
        let dir = CLI.tempDir()
        // The 21st input is a FIFO nobody writes: its worker waits there, so the batch is
        // still running when the interrupt comes, however fast the machine.
        XCTAssertEqual(mkfifo(dir + "/in20.jpg", 0o600), 0)
        let inputs = (0..<200).map { i -> String in
            let p = "\(dir)/in\(i).jpg"
            if i != 20 { try? FileManager.default.copyItem(atPath: CLI.testImages + "/scene-640x427.jpg", toPath: p) }
            return "'\(p)'"
        }.joined(separator: " ")
        let r = CLI.sh("\"$IMGSCALE\" fill --size 600x400 --filter lanczos -j2 --out-dir '\(dir)/out' \(inputs) & pid=$!; until [ -n \"$(ls '\(dir)/out' 2>/dev/null)\" ]; do sleep 0.05; done; kill -INT $pid; wait $pid; echo \"status $?\"; sleep 0.2; pgrep -a -x imgscale | grep -F '\(dir)/out' || true")
        XCTAssertTrue(r.stdout.hasPrefix("status 130\n"), r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("imgscale: interrupted (SIGINT) after "), r.stderr)
        XCTAssertTrue(r.stderr.contains(" of 200 inputs"), r.stderr)
        // No worker is left behind.
        XCTAssertEqual(r.stdout, "status 130\n", r.stdout)
    }

    /// A single input runs in the CLI's own process, guarded: the same line, its report
    /// line and exit status 1 when it crashes, and the same CPU bound.
    func testASingleInputIsGuardedInProcess() throws {
        let dir = CLI.tempDir()
        let input = dir + "/crash-me.png"
        try FileManager.default.copyItem(atPath: CLI.testImages + "/two-colour-8x8.png", toPath: input)
        let v = CLI.run(["fit", "-v", "--size", "4x4", CLI.testImages + "/two-colour-8x8.png", "-o", dir + "/ok.png"])
        XCTAssertTrue(v.stderr.contains("1 input on this process, isolated"), v.stderr)
        let r = CLI.sh("IMGSCALE_TEST_CRASH=crash-me \"$IMGSCALE\" fit --size 4x4 '\(input)' -o '\(dir)/out.png' --report '\(dir)/r.jsonl'")
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr, "imgscale: \(input): decoder crashed (SIGSEGV); nothing written\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.png"))
        let report = try String(contentsOfFile: dir + "/r.jsonl", encoding: .utf8)
        XCTAssertTrue(report.contains("\"status\":\"failed\",\"error\":\"decoder crashed (SIGSEGV); nothing written\""), report)
    }

    /// `info` over several files and `compare` over directories are batches too: a
    /// crash on one file costs that file's line (or pair), in order, and the rest are done.
    func testInfoAndCompareOverManyFilesSurviveACrashingFile() throws {
        let dir = CLI.tempDir()
        let names = ["a", "crash-1", "b"]
        for sub in ["exp", "act"] {
            try FileManager.default.createDirectory(atPath: "\(dir)/\(sub)", withIntermediateDirectories: true)
            for name in names {
                try FileManager.default.copyItem(atPath: CLI.testImages + "/two-colour-8x8.png", toPath: "\(dir)/\(sub)/\(name).png")
            }
        }
        let files = names.map { "'\(dir)/exp/\($0).png'" }.joined(separator: " ")
        let crashLine = "imgscale: \(dir)/exp/crash-1.png: decoder crashed (SIGSEGV); nothing written\n"
        let info = CLI.sh("IMGSCALE_TEST_CRASH=crash- \"$IMGSCALE\" info \(files)")
        XCTAssertEqual(info.status, 1, info.stderr)
        XCTAssertEqual(info.stderr, crashLine)
        let lines = info.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, info.stdout)
        XCTAssertTrue(lines.first?.hasPrefix("\(dir)/exp/a.png: PNG 8x8") == true, info.stdout)
        XCTAssertTrue(lines.last?.hasPrefix("\(dir)/exp/b.png: PNG 8x8") == true, info.stdout)
        // Without the crash, the same lines as before: the worker changes nothing else.
        let plain = CLI.sh("\"$IMGSCALE\" info \(files) --json")
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(plain.stdout.split(separator: "\n").count, 3, plain.stdout)
        // One file: guarded in this process, the same line.
        let one = CLI.sh("IMGSCALE_TEST_CRASH=crash- \"$IMGSCALE\" info '\(dir)/exp/crash-1.png'")
        XCTAssertEqual(one.status, 1, one.stderr)
        XCTAssertEqual(one.stderr, crashLine)
        XCTAssertEqual(one.stdout, "")
        for j in ["1", "2"] {
            let r = CLI.sh("IMGSCALE_TEST_CRASH=crash- \"$IMGSCALE\" compare -j\(j) '\(dir)/exp' '\(dir)/act'")
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains("imgscale: crash-1.png: decoder crashed (SIGSEGV); nothing written\n"), r.stderr)
            XCTAssertTrue(r.stderr.contains("compared 3: 2 match, 0 differ, 0 missing, 0 extra, 1 unreadable"), r.stderr)
        }
        // One pair: guarded in this process, its one line and exit 2 (unreadable).
        let pair = CLI.sh("IMGSCALE_TEST_CRASH=crash- \"$IMGSCALE\" compare '\(dir)/exp/crash-1.png' '\(dir)/act/crash-1.png'")
        XCTAssertEqual(pair.status, 2, pair.stderr)
        XCTAssertEqual(pair.stderr, "imgscale: \(dir)/act/crash-1.png: decoder crashed (SIGSEGV); nothing written\n")
        XCTAssertEqual(CLI.sh("\"$IMGSCALE\" compare '\(dir)/exp/crash-1.png' '\(dir)/act/crash-1.png'").status, 0)
    }

    /// A real library's own stderr line: dav1d prints "Unknown OBU type 9 of size 221"
    /// for an AV1 stream with a damaged OBU header. It comes out attached to its input's
    /// path, in a batch and for a single input, never as a line of its own.
    func testADecoderLibrarysOwnLineIsAttachedToItsInput() throws {
        let dir = CLI.tempDir()
        let avif = dir + "/s.avif"
        XCTAssertEqual(CLI.run(["fit", "--size", "64x", "--effort", "0", CLI.testImages + "/scene-640x427.jpg", "-o", avif]).status, 0)
        var bytes = [UInt8](try XCTUnwrap(CLI.bytes(avif)))
        let mdat = try XCTUnwrap((0..<bytes.count - 4).first { bytes[$0 ..< $0 + 4].elementsEqual("mdat".utf8) })
        for i in mdat + 12 ..< mdat + 18 { bytes[i] ^= 0xFF }
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/bad.avif"))
        var runs = [CLI.run(["fill", "--size", "32x32", dir + "/bad.avif", CLI.testImages + "/two-colour-8x8.png", "--out-dir", dir + "/o"])]
        // A single input is guarded in this process, where a sanitizer's own report must
        // reach the terminal whole, so that capture is checked without one.
        if ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] == nil {
            runs.append(CLI.run(["fill", "--size", "32x32", dir + "/bad.avif", "-o", dir + "/one.png"]))
        }
        for r in runs {
            XCTAssertEqual(r.status, 1, r.stderr)
            // One line: the reason, with what dav1d printed as its detail.
            let lines = r.stderr.split(separator: "\n").filter { $0.contains("bad.avif") }
            XCTAssertEqual(lines.count, 1, r.stderr)
            XCTAssertTrue(lines.first?.hasPrefix("imgscale: \(dir)/bad.avif: invalid AVIF: cannot decode the image") == true, r.stderr)
            XCTAssertTrue(lines.first?.contains("(the decoder printed: Unknown OBU type") == true, r.stderr)
            for line in r.stderr.split(separator: "\n") {
                XCTAssertTrue(line.hasPrefix("imgscale: "), "a line without its input: \(line)")
            }
        }
        XCTAssertEqual(CLI.files(dir + "/o"), ["two-colour-8x8.png"])
    }
}
