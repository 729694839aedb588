import XCTest
import Foundation

/// The multi-host recipe of docs/batches.md over real SSH (scripts/check-scaleout-ssh): sshd on
/// two loopback addresses, `parallel -S` with a shard per host, outputs equal to a local
/// run, every input once; then a host killed midway and a rerun with --if-newer.
final class ScaleOutSSHTests: XCTestCase {
    func testParallelOverSSHAndAKilledHost() throws {
        if ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] != nil {
            throw XCTSkip("SKIPPED under the sanitizers: the plain run covers the recipe; 60 decodes x 3 runs are slow there")
        }
        let r = CLI.sh("IMGSCALE='\(CLI.binary)' '\(CLI.root)/scripts/check-scaleout-ssh' 2>&1")
        if r.status == 77 { throw XCTSkip(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertEqual(r.status, 0, r.stdout)
        XCTAssertTrue(r.stdout.contains("ok: 60 inputs over 2 hosts, each once, equal to a local run"), r.stdout)
        XCTAssertTrue(r.stdout.contains("the rerun skipped"), r.stdout)
    }
}
