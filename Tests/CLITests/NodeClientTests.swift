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
    }
}
