import XCTest
import TestReferences
import Foundation

/// A real Dask cluster (scripts/scale-out-dask): a scheduler and two workers as processes
/// on 127.0.0.1, 800 files in 16 cost-balanced shards (the script's 2,000 in 32 by hand), one worker killed with SIGKILL
/// while its imgscale is mid-shard; the merged report and every output's SHA-256 equal
/// one imgscale run's, with the retry's lines marked.
final class ScaleOutDaskTests: XCTestCase {
    func testDaskClusterLosingAWorkerEqualsOneRun() throws {
        if ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] != nil {
            throw XCTSkip("SKIPPED under the sanitizers: the plain run covers the cluster; 64 shard runs are slow there")
        }
        let r = CLI.sh("IMGSCALE='\(CLI.binary)' '\(CLI.root)/scripts/scale-out-dask' --files 800 --shards 16 2>&1")
        if r.status == 77 { throw missingReference(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertEqual(r.status, 0, r.stdout)
        XCTAssertTrue(r.stdout.contains("scale-out-dask: OK"), r.stdout)
        XCTAssertTrue(r.stdout.contains("ok: the merged report equals the single run's (800 and 800 lines)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("ok: every output's SHA-256 equals the single run's (800 and 800 files)"), r.stdout)
        print(r.stdout.split(separator: "\n").prefix(2).joined(separator: "\n"))
    }
}
