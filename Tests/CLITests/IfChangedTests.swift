import XCTest
import Foundation

/// --report as a build manifest (bytes, format, sha256 of every output, skipped ones
/// included) and --if-changed: outputs remade exactly when the input's bytes, an option
/// or imgscale change, whatever the mtimes say (a fresh clone), with a manifest that is
/// never trusted when it does not parse.
final class IfChangedTests: XCTestCase {
    let scene = CLI.testImages + "/scene-640x427.jpg"

    /// The report's lines as (status, sha256, bytes, format) by output file name.
    private func report(_ text: String) -> [String: (String, String, Int, String)] {
        var out: [String: (String, String, Int, String)] = [:]
        for line in text.split(separator: "\n") {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let path = o["output"] as? String else { continue }
            out[(path as NSString).lastPathComponent] = (o["status"] as? String ?? "", o["sha256"] as? String ?? "",
                                                         o["bytes"] as? Int ?? -1, o["format"] as? String ?? "")
        }
        return out
    }

    private func sha256(_ path: String) -> String {
        CLI.sh("sha256sum '\(path)'").stdout.split(separator: " ").first.map(String.init) ?? ""
    }

    func testReportIsAManifestAndIfChangedSkipsByContent() throws {
        let dir = CLI.tempDir()
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        for name in ["a", "b"] { try FileManager.default.copyItem(atPath: scene, toPath: dir + "/in/\(name).jpg") }
        let inputs = [dir + "/in/a.jpg", dir + "/in/b.jpg"]
        func run(_ extra: [String] = []) -> [String: (String, String, Int, String)] {
            let r = CLI.run(["fill", "--size", "64x64", "--if-changed", "--out-dir", dir + "/out", "--name", "{stem}.webp", "--report", "-", "-q"]
                            + extra + inputs)
            XCTAssertEqual(r.status, 0, r.stderr)
            return report(r.stdout)
        }
        let first = run()
        XCTAssertEqual(first.keys.sorted(), ["a.webp", "b.webp"])
        for (name, (status, sha, bytes, format)) in first {
            XCTAssertEqual(status, "ok")
            XCTAssertEqual(sha, sha256(dir + "/out/" + name), "sha256sum agrees")
            XCTAssertEqual(bytes, CLI.bytes(dir + "/out/" + name)?.count)
            XCTAssertEqual(format, "webp")
        }
        // Unchanged: skipped, the manifest fields the same, and the manifest not rewritten
        // (an atomic rewrite would give it a new inode).
        let manifest = dir + "/out/.imgscale-manifest"
        func inode() -> Int? { (try? FileManager.default.attributesOfItem(atPath: manifest))?[.systemFileNumber] as? Int }
        let written = inode()
        XCTAssertNotNil(written)
        let again = run()
        XCTAssertEqual(again.mapValues(\.0), ["a.webp": "skipped", "b.webp": "skipped"])
        XCTAssertEqual(again.mapValues(\.1), first.mapValues(\.1))
        XCTAssertEqual(inode(), written, "a rerun that remade nothing leaves the manifest alone")
        // Touched, or copied afresh as a clone does (every mtime new): still skipped, the
        // manifest rewritten with the new stamps.
        XCTAssertEqual(CLI.sh("touch '\(dir)/in/a.jpg' && cp -p '\(dir)/in/b.jpg' '\(dir)/b2' && rm '\(dir)/in/b.jpg' && cp '\(dir)/b2' '\(dir)/in/b.jpg'").status, 0)
        XCTAssertEqual(run().mapValues(\.0), ["a.webp": "skipped", "b.webp": "skipped"])
        XCTAssertNotEqual(inode(), written, "new stamps are written")
        // A changed option remakes everything; a changed input only its own outputs.
        XCTAssertEqual(run(["--quality", "60"]).mapValues(\.0), ["a.webp": "ok", "b.webp": "ok"])
        XCTAssertEqual(run(["--quality", "60"]).mapValues(\.0), ["a.webp": "skipped", "b.webp": "skipped"])
        XCTAssertEqual(CLI.run(["fill", "--size", "10x10", scene, "-o", dir + "/in/b.jpg"]).status, 0)
        XCTAssertEqual(run(["--quality", "60"]).mapValues(\.0), ["a.webp": "skipped", "b.webp": "ok"])
        // A different size, filter, or output edited behind its back: remade.
        XCTAssertEqual(run(["--quality", "60", "--filter", "lanczos"]).mapValues(\.0), ["a.webp": "ok", "b.webp": "ok"])
        _ = FileManager.default.createFile(atPath: dir + "/out/a.webp", contents: Data("not the output".utf8))
        XCTAssertEqual(run(["--quality", "60", "--filter", "lanczos"]).mapValues(\.0), ["a.webp": "ok", "b.webp": "skipped"])
        XCTAssertEqual(CLI.run(["info", dir + "/out/a.webp"]).status, 0)
    }

    func testAForeignOrCorruptManifestIsIgnoredWithOneWarning() throws {
        let dir = CLI.tempDir()
        let args = ["fill", "--size", "32x32", "--if-changed", scene, "--out-dir", dir, "--name", "t.png", "--report", "-", "-q"]
        XCTAssertEqual(CLI.run(args).status, 0)
        let manifest = dir + "/.imgscale-manifest"
        let good = try String(contentsOfFile: manifest, encoding: .utf8)
        XCTAssertTrue(good.hasPrefix("imgscale-manifest 1\n"), good)
        XCTAssertTrue(report(CLI.run(args).stdout)["t.png"]?.0 == "skipped")
        // Its key swapped for another digest, a line cut short, or another tool's file.
        let forged = good.replacingOccurrences(of: "\n", with: "\n0", options: [], range: good.range(of: "\n"))
        for bad in [String(good.dropLast(20)) + "\n", "hello world\n", forged, "imgscale-manifest 1\n" + String(repeating: "z", count: 300) + "\n"] {
            try bad.write(toFile: manifest, atomically: true, encoding: .utf8)
            let r = CLI.run(args)
            XCTAssertEqual(r.status, 0, r.stderr)
            let warnings = r.stderr.split(separator: "\n").filter { $0.contains("is not an imgscale manifest") }
            XCTAssertEqual(warnings.count, 1, "\(bad.prefix(40)): \(r.stderr)")
            XCTAssertEqual(report(r.stdout)["t.png"]?.0, "ok", "a manifest that does not parse is never trusted")
            XCTAssertTrue(try String(contentsOfFile: manifest, encoding: .utf8).hasPrefix("imgscale-manifest 1\n"), "replaced")
        }
        // --if-newer and the report fields without --if-changed write no manifest.
        let plain = CLI.tempDir()
        let r = CLI.run(["fill", "--size", "32x32", scene, "--out-dir", plain, "--report", "-", "-q"])
        XCTAssertEqual(report(r.stdout).values.first?.3, "jpeg")
        XCTAssertFalse(FileManager.default.fileExists(atPath: plain + "/.imgscale-manifest"))
    }
}
