import XCTest
import TestReferences
import Foundation

/// `imgscale-goldens.json` in a goldens directory, through the built imgscale: each pair
/// under the most specific rules that match it, the command line's limits beneath; skip
/// with a reason; ignore rects and masks per image; a rule matching nothing, and every
/// malformed or hostile file, refused whole, naming the line, the rule and the key.
final class GoldenRulesTests: XCTestCase {
    private func makeSuite() throws -> String {
        let dir = CLI.tempDir()
        try python("""
            import os
            import numpy as np
            from PIL import Image
            for d in ('exp/icons', 'exp/charts', 'exp/flaky', 'exp/masks', 'act/icons', 'act/charts', 'act/flaky'):
                os.makedirs(d, exist_ok=True)
            base = np.full((20, 30, 3), 120, np.uint8)
            def pair(name, change):
                Image.fromarray(base).save('exp/' + name)
                b = base.copy(); change(b); Image.fromarray(b).save('act/' + name)
            pair('icons/a.png', lambda b: b.__setitem__((slice(0, 2), slice(0, 2)), 122))
            pair('icons/b.png', lambda b: b.__setitem__((slice(0, 2), slice(0, 2)), 122))
            pair('charts/c.png', lambda b: b.__setitem__((slice(0, 4), slice(0, 10)), (120, 121, 120)))
            pair('flaky/d.png', lambda b: b.__setitem__(slice(None), 0))
            pair('clock.png', lambda b: b.__setitem__((slice(0, 5), slice(0, 5)), 255))
            pair('masked.png', lambda b: b.__setitem__((slice(10, 20), slice(0, 30)), 0))
            m = np.full((20, 30), 255, np.uint8); m[10:] = 0
            Image.fromarray(m).save('exp/masks/lower.png')
            """, in: dir)
        return dir
    }

    func testMostSpecificRuleWinsOverTheCommandLine() throws {
        let dir = try makeSuite()
        try Data("""
            {"version": 1, "rules": [
              {"match": "icons/*.png", "tolerance": 3},
              {"match": "icons/b.png", "tolerance": 0},
              {"match": "charts/**", "max_delta_e": 5, "max_pixels_differ": "10%"},
              {"match": "flaky/**", "skip": true, "reason": "renders differently on CI"},
              {"match": "clock.png", "ignore": [[0, 0, 10, 10]]},
              {"match": "masked.png", "mask": "masks/lower.png"}
            ]}
            """.utf8).write(to: URL(fileURLWithPath: dir + "/exp/imgscale-goldens.json"))
        let r = CLI.run(["compare", dir + "/exp", dir + "/act"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stdout.split(separator: "\n").filter { !$0.contains("skipped") },
                       ["icons/b.png: differ: 4 pixels, max difference 2, mean 0.010, PSNR 63.87 dB"], r.stdout)
        XCTAssertTrue(r.stdout.contains("flaky/d.png: skipped by rule 4 of imgscale-goldens.json: renders differently on CI"), r.stdout)
        XCTAssertTrue(r.stderr.contains("compared 6: 4 match, 1 differ, 0 missing, 0 extra, 0 unreadable, 1 skipped by rule"), r.stderr)
        let json = CLI.run(["compare", "--json", dir + "/exp", dir + "/act"])
        XCTAssertTrue(json.stdout.contains("\"rules\":[1,2]"), json.stdout)
        XCTAssertTrue(json.stdout.contains("\"rule\":\"delta_e\",\"max_delta_e\":5.0"), json.stdout)
        // The command line's limits lie beneath: a tolerance for every image lets b pass
        // only where no rule sets one; b's rule still says 0.
        let loose = CLI.run(["compare", "--tolerance", "9", dir + "/exp", dir + "/act"])
        XCTAssertEqual(loose.status, 1, loose.stdout)
        let junit = dir + "/j.xml"
        _ = CLI.run(["compare", "--junit", junit, dir + "/exp", dir + "/act"])
        XCTAssertTrue(((try? String(contentsOfFile: junit, encoding: .utf8)) ?? "").contains("<skipped message="))
    }

    func testBadAndHostileRulesAreRefusedWhole() throws {
        let dir = try makeSuite()
        let rules = dir + "/exp/imgscale-goldens.json"
        let cases: [(String, String)] = [
            ("{\"rules\": [{\"match\": \"*.png\", \"tolerance\": 300}]}", "rule 1: \"tolerance\" must be a number from 0.0 to 255.0"),
            ("{\"rules\": [{\"match\": \"*.png\", \"tolerence\": 3}]}", "rule 1: unknown key \"tolerence\""),
            ("{\"rules\": [{\"tolerance\": 3}]}", "rule 1 needs \"match\""),
            ("{\"rules\": [{\"match\": \"a\"}, {\"match\": \"*\", \"tolerance\": 1, \"threshold\": 0.1}]}", "rule 2: tolerance, threshold are rules of their own"),
            ("{\"rules\": [{\"match\": \"*\", \"antialiasing\": \"count\"}]}", "\"antialiasing\" applies to \"threshold\""),
            ("{\"rules\": [{\"match\": \"*\", \"ignore\": [[0, 0, 0, 5]]}]}", "each \"ignore\" rect must be"),
            ("{\"rules\": [{\"match\": \"*\", \"min_ssim\": 0}]}", "\"min_ssim\" must be above 0"),
            ("{\"rules\": [{\"match\": \"*\", \"max_pixels_differ\": \"150%\"}]}", "\"max_pixels_differ\" must be a count or a percentage"),
            ("{\"rules\": [{\"match\": \"*\"},]}", "not JSON"),
            ("{\"version\": 2, \"rules\": []}", "\"version\" must be 1"),
            (String(repeating: "[", count: 100_000), "nested deeper than 64"),
            ("{\"rules\": [{\"match\": \"*\", \"mask\": \"masks/none.png\"}]}", "the mask of rule 1"),
            ("{\"rules\": [\n  {\"match\": \"*.png\"},\n  {\"match\": \"old/**\", \"tolerance\": 9}\n]}", "imgscale-goldens.json:3: rule 2 (match \"old/**\") matches no image"),
            ("{\"rules\": [\n  {\"match\": \"*.png\",\n   \"tolerance\": 3.5}\n]}", "imgscale-goldens.json:2: rule 1: \"tolerance\" must be a whole number"),
            ("{\"rules\": [\n  {\"match\": \"*.png\" \"tolerance\": 3}\n]}", "not JSON: expected ',' or '}' at line 2, column 21"),
        ]
        for (text, message) in cases {
            try Data(text.utf8).write(to: URL(fileURLWithPath: rules))
            let r = CLI.run(["compare", dir + "/exp", dir + "/act"])
            if message.hasPrefix("the mask") {
                // A mask that cannot be read fails the pairs it applies to, by name.
                XCTAssertEqual(r.status, 2, r.stderr)
                XCTAssertTrue(r.stderr.contains(message), r.stderr)
                continue
            }
            XCTAssertEqual(r.status, 2, "\(message): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("imgscale-goldens.json:") && r.stderr.contains(message), "\(message): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
        // A FIFO would be read forever: only a regular file is a rules file.
        try? FileManager.default.removeItem(atPath: rules)
        XCTAssertEqual(mkfifo(rules, 0o644), 0)
        let fifo = CLI.run(["compare", dir + "/exp", dir + "/act"])
        XCTAssertEqual(fifo.status, 2)
        XCTAssertTrue(fifo.stderr.contains("is a FIFO, not a regular file"), fifo.stderr)
        try FileManager.default.removeItem(atPath: rules)
        // Over 1 MiB is refused before it is parsed; a glob built to backtrack is linear.
        try Data(("{\"rules\": [" + String(repeating: "{\"match\": \"x\"},", count: 80_000) + "{\"match\": \"x\"}]}").utf8).write(to: URL(fileURLWithPath: rules))
        XCTAssertTrue(CLI.run(["compare", dir + "/exp", dir + "/act"]).stderr.contains("at most 1 MiB"))
        let pattern = String(repeating: "*a", count: 400) + "b"
        try Data("{\"rules\": [{\"match\": \"\(pattern)\", \"tolerance\": 1}]}".utf8).write(to: URL(fileURLWithPath: rules))
        let start = Date()
        let r = CLI.run(["compare", dir + "/exp", dir + "/act"])
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, r.stderr)
    }
}
