import XCTest
import TestReferences
import Foundation

/// clients/node's `node --test` suite against the installed imgscale: a missing golden, a
/// match, a failure with its numbers and diff, updates, bytes and camelCase limits, the
/// Jest matcher's shape, a server killed mid-suite and one that dies twice, the platform
/// template, and 1,000 comparisons against subprocesses.
final class NodeClientTests: XCTestCase {
    func testNodeTestSuite() throws {
        if ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] != nil {
            throw XCTSkip("SKIPPED under the sanitizers: the server's own tests run there; this is the client's suite")
        }
        if CLI.sh("node --version").status != 0 { throw missingReference("node is not installed") }
        let r = CLI.sh("cd '\(CLI.tempDir())' && IMGSCALE='\(CLI.binary)' node --test '\(CLI.root)/clients/node/test/' 2>&1")
        XCTAssertEqual(r.status, 0, r.stdout)
        XCTAssertTrue(r.stdout.contains("# pass 7") && r.stdout.contains("# fail 0"), r.stdout)
        print(r.stdout.split(separator: "\n").filter { $0.contains("imgscale-golden:") }.joined(separator: "\n"))
        // docs/golden-testing.md's node:test example, importing the package by its name.
        let example = try String(contentsOfFile: CLI.root + "/clients/node/examples/thumbnails.test.js", encoding: .utf8)
        XCTAssertTrue(try String(contentsOfFile: CLI.root + "/docs/golden-testing.md", encoding: .utf8).contains(example), "the docs show the example as it is")
        let suite = CLI.tempDir()
        try FileManager.default.createDirectory(atPath: suite + "/node_modules", withIntermediateDirectories: true)
        XCTAssertEqual(symlink(CLI.root + "/clients/node", suite + "/node_modules/imgscale-golden"), 0)
        try example.write(toFile: suite + "/thumbnails.test.js", atomically: true, encoding: .utf8)
        let env = "cd '\(suite)' && IMGSCALE='\(CLI.binary)' PICTURE='\(CLI.testImages)/scene-640x427.jpg'"
        let first = CLI.sh(env + " UPDATE_GOLDENS=missing node --test thumbnails.test.js 2>&1"), again = CLI.sh(env + " node --test thumbnails.test.js 2>&1")
        XCTAssertEqual(first.status, 0, first.stdout)
        XCTAssertEqual(again.status, 0, again.stdout)
        XCTAssertTrue(again.stdout.contains("# pass 3"), again.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: suite + "/goldens/wide.png"))
    }
}
