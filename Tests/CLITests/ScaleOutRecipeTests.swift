import XCTest
import TestReferences
import Foundation

/// Every recipe of docs/scale-out.md (Kubernetes, AWS Batch, Cloud Run, Slurm, Dask) parsed
/// as its engine parses it and its command line run for every index under the engine's
/// variables (scripts/check-recipes): merged, the reports and outputs equal one run's.
final class ScaleOutRecipeTests: XCTestCase {
    func testEveryRecipeParsesAndItsCommandMakesOneRunsOutputs() throws {
        if ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] != nil {
            throw XCTSkip("SKIPPED under the sanitizers: 170 runs of the recipes; the plain run covers them")
        }
        let r = CLI.sh("IMGSCALE='\(CLI.binary)' '\(CLI.root)/scripts/check-recipes' 2>&1")
        if r.stdout.contains("No module named 'yaml'") { throw missingReference("PyYAML is not installed (scripts/install-deps --test installs distributed, which brings it)") }
        XCTAssertEqual(r.status, 0, r.stdout)
        for engine in ["kubernetes", "aws-batch", "cloud-run", "slurm", "dask"] {
            XCTAssertTrue(r.stdout.contains("check-recipes: ok: \(engine): 8 shards, 8 reports"), r.stdout)
        }
        XCTAssertTrue(r.stdout.hasSuffix("check-recipes: OK\n"), r.stdout)
    }
}
