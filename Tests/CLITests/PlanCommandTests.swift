import XCTest
import Foundation
import TestReferences

/// `imgscale plan COMMAND ...`: the command line parsed as that command parses it, each
/// input's plan printed (or as JSON), nothing written, and what the command would
/// refuse before decoding refused the same way.
final class PlanCommandTests: XCTestCase {
    func testPlanPrintsJSONWritesNothingAndRefusesAsTheCommandWould() throws {
        let dir = CLI.tempDir()
        let jpeg = CLI.testImages + "/scene-640x427.jpg", png = CLI.testImages + "/alpha-disc-100x100.png"
        let json = CLI.run(["plan", "fit", "--json", "--size", "200x", "--size", "64x64", jpeg, png, "--out-dir", dir + "/o",
                            "--name", "{stem}-{w}.webp"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let check = CLI.python("""
        import json, sys
        plans = [json.loads(line) for line in sys.argv[1].splitlines()]
        assert [p['format'] for p in plans] == ['jpeg', 'png'], plans
        assert [len(p['outputs']) for p in plans] == [2, 2]
        assert plans[0]['decodes'][0]['shrink'] in (1, 2), plans[0]['decodes']
        assert plans[1]['outputs'][1]['stages'][-1] == 'drop alpha if opaque', plans[1]['outputs'][1]
        assert all(o['settings'] == ['quality 80', 'effort 4'] for p in plans for o in p['outputs'])
        sys.stdout.buffer.write(b'ok')
        """, [json.stdout])
        guard let check else { throw missingReference("python3 is not available") }
        XCTAssertEqual(check.status, 0)
        XCTAssertEqual(String(decoding: check.stdout, as: UTF8.self), "ok")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/o"), "plan writes nothing, not even --out-dir")
        // The command's own usage errors, the command's name in them.
        let usage = CLI.run(["plan", "fill", "--size", "64x64", jpeg])
        XCTAssertEqual(usage.status, 2)
        XCTAssertTrue(usage.stderr.hasPrefix("imgscale fill: "), usage.stderr)
        // An input over the pixel limit is refused with the render's line.
        let limit = CLI.run(["plan", "fill", "--size", "8x8", "--max-pixels", "1000", jpeg, "-o", dir + "/t.png"])
        XCTAssertEqual(limit.status, 1)
        XCTAssertEqual(limit.stderr, "imgscale: \(jpeg): image is 640x427 = 273280 pixels, over the limit of 1000 (raise it with --max-pixels)\n")
        // Over the budget, the plan still prints, and says the render would be refused.
        let budget = CLI.run(["plan", "convert", "--max-memory", "100K", jpeg, "-o", dir + "/t.png"])
        XCTAssertEqual(budget.status, 0, budget.stderr)
        XCTAssertTrue(budget.stdout.contains("(over: the render would be refused)"), budget.stdout)
        // `--` and the old --source form still work.
        XCTAssertEqual(CLI.run(["plan", "fill", "--size", "8x8", "-o", dir + "/t.png", "--", jpeg]).status, 0)
        XCTAssertEqual(CLI.run(["plan", "--source", "4032x3024", "--size", "256x256"]).stdout,
                       "source 4032x3024, target 256x256, scale 11.8125\n504,0,3024,3024\n")
        XCTAssertEqual(CLI.files(dir), [])
    }
}
