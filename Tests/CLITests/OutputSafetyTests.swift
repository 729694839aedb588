import XCTest
import Foundation
import ImageScaler

/// What an output may and may not do to the files around it, tried through the CLI as
/// a user (and an attacker) would: devices and FIFOs are written through, symlinks stay,
/// nothing that is an input or another output is ever replaced, and temporaries neither
/// overflow NAME_MAX nor outlive a killed run.
final class OutputSafetyTests: XCTestCase {
    let scene = CLI.testImages + "/scene-640x427.jpg"

    func fileType(_ path: String) -> FileAttributeType? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.type]) as? FileAttributeType
    }

    func testDevicesFifosAndDescriptorsAreWrittenThrough() throws {
        let null = CLI.run(["fill", "--size", "16x16", scene, "-o", "/dev/null"])
        XCTAssertEqual(null.status, 0, null.stderr)
        XCTAssertEqual(fileType("/dev/null"), .typeCharacterSpecial)
        let full = CLI.run(["fill", "--size", "16x16", scene, "-o", "/dev/full"])
        XCTAssertEqual(full.status, 1)
        XCTAssertTrue(full.stderr.contains("No space left on device"), full.stderr)
        XCTAssertEqual(fileType("/dev/full"), .typeCharacterSpecial)
        let dir = CLI.tempDir()
        // >(cmd) is /dev/fd/N: the bytes reach the command.
        let fd = CLI.sh("\"$IMGSCALE\" fill --size 16x16 '\(scene)' -o >(cat > got.jpg); wait; sleep 0.2", cwd: dir)
        XCTAssertEqual(fd.status, 0, fd.stderr)
        XCTAssertEqual(CLI.size(dir + "/got.jpg"), "16x16")
        // A FIFO stays a FIFO, and its reader gets the whole image.
        let fifo = CLI.sh("mkfifo pipe && (cat pipe > fromfifo.png &) && \"$IMGSCALE\" fill --size 16x16 '\(scene)' -o pipe && sleep 0.2", cwd: dir)
        XCTAssertEqual(fifo.status, 0, fifo.stderr)
        XCTAssertTrue(CLI.sh("test -p pipe", cwd: dir).status == 0, "still a FIFO")
        XCTAssertEqual(CLI.size(dir + "/fromfifo.png"), "16x16")
    }

    func testSymlinkedOutputKeepsTheLink() throws {
        let dir = CLI.tempDir()
        try FileManager.default.createDirectory(atPath: dir + "/real", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir + "/real/t.jpg", contents: Data("old".utf8))
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.jpg", withDestinationPath: "real/t.jpg")
        XCTAssertEqual(CLI.run(["fill", "--size", "16x16", scene, "-o", dir + "/link.jpg"]).status, 0)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link.jpg"), "real/t.jpg")
        XCTAssertEqual(CLI.size(dir + "/real/t.jpg"), "16x16")
        XCTAssertEqual(CLI.files(dir + "/real"), ["t.jpg"], "no temporary left beside the target")
        // A dangling link names the file to create.
        try FileManager.default.createSymbolicLink(atPath: dir + "/new.jpg", withDestinationPath: "real/new.jpg")
        XCTAssertEqual(CLI.run(["fill", "--size", "16x16", scene, "-o", dir + "/new.jpg"]).status, 0)
        XCTAssertEqual(CLI.size(dir + "/real/new.jpg"), "16x16")
        XCTAssertEqual(fileType(dir + "/new.jpg"), .typeSymbolicLink)
    }

    func testNoOutputIsAnInput() throws {
        let dir = CLI.tempDir()
        try FileManager.default.copyItem(atPath: scene, toPath: dir + "/victim.jpg")
        try FileManager.default.createSymbolicLink(atPath: dir + "/alias.jpg", withDestinationPath: "victim.jpg")
        let before = CLI.bytes(dir + "/victim.jpg")
        let cases: [[String]] = [
            ["fill", "--size", "8x8", dir + "/victim.jpg", "-o", dir + "/out.png", "--report", dir + "/victim.jpg"],
            ["fill", "--size", "8x8", dir + "/victim.jpg", "-o", dir + "/out.png", "--report", dir + "/alias.jpg"],
            ["fill", "--size", "8x8", dir + "/victim.jpg", "-o", dir + "/out.png", "--report", dir + "/out.png"],
            ["fill", "--size", "8x8", dir + "/victim.jpg", "-o", dir + "/alias.jpg"],
            ["compare", dir + "/victim.jpg", scene, "--diff", dir + "/alias.jpg"],
        ]
        for args in cases {
            let r = CLI.run(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("usage: imgscale"), r.stderr)
        }
        XCTAssertEqual(CLI.bytes(dir + "/victim.jpg"), before)
        XCTAssertEqual(CLI.files(dir), ["alias.jpg", "victim.jpg"])
    }

    func testOutputsThatMeetOrLeaveTheDirectoryAreUsageErrors() throws {
        let dir = CLI.tempDir()
        for sub in ["a", "b", "s1", "s2"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: scene, toPath: dir + "/\(sub)/x.jpg")
        }
        try FileManager.default.createDirectory(atPath: dir + "/out/s1", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/out/s2", withDestinationPath: "s1")
        // Inputs meeting in one file fail (exit 1, nothing written); leaving is a usage error.
        let cases: [([String], String, Int32)] = [
            (["a/x.jpg", "b/x.jpg", "--name", "{dir}/../{name}"], "would both write", 1),
            (["s1/x.jpg", "s2/x.jpg", "--name", "{dir}/{name}"], "would both write", 1),
            (["../\(URL(fileURLWithPath: dir).lastPathComponent)/a/x.jpg", "--name", "{dir}/{name}"], "outside --out-dir", 2),
            ([dir + "/a/x.jpg", "--name", "{dir}/{name}"], "outside --out-dir", 2),
        ]
        for (args, message, status) in cases {
            let r = CLI.run(["fill", "--size", "8x8", "--out-dir", "out"] + args, cwd: dir)
            XCTAssertEqual(r.status, status, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        XCTAssertEqual(CLI.files(dir + "/out/s1"), [], "nothing written")
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", "--out-dir", "out", "a/x.jpg", "s1/x.jpg", "--name", "{dir}/{name}"], cwd: dir).status, 0)
        XCTAssertEqual(CLI.files(dir + "/out/a"), ["x.jpg"])
    }

    func testTemporaryNamesFitAndStaleOnesAreRemoved() throws {
        let dir = CLI.tempDir()
        // 250 bytes: a legal name that a name-derived temporary would push past NAME_MAX.
        let long = String(repeating: "n", count: 246) + ".jpg"
        for _ in 0..<3 {
            let r = CLI.run(["fill", "--size", "8x8", scene, "-o", dir + "/" + long])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        XCTAssertEqual(CLI.files(dir), [long])
        let (stale, live) = try Self.temporaryNames()
        _ = FileManager.default.createFile(atPath: dir + "/" + stale, contents: Data("half".utf8))
        _ = FileManager.default.createFile(atPath: dir + "/" + live, contents: Data("busy".utf8))
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", scene, "-o", dir + "/" + long]).status, 0)
        XCTAssertEqual(CLI.files(dir), [live, long], "the dead run's temporary is gone; PID 1's is not ours to remove")
    }

    /// What a run killed between link and rename leaves (this host's name, a dead PID), and
    /// a live run's (PID 1).
    private static func temporaryNames() throws -> (stale: String, live: String) {
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, 255)
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let host = String(name.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) && $0.isASCII || $0 == "." }.prefix(40).map(Character.init))
        return (".imgscale-\(host)-\(dead.processIdentifier)-1.tmp", ".imgscale-\(host)-1-1.tmp")
    }

    /// In a large directory a run replacing one file does not read it for debris (a shell
    /// loop over it would read it once a file); a process replacing two there does, once
    /// (`-j1`: at `-j2` each of the two files would go to a worker process of its own).
    func testLargeDirectoryIsReadForDebrisOnlyByBatches() throws {
        let dir = CLI.tempDir(), src = CLI.tempDir()
        for name in ["a.jpg", "b.jpg"] { try FileManager.default.copyItem(atPath: scene, toPath: src + "/" + name) }
        for i in 0..<4000 { _ = FileManager.default.createFile(atPath: dir + "/photo-\(i).jpg", contents: nil) }
        var st = stat()
        XCTAssertEqual(stat(dir, &st), 0)
        XCTAssertGreaterThan(Int(st.st_size), 64 * 1024, "the directory must be past the size read at once for the test to mean anything")
        let batch = ["fill", "--size", "8x8", "-j1", src + "/a.jpg", src + "/b.jpg", "--out-dir", dir, "-q"]
        XCTAssertEqual(CLI.run(batch).status, 0)
        let stale = try Self.temporaryNames().stale
        _ = FileManager.default.createFile(atPath: dir + "/" + stale, contents: Data("half".utf8))
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", src + "/a.jpg", "-o", dir + "/a.jpg"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/" + stale), "one replacement leaves the directory unread")
        XCTAssertEqual(CLI.run(batch).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/" + stale), "two replacements read it, and the debris goes")
        XCTAssertEqual(CLI.files(dir).count, 4002)
    }

    func testOutputsWithoutImageExtensionTakeTheInputsFormat() throws {
        let dir = CLI.tempDir()
        try FileManager.default.copyItem(atPath: scene, toPath: dir + "/IMG_0001")
        try FileManager.default.copyItem(atPath: CLI.testImages + "/alpha-disc-100x100.png", toPath: dir + "/upload.dat")
        _ = FileManager.default.createFile(atPath: dir + "/notes.txt", contents: Data("hello\n".utf8))
        _ = FileManager.default.createFile(atPath: dir + "/.DS_Store", contents: Data([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31]))
        let list = ["IMG_0001", "notes.txt", ".DS_Store", "upload.dat"].map { dir + "/" + $0 }.joined(separator: "\n")
        let r = CLI.run(["fill", "--size", "8x8", "--out-dir", dir + "/out", "--files-from", "-"], stdin: Data(list.utf8))
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("imgscale: \(dir)/notes.txt: not a PNG, JPEG"), r.stderr)
        XCTAssertTrue(r.stderr.contains("imgscale: 2 ok, 2 failed"), r.stderr)
        XCTAssertEqual(CLI.files(dir + "/out"), ["IMG_0001", "upload.dat"])
        XCTAssertTrue(CLI.run(["info", dir + "/out/IMG_0001"]).stdout.contains("JPEG 8x8"))
        XCTAssertTrue(CLI.run(["info", dir + "/out/upload.dat"]).stdout.contains("PNG 8x8"))
        // -o - needs no --format when the input's is known.
        let stdout = CLI.sh("\"$IMGSCALE\" fill --size 8x8 '\(scene)' -o - > piped && od -An -tx1 -N3 piped", cwd: dir)
        XCTAssertEqual(stdout.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "ff d8 ff")
        // An image extension imgscale cannot write fails that input alone.
        let gif = CLI.run(["fill", "--size", "8x8", "--out-dir", dir + "/g", "--name", "{stem}.svg", dir + "/IMG_0001"])
        XCTAssertEqual(gif.status, 1)
        XCTAssertTrue(gif.stderr.contains("imgscale writes PNG, JPEG"), gif.stderr)
    }

    func testFileNamesAreBytes() throws {
        let dir = CLI.tempDir()
        // caf\xe9.jpg (Latin-1) is the photo; café.jpg (UTF-8) is another image, which a
        // name repaired to U+FFFD or re-encoded would pick up instead.
        let made = CLI.sh("cp '\(scene)' \"$(printf 'caf\\351.jpg')\" && cp '\(CLI.testImages)/alpha-disc-100x100.png' café.jpg", cwd: dir)
        XCTAssertEqual(made.status, 0, made.stderr)
        let r = CLI.sh("\"$IMGSCALE\" fit --size 64x64 \"$(printf 'caf\\351.jpg')\" -o \"$(printf 'out\\351.png')\" --report rep.jsonl && \"$IMGSCALE\" info \"$(printf 'out\\351.png')\"", cwd: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("out\\xe9.png: PNG 64x43"), r.stdout)
        let report = try String(contentsOfFile: dir + "/rep.jsonl", encoding: .utf8)
        XCTAssertTrue(report.contains(#""input":"caf"# + "\u{FFFD}" + #".jpg","input_hex":"636166e92e6a7067","output":"out"# + "\u{FFFD}" + #".png","output_hex":"6f7574e92e706e67","status":"ok""#), report)
        // The same through --files-from, and a broken file with a control character in its
        // name gets exactly one line.
        let listed = CLI.sh("printf 'caf\\351.jpg\\0bad\\nname\\033.jpg\\0' > list && printf 'junk' > \"$(printf 'bad\\nname\\033.jpg')\" && \"$IMGSCALE\" fill --size 8x8 --files-from list --null --out-dir o --report -", cwd: dir)
        XCTAssertEqual(listed.status, 1)
        XCTAssertEqual(listed.stderr.split(separator: "\n").filter { $0.contains("bad") }, ["imgscale: bad\\nname\\x1b.jpg: not a \(ImageFormat.names(ImageFormat.allCases, or: true)) file (unrecognised signature)"])
        for line in listed.stdout.split(separator: "\n") {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)), String(line))
        }
        XCTAssertEqual(CLI.sh("ls o | od -c | head -1", cwd: dir).stdout.contains("c   a   f 351   .   j   p   g"), true)
    }
}
