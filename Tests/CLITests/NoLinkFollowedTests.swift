import XCTest
import Foundation
import ImageScaler

/// Files imgscale finds or is handed by a program (goldens walked, the manifest, rules,
/// masks, export profiles, a server's paths) are read and written only as regular files:
/// a link is never followed, a FIFO never waited on, another pair's golden never
/// overwritten. Each case is one an attacker's round broke before.
final class NoLinkFollowedTests: XCTestCase {
    private func png(_ path: String, _ pixel: [UInt8] = [1, 2, 3]) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let image = try PixelBuffer(width: 2, height: 2, channels: 3, pixels: Array([[UInt8]](repeating: pixel, count: 4).joined()))
        try ImageFile.write(try ImageCodec.encode(image, as: .png), to: path)
    }

    private func link(_ path: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    func testPruneRemovesOnlyRegularGoldensAndNamesEachLink() throws {
        let dir = CLI.tempDir()
        try png(dir + "/goldens/a.png")
        try png(dir + "/actual/a.png")
        try png(dir + "/goldens/old/stale.png")
        try png(dir + "/victim/keep.png")
        try png(dir + "/victim/deep/keep2.png")
        try link(dir + "/goldens/linked", to: "../victim")
        try link(dir + "/goldens/l.png", to: "../victim/keep.png")
        let r = CLI.run(["compare", dir + "/goldens", dir + "/actual", "--update", "prune"])
        // The links are failures (their goldens go unchecked), each named in one line.
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("goldens/linked: a symbolic link"), r.stderr)
        XCTAssertTrue(r.stderr.contains("goldens/l.png: a symbolic link"), r.stderr)
        XCTAssertTrue(r.stderr.contains("pruned \(dir)/goldens/old/stale.png"), r.stderr)
        for kept in ["/victim/keep.png", "/victim/deep/keep2.png", "/goldens/a.png"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir + kept), kept)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/goldens/old"))
        XCTAssertNotNil(try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/goldens/linked"))
        XCTAssertNotNil(try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/goldens/l.png"))
        // --update all writes no golden through a link in the goldens' tree.
        try png(dir + "/actual/linked/new.png", [9, 9, 9])
        let update = CLI.run(["compare", dir + "/goldens", dir + "/actual", "--update", "all"])
        XCTAssertEqual(update.status, 2, update.stderr)
        XCTAssertTrue(update.stderr.contains("goldens/linked is a symbolic link, which --update neither follows nor replaces"), update.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/victim/new.png"))
    }

    func testTheManifestIsNeverWrittenThroughALinkNorWaitedOnAsAFIFO() throws {
        let dir = CLI.tempDir()
        try png(dir + "/in.png")
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        try "keep\n".write(toFile: dir + "/victim.txt", atomically: true, encoding: .utf8)
        try link(dir + "/out/.imgscale-manifest", to: "../victim.txt")
        let r = CLI.run(["fill", dir + "/in.png", "--size", "1x1", "-o", dir + "/out/t.png", "--if-changed"])
        XCTAssertEqual(try String(contentsOfFile: dir + "/victim.txt", encoding: .utf8), "keep\n")
        XCTAssertTrue(r.stderr.contains("it is a symbolic link, which imgscale neither follows nor replaces"), r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/out/t.png"))
        // A FIFO: the run neither blocks on reading it nor on writing it.
        try FileManager.default.createDirectory(atPath: dir + "/out2", withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(dir + "/out2/.imgscale-manifest", 0o644), 0)
        let fifo = CLI.sh("timeout 20 \"$IMGSCALE\" fill in.png --size 1x1 -o out2/t.png --if-changed; echo \"exit $?\"", cwd: dir)
        XCTAssertTrue(fifo.stdout.contains("exit 0"), fifo.stdout + fifo.stderr)
        XCTAssertTrue(fifo.stderr.contains("out2/.imgscale-manifest: is a FIFO, not a regular file"), fifo.stderr)
        // --export-profile, a mask and a rules file that are FIFOs fail at once in one line.
        XCTAssertEqual(mkfifo(dir + "/profile.icc", 0o644), 0)
        XCTAssertEqual(mkfifo(dir + "/mask.png", 0o644), 0)
        let profile = CLI.sh("timeout 20 \"$IMGSCALE\" fill in.png --size 1x1 -o t.png --export-profile profile.icc; echo \"exit $?\"", cwd: dir)
        XCTAssertTrue(profile.stdout.contains("exit 2") && profile.stderr.contains("is a FIFO, not a regular file"), profile.stdout + profile.stderr)
        let mask = CLI.sh("timeout 20 \"$IMGSCALE\" compare in.png in.png --mask mask.png; echo \"exit $?\"", cwd: dir)
        XCTAssertTrue(mask.stdout.contains("exit 2") && mask.stderr.contains("is a FIFO, not a regular file"), mask.stdout + mask.stderr)
        try png(dir + "/profile-real.png")
        try link(dir + "/profile-link.icc", to: "profile-real.png")
        let linked = CLI.run(["fill", "in.png", "--size", "1x1", "-o", "t.png", "--export-profile", "profile-link.icc"], cwd: dir)
        XCTAssertEqual(linked.status, 2)
        XCTAssertTrue(linked.stderr.contains("is a symbolic link, which imgscale does not follow here"), linked.stderr)
    }

    func testAFIFOInputNamedByItsProducedSizeFailsAloneInsteadOfHangingTheBatch() throws {
        let dir = CLI.tempDir()
        try png(dir + "/in.png")
        XCTAssertEqual(mkfifo(dir + "/pipe.png", 0o644), 0)
        // A writer that gives the FIFO one image, as a user's `cat a.png > pipe.png &` would;
        // the naming must not take its bytes and leave the job waiting for more.
        let r = CLI.sh("(exec cat in.png > pipe.png) 2>/dev/null &\n"
                       + "timeout 30 \"$IMGSCALE\" fill in.png pipe.png --size 4x2 --name '{stem}-{width}x{height}.png' --out-dir out; echo \"exit $?\"\n"
                       + "exec 3<>pipe.png; exec 3<&-\n", cwd: dir)
        XCTAssertTrue(r.stdout.contains("exit 1"), r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("pipe.png: is a FIFO, which --name {width} or {height} would read twice"), r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/out/in-4x2.png"))
    }

    func testRulesMasksStayInsideTheGoldensAndAreReachedWithoutLinks() throws {
        let dir = CLI.tempDir()
        try png(dir + "/goldens/a.png")
        try png(dir + "/actual/a.png")
        try png(dir + "/outside.png", [255, 255, 255])
        let rules = dir + "/goldens/imgscale-goldens.json"
        try #"{"rules": [{"match": "a.png", "mask": "../outside.png"}]}"#.write(toFile: rules, atomically: true, encoding: .utf8)
        let up = CLI.run(["compare", dir + "/goldens", dir + "/actual"])
        XCTAssertEqual(up.status, 2)
        XCTAssertTrue(up.stderr.contains("leaves the goldens directory"), up.stderr)
        XCTAssertEqual(up.stderr.split(separator: "\n").count, 1, up.stderr)
        try link(dir + "/goldens/masks", to: "..")
        try #"{"rules": [{"match": "a.png", "mask": "masks/outside.png"}]}"#.write(toFile: rules, atomically: true, encoding: .utf8)
        let through = CLI.run(["compare", dir + "/goldens", dir + "/actual"])
        XCTAssertEqual(through.status, 2)
        XCTAssertTrue(through.stderr.contains("goldens/masks is a symbolic link; a mask is a regular file inside the goldens"), through.stderr)
    }

    func testAServerRequestNeverOverwritesAComparedImageNorReadsALinkOrFIFO() throws {
        let dir = CLI.tempDir()
        try png(dir + "/goldens/a.png")
        try png(dir + "/goldens/b.png", [4, 5, 6])
        try png(dir + "/out/a.png", [7, 7, 7])
        try png(dir + "/out/b.png", [8, 8, 8])
        let golden = try Data(contentsOf: URL(fileURLWithPath: dir + "/goldens/a.png"))
        XCTAssertEqual(mkfifo(dir + "/out/fifo.png", 0o644), 0)
        try link(dir + "/out/l.png", to: "b.png")
        let requests = [
            #"{"expected": "goldens/a.png", "actual": "out/a.png"}"#,
            #"{"expected": "goldens/b.png", "actual": "out/b.png", "diff": "goldens/a.png"}"#,
            #"{"expected": "goldens/b.png", "actual": "out/b.png", "diff": "goldens/new.diff.png"}"#,
            #"{"expected": "goldens/b.png", "actual": "out/fifo.png"}"#,
            #"{"expected": "goldens/b.png", "actual": "out/l.png"}"#,
            #"{"expected": "goldens/b.png", "actual": "out/b.png", "diff": "out/l.png"}"#,
            #"{"expected": "goldens/b.png", "actual": "out/b.png", "diff": "diffs/b.png"}"#,
        ].joined(separator: "\n") + "\n"
        try requests.write(toFile: dir + "/requests", atomically: true, encoding: .utf8)
        let r = CLI.sh("timeout 30 \"$IMGSCALE\" compare --server < requests; echo \"exit $?\"", cwd: dir)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 8, r.stdout + r.stderr)
        guard lines.count == 8 else { return }
        XCTAssertTrue(lines[0].contains("\"result\":\"differ\""), lines[0])
        XCTAssertTrue(lines[1].contains("is an image this server has compared"), lines[1])
        XCTAssertTrue(lines[2].contains("lies inside") && lines[2].contains("goldens"), lines[2])
        XCTAssertTrue(lines[3].contains("out/fifo.png: is a FIFO, not a regular file"), lines[3])
        XCTAssertTrue(lines[4].contains("out/l.png: is a symbolic link"), lines[4])
        XCTAssertTrue(lines[5].contains("\\\"diff\\\" out/l.png is a symbolic link"), lines[5])
        XCTAssertTrue(lines[6].contains("\"result\":\"differ\""), lines[6])
        XCTAssertEqual(lines[7], "exit 0")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/goldens/a.png")), golden)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/goldens/new.diff.png"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/diffs/b.png"))
    }

    func testAnOverlongServerLineIsSkippedAtReadSpeed() throws {
        let dir = CLI.tempDir()
        try png(dir + "/a.png")
        // 200 MB in one line, then a request: at the old byte-at-a-time skip (2.7 MB/s)
        // this took over a minute; at 100 MB/s it is 2 s.
        let script = """
        python3 -c 'import sys; sys.stdout.write("{\\"x\\":\\"" + "a" * 200_000_000 + "\\"}\\n{\\"expected\\":\\"a.png\\",\\"actual\\":\\"a.png\\"}\\n")' > big
        start=$(date +%s%N); timeout 60 "$IMGSCALE" compare --server < big; echo "exit $? ms $(( ($(date +%s%N) - start) / 1000000 ))"; rm big
        """
        let r = CLI.sh(script, cwd: dir)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, r.stdout + r.stderr)
        guard lines.count == 3 else { return }
        XCTAssertTrue(lines[0].contains("\"request\":1") && lines[0].contains("longer than 1 MiB"), lines[0])
        XCTAssertTrue(lines[1].contains("\"request\":2") && lines[1].contains("\"result\":\"match\""), lines[1])
        let ms = Int(lines[2].split(separator: " ").last ?? "") ?? .max
        XCTAssertTrue(lines[2].hasPrefix("exit 0"), lines[2])
        XCTAssertLessThan(ms, 2_000, "200 MB skipped at \(200_000 / max(ms, 1)) MB/s")
    }
}
