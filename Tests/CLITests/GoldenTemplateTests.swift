import XCTest
import Foundation

/// `--goldens-template '{dir}/{platform}/{path}'` through pairs, directories and the
/// server: the platform's golden compared where it is, the plain one only with
/// `--fallback` (and the JSON says so), a missing one an extra image, bad templates and
/// stray options usage errors.
final class GoldenTemplateTests: XCTestCase {
    func testPlatformGoldensThroughEveryMode() throws {
        let dir = CLI.tempDir(), g = dir + "/goldens", act = dir + "/actual"
        let scene = CLI.testImages + "/scene-640x427.png", strokes = CLI.testImages + "/strokes-130x90.png"
        for (src, out) in [(scene, g + "/home.png"), (scene, g + "/linux/menu.png"), (strokes, g + "/darwin/menu.png"),
                           (scene, act + "/home.png"), (scene, act + "/menu.png")] {
            XCTAssertEqual(CLI.run(["fill", "--size", "64x48", src, "-o", out]).status, 0)
        }
        let t = ["--goldens-template", "{dir}/{platform}/{path}"]
        // Linux renders: menu has its own golden, home only the plain one.
        let strict = CLI.run(["compare", g, act, "--platform", "linux", "--json"] + t)
        XCTAssertEqual(strict.status, 1, strict.stdout)
        XCTAssertTrue(strict.stdout.contains(#""golden":"missing","platform":"linux","expected":"\#(g)/linux/home.png""#), strict.stdout)
        XCTAssertTrue(strict.stdout.contains(#""golden":"platform","platform":"linux","expected":"\#(g)/linux/menu.png","actual":"\#(act)/menu.png","result":"match""#), strict.stdout)
        let loose = CLI.run(["compare", g, act, "--platform", "linux", "--fallback", "--json"] + t)
        XCTAssertEqual(loose.status, 0, loose.stdout + loose.stderr)
        XCTAssertTrue(loose.stdout.contains(#""golden":"fallback","platform":"linux","expected":"\#(g)/home.png""#), loose.stdout)
        // The macOS golden differs from these renders.
        let mac = CLI.run(["compare", g, act, "--platform", "darwin", "--fallback"] + t)
        XCTAssertEqual(mac.status, 1)
        XCTAssertTrue(mac.stdout.contains("menu.png: differ"), mac.stdout)
        // A pair, and the server.
        let pair = CLI.run(["compare", g + "/menu.png", act + "/menu.png", "--platform", "linux", "--json"] + t)
        XCTAssertEqual(pair.status, 0, pair.stdout)
        XCTAssertTrue(pair.stdout.hasPrefix(#"{"golden":"platform","platform":"linux","expected":"\#(g)/linux/menu.png""#), pair.stdout)
        let request = #"{"expected":"\#(g)/home.png","actual":"\#(act)/home.png"}"# + "\n" + #"{"expected":"\#(g)/menu.png","actual":"\#(act)/menu.png"}"# + "\n"
        let server = CLI.run(["compare", "--server", "--platform", "darwin"] + t, stdin: Data(request.utf8))
        let lines = server.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, server.stdout)
        XCTAssertTrue(lines[0].contains(#""golden":"missing""#) && lines[0].contains(#""result":"missing""#), String(lines[0]))
        XCTAssertTrue(lines[1].contains(#""golden":"platform""#) && lines[1].contains(#""result":"differ""#), String(lines[1]))
        // --update missing records the platform's golden.
        let record = CLI.run(["compare", g, act, "--platform", "freebsd", "--update", "missing"] + t)
        XCTAssertEqual(record.status, 0, record.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: g + "/freebsd/home.png") && FileManager.default.fileExists(atPath: g + "/freebsd/menu.png"))
        for (bad, says) in [(["--goldens-template", "{dir}/{os}/{path}"], "takes {dir}, {platform} and {path}"),
                            (["--goldens-template", "{dir}/{platform}"], "which it must name"),
                            (["--fallback"], "--fallback applies to --goldens-template"),
                            (["--platform", "../x"] + t, "--platform is a name")] {
            let r = CLI.run(["compare", g, act] + bad)
            XCTAssertEqual(r.status, 2, bad.joined(separator: " "))
            XCTAssertTrue(r.stderr.contains(says), r.stderr)
        }
    }
}

/// docs/golden-testing.md's recipe for macOS and Linux sharing a suite, run as printed on
/// a suite with one shared golden and one that differs by platform.
final class GoldenTemplateRecipeTests: XCTestCase {
    func testTheDocsRecipeAsPrinted() throws {
        let docs = try String(contentsOfFile: CLI.root + "/docs/golden-testing.md", encoding: .utf8)
        let marker = "A recipe in which macOS and Linux renders share a suite:\n\n```sh\n"
        let start = try XCTUnwrap(docs.range(of: marker)).upperBound
        let block = String(docs[start...]).components(separatedBy: "\n```")[0]
        let commands = block.split(separator: "\n").filter { $0.hasPrefix("imgscale ") }.map(String.init)
        XCTAssertEqual(commands.count, 2, block)
        let dir = CLI.tempDir()
        let scene = CLI.testImages + "/scene-640x427.png", strokes = CLI.testImages + "/strokes-130x90.png"
        // Shared: home; Linux's own: menu (the shared menu golden is another picture).
        for (src, out) in [(scene, "goldens/home.png"), (strokes, "goldens/menu.png"), (scene, "goldens/linux/menu.png"),
                           (scene, "out/home.png"), (scene, "out/menu.png")] {
            XCTAssertEqual(CLI.run(["fill", "--size", "64x48", src, "-o", dir + "/" + out]).status, 0)
        }
        let path = "PATH='\(URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().path)':\"$PATH\""
        let check = CLI.sh("cd '\(dir)' && \(path) \(commands[0]) --platform linux 2>&1")
        XCTAssertEqual(check.status, 0, check.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/compare.xml"))
        // On a platform with no goldens of its own, the shared menu differs: recorded as its own.
        XCTAssertEqual(CLI.sh("cd '\(dir)' && \(path) \(commands[0]) --platform darwin 2>&1").status, 1)
        let record = CLI.sh("cd '\(dir)' && \(path) \(commands[1]) --platform darwin 2>&1")
        XCTAssertEqual(record.status, 0, record.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/goldens/darwin/menu.png"))
        XCTAssertEqual(CLI.sh("cd '\(dir)' && \(path) \(commands[0]) --platform darwin 2>&1").status, 0)
        // The CI step above it, as printed: the shared menu golden differs from out/menu.png.
        let ci = try XCTUnwrap(docs.components(separatedBy: "A CI recipe, as a shell step:\n\n```sh\n").last?.split(separator: "\n").first.map(String.init))
        XCTAssertTrue(ci.hasPrefix("imgscale compare"), ci)
        let step = CLI.sh("cd '\(dir)' && \(path) \(ci) 2>&1")
        XCTAssertEqual(step.status, 1, step.stdout)
        XCTAssertTrue(step.stdout.contains("menu.png: differ") && FileManager.default.fileExists(atPath: dir + "/diffs/menu.png.diff.png"), step.stdout)
    }
}
