import XCTest
import Foundation

/// Usage errors before any work: repeated single-valued options, empty and dot names,
/// two outputs on stdout, a list that is also an output, an extension that contradicts
/// --format, a name too long for the filesystem. And what a batch must never do: block
/// on a FIFO under --if-newer, or loosen a replaced file's permissions.
final class UsagePromiseTests: XCTestCase {
    let input = CLI.testImages + "/two-colour-8x8.png"

    func usage(_ args: [String], _ message: String, cwd: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let r = CLI.run(args, cwd: cwd)
        XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)", file: file, line: line)
    }

    func testUsageErrorsComeBeforeAnyWork() throws {
        let dir = CLI.tempDir()
        usage(["convert", input, "--quality", "80", "--quality", "90", "-o", dir + "/a.jpg"], "--quality given twice ('80' and '90')")
        usage(["convert", input, "-o", dir + "/a.png", "-o", dir + "/b.png"], "--output given twice")
        usage(["convert", input, "--out-dir", dir + "/x", "--out-dir", dir + "/y"], "--out-dir given twice")
        usage(["convert", input, "--filter", "box", "--filter", "nearest", "--out-dir", dir], "--filter given twice")
        usage(["convert", input, "-o", ""], "-o needs a file name")
        for name in ["", ".", "..", "sub/"] {
            usage(["convert", input, "--out-dir", dir, "--name", name], "names no file")
        }
        usage(["convert", input, "-o", "-", "--report", "-"], "would both write to stdout")
        try (input + "\n").write(toFile: dir + "/list.txt", atomically: true, encoding: .utf8)
        usage(["convert", "--files-from", dir + "/list.txt", "--out-dir", dir + "/o", "--report", dir + "/list.txt"],
              "--report '\(dir)/list.txt' is the --files-from list")
        XCTAssertEqual(try String(contentsOfFile: dir + "/list.txt", encoding: .utf8), input + "\n")
        usage(["convert", input, "-o", dir + "/x.png", "--format", "jpeg"], "names a PNG file but --format is jpeg")
        usage(["convert", input, "--out-dir", dir + "/deep/er", "--name", String(repeating: "n", count: 300) + ".png"], "a file name has at most 255")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/deep"), "no directory made before the refusal")
        // Repeatable options and flags stay repeatable.
        XCTAssertEqual(CLI.run(["fit", "--size", "4x4", "--size", "2x2", input, "--out-dir", dir + "/s", "--name", "{w}.png", "-v", "-v"]).status, 0)
        XCTAssertEqual(CLI.run(["convert", input, "-o", dir + "/same.jpg", "--format", "jpeg"]).status, 0)
        let plan = CLI.run(["plan", "--help"])
        XCTAssertTrue(plan.stdout.contains("entropy needs the pixels"), plan.stdout)
    }

    func testIfNewerNeverReadsAFIFOAndReplacingKeepsMode() throws {
        let dir = CLI.tempDir()
        XCTAssertEqual(mkfifo(dir + "/two-colour-8x8.png", 0o644), 0)
        // Reading the FIFO would block forever: it is never up to date, so it is written.
        let r = CLI.sh("(cat '\(dir)/two-colour-8x8.png' > /dev/null &); timeout 10 \"$IMGSCALE\" convert --if-newer --out-dir '\(dir)' '\(input)'; echo \"status $?\"")
        XCTAssertTrue(r.stdout.contains("status 0"), r.stdout + r.stderr)
        let out = dir + "/kept.png"
        XCTAssertEqual(CLI.run(["convert", input, "-o", out]).status, 0)
        XCTAssertEqual(chmod(out, 0o600), 0)
        XCTAssertEqual(CLI.run(["convert", CLI.testImages + "/alpha-disc-100x100.png", "-o", out]).status, 0)
        var st = stat()
        XCTAssertEqual(stat(out, &st), 0)
        XCTAssertEqual(st.st_mode & 0o7777, 0o600)
        XCTAssertEqual(CLI.size(out), "100x100")
        // A golden updated by compare keeps its mode too.
        let golden = dir + "/golden.png"
        XCTAssertEqual(CLI.run(["convert", input, "-o", golden]).status, 0)
        XCTAssertEqual(chmod(golden, 0o640), 0)
        XCTAssertEqual(CLI.run(["compare", golden, CLI.testImages + "/alpha-disc-100x100.png", "--update", "all"]).status, 0)
        XCTAssertEqual(stat(golden, &st), 0)
        XCTAssertEqual(st.st_mode & 0o7777, 0o640)
    }

    /// What was asked for and not done is said: a palette for a photo, 16 bits made 8.
    func testSilentDropsAreSaid() throws {
        let dir = CLI.tempDir()
        let photo = CLI.run(["convert", "--palette", CLI.testImages + "/scene-640x427.png", "-o", dir + "/p.png"])
        XCTAssertEqual(photo.status, 0)
        XCTAssertTrue(photo.stderr.contains("warning: --palette: more than 256 colours, so written as RGB PNG"), photo.stderr)
        let few = CLI.run(["convert", "--palette", input, "-o", dir + "/q.png"])
        XCTAssertEqual(few.stderr, "")
        let deep = CLI.run(["fit", "-v", "--size", "8x8", CLI.testImages + "/gray16-33x17.png", "-o", dir + "/g.png"])
        XCTAssertTrue(deep.stderr.contains("its 16-bit samples written as 8-bit"), deep.stderr)
    }
}
