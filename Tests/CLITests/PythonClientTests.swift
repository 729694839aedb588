import XCTest
import TestReferences
import Foundation

/// clients/python as a user gets it: `pip install` of the package (into a directory of its
/// own, from a copy, so the checkout stays clean), then its pytest suite with the plugin
/// found by its `pytest11` entry point, against the installed imgscale: a missing golden, a
/// match, a failure with its numbers and diff, updates, bytes and PIL images, a server
/// killed mid-suite and one that dies twice, and 1,000 comparisons against subprocesses.
final class PythonClientTests: XCTestCase {
    func testPytestSuiteOfTheInstalledPackage() throws {
        if ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] != nil {
            throw XCTSkip("SKIPPED under the sanitizers: the server's own tests run there; this is the client's suite")
        }
        let dir = CLI.tempDir()
        let probe = CLI.sh("python3 -c 'import pytest' 2>&1")
        if probe.status != 0 { throw missingReference("pytest is not installed (scripts/install-deps --test installs it)") }
        let install = CLI.sh("cp -r '\(CLI.root)/clients/python' '\(dir)/src' && cd '\(dir)' && python3 -m pip install -q --no-deps --target '\(dir)/site' ./src 2>&1")
        if install.status != 0 { throw missingReference("pip could not build clients/python (it fetches setuptools): \(install.stdout)") }
        let r = CLI.sh("cd '\(dir)' && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH='\(dir)/site' IMGSCALE='\(CLI.binary)' python3 -m pytest -q -s -p no:cacheprovider -p no:hypothesispytest -p no:benchmark '\(CLI.root)/clients/python/tests' 2>&1")
        XCTAssertEqual(r.status, 0, r.stdout)
        XCTAssertTrue(r.stdout.contains("8 passed"), r.stdout)
        print(r.stdout.split(separator: "\n").filter { $0.contains("imgscale_golden:") }.joined(separator: "\n"))
        // docs/golden-testing.md's pytest example, as it is printed there: recorded, then passing.
        let example = try String(contentsOfFile: CLI.root + "/clients/python/examples/test_thumbnails.py", encoding: .utf8)
        XCTAssertTrue(try String(contentsOfFile: CLI.root + "/docs/golden-testing.md", encoding: .utf8).contains(example), "the docs show the example as it is")
        let suite = CLI.tempDir()
        try example.write(toFile: suite + "/test_thumbnails.py", atomically: true, encoding: .utf8)
        let env = "cd '\(suite)' && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH='\(dir)/site' IMGSCALE='\(CLI.binary)' PICTURE='\(CLI.testImages)/scene-640x427.jpg' python3 -m pytest -q -p no:cacheprovider -p no:hypothesispytest -p no:benchmark"
        let first = CLI.sh(env + " --update-goldens=missing 2>&1"), again = CLI.sh(env + " 2>&1")
        XCTAssertEqual(first.status, 0, first.stdout)
        XCTAssertEqual(again.status, 0, again.stdout)
        XCTAssertTrue(again.stdout.contains("3 passed"), again.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: suite + "/goldens/test_thumbnails/test_wide.png"))
    }
}
