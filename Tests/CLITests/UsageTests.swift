import XCTest
import Foundation

final class UsageTests: XCTestCase {
    func testVersionAndHelp() {
        let v = CLI.run(["--version"])
        XCTAssertEqual(v.status, 0)
        XCTAssertTrue(v.stdout.hasPrefix("imgscale "))
        let h = CLI.run(["--help"])
        XCTAssertEqual(h.status, 0)
        for command in ["fill", "crop", "fit", "plan", "convert", "info", "compare", "merge-reports"] {
            XCTAssertTrue(h.stdout.contains("  \(command) "), "help lists \(command)")
            let c = CLI.run([command, "--help"])
            XCTAssertEqual(c.status, 0)
            XCTAssertTrue(c.stdout.hasPrefix("usage: imgscale \(command)"))
            XCTAssertTrue(c.stdout.contains("examples:"))
        }
    }

    func testUsageErrorsExit2AndWriteNothing() {
        let dir = CLI.tempDir()
        let input = CLI.testImages + "/scene-640x427.png"
        let out = dir + "/out.png"
        let cases: [([String], String)] = [
            (["frobnicate"], "unknown command"),
            ([], "no command"),
            (["fill", "--size", "64x64", "--bogus", input, "-o", out], "unknown option '--bogus'"),
            (["filll", "--size", "64x64", input, "-o", out], "unknown command 'filll'; did you mean 'fill'?"),
            (["fill", "--szie", "64x64", input, "-o", out], "unknown option '--szie'; did you mean '--size'?"),
            (["fit", "--size", "64x64", "--fail-of", "none", input, "-o", out], "did you mean '--fail-on'?"),
            // A peer's spelling gets imgscale's, not the nearest word ('--shard').
            (["fill", "--size", "64x64", "--smartcrop", "attention", input, "-o", out], "unknown option '--smartcrop'; imgscale says --gravity entropy"),
            (["fill", "--size", "64x64", "--smart", input, "-o", out], "imgscale says --gravity entropy"),
            (["fit", "--size", "64x64", "--strip", input, "-o", out], "metadata is dropped unless --keep-metadata"),
            (["fill", "--size", "64x64", "--gravity", "centr", input, "-o", out], "--gravity must be one of centre|north"),
            (["fill", "--size", "64x64", "--fail-on", "warnings", input, "-o", out], "did you mean 'warning'?"),
            (["fill", "--size", input, "-o", out], "--size must be WIDTHxHEIGHT"),
            (["fill", "--size", "0x10", input, "-o", out], "positive integers"),
            (["fill", "--size", "ax", input, "-o", out], "not 'ax'"),
            (["fill", "--size", "64x", input, "-o", out], "WIDTHxHEIGHT"),
            (["fill", "--size", "-5x5", input, "-o", out], "WIDTHxHEIGHT"),
            (["fill", input, "-o", out], "needs --size"),
            (["fill", "--size", "64x64", "--from", "1,2,3", input, "-o", out], "X,Y,W,H"),
            (["fill", "--size", "64x64", "--from", "1,2,3,0", input, "-o", out], "X,Y,W,H"),
            (["crop", "--rect", "a,b,c,d", input, "-o", out], "X,Y,W,H"),
            (["fill", "--size", "64x64", "--origin", "middle", input, "-o", out], "top-left|bottom-left"),
            (["convert", input, "-o", out, "--quality", "0"], "--quality must be an integer from 1 to 100"),
            (["convert", input, "-o", out, "--quality", "abc"], "--quality"),
            (["convert", input, "-o", out, "--compression", "10"], "--compression"),
            (["convert", input, "-o", out, "--background", "reddish"], "--background"),
            (["convert", input, "-o", dir + "/out.svg"], "imgscale writes PNG, JPEG"),
            (["convert", input, "-o"], "needs a value"),
            (["convert", input, input, "-o", out], "-o takes exactly one input"),
            (["convert", input], "no output"),
            (["plan", "--source", "10x10"], "needs --size"),
            (["plan", "--source", "10x10", "--size", "5x5", "--orientation", "9"], "--orientation"),
            (["info"], "no input files"),
            (["fill", "--size", "64x64", "-j", "0", input, "-o", out], "--jobs"),
            (["fill", "--size", "64x64", "--files-from", "-", "-", "-o", out], "cannot be both"),
            (["fill", "--size", "64x64", "--out-dir", out, input, "--name", "{nope}.png"], "unknown token {nope}"),
            (["fill", "--size", "64x64", "--shard", "3", input, "-o", out], "--shard must be K/N"),
        ]
        for (args, message) in cases {
            let r = CLI.run(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): expected '\(message)' in \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("usage: imgscale"), "\(args) shows the usage line")
        }
        XCTAssertEqual(CLI.files(dir), [], "nothing written")
    }

    func testGNUStyleOptions() {
        let dir = CLI.tempDir()
        let input = CLI.testImages + "/scene-640x427.png"
        XCTAssertEqual(CLI.run([input, "-o", dir + "/a.png", "--size=32x16", "fill"].rotatedCommandFirst).status, 0)
        XCTAssertEqual(CLI.size(dir + "/a.png"), "32x16")
        XCTAssertEqual(CLI.run(["fill", input, "--size", "20x20", "-j2", "-o" + dir + "/b.jpg"]).status, 0)
        XCTAssertEqual(CLI.size(dir + "/b.jpg"), "20x20")
        // After --, a name starting with '-' is an input.
        try! FileManager.default.copyItem(atPath: input, toPath: dir + "/-odd name.png")
        XCTAssertEqual(CLI.run(["fill", "--size", "8x8", "-o", dir + "/c.png", "--", "-odd name.png"], cwd: dir).status, 0)
        XCTAssertEqual(CLI.size(dir + "/c.png"), "8x8")
        // '-' reads stdin, '-o -' writes stdout.
        let r = CLI.run(["fill", "--size", "10x10", "-", "-o", "-", "--format", "png"], stdin: CLI.bytes(input))
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.stdout.utf8.starts(with: [0xEF, 0xBF, 0xBD, 0x50, 0x4E, 0x47]) || r.stdout.contains("PNG"))
    }
}

private extension Array where Element == String {
    /// The same arguments with the command word moved to the front.
    var rotatedCommandFirst: [String] { [last!] + dropLast() }
}
