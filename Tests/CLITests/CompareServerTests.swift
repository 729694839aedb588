import XCTest
import TestReferences
import Foundation

/// `compare --server` through the built imgscale: 200 requests piped at once, some bad,
/// one whose decoder crashes, answered one line each in the order asked with `-j2`, the
/// same verdicts as single calls; a client waiting on each answer before the next; EOF
/// exits 0; paths on the command line are a usage error.
final class CompareServerTests: XCTestCase {
    func testOrderErrorsAndCrashes() throws {
        let dir = CLI.tempDir()
        try python("""
            import os, json
            import numpy as np
            from PIL import Image
            os.makedirs('e'); os.makedirs('a')
            reqs = []
            for i in range(200):
                a = np.full((48, 64, 3), i, np.uint8); b = a.copy(); b[:i % 7, :i % 5] = 255
                Image.fromarray(a).save(f'e/{i}.png'); Image.fromarray(b).save(f'a/{i}.png')
                if i % 50 == 7:
                    reqs.append('{"expected": "e/%d.png", "actual": "a/%d.png", "options": {"tolerence": 1}}' % (i, i))
                elif i % 50 == 8:
                    reqs.append('not json')
                elif i == 99:
                    reqs.append(json.dumps({'expected': f'e/{i}.png', 'actual': f'a/{i}.png', 'id': 'crash-here'}).replace('a/99.png', 'a/99-crash.png'))
                    os.rename(f'a/{i}.png', f'a/{i}-crash.png')
                else:
                    reqs.append(json.dumps({'expected': f'e/{i}.png', 'actual': f'a/{i}.png', 'options': {'max_pixels_differ': 10}}))
            open('requests.jsonl', 'w').write('\\n'.join(reqs) + '\\n')
            """, in: dir)
        let r = CLI.sh("cd '\(dir)' && IMGSCALE_TEST_CRASH=99-crash '\(CLI.binary)' compare --server -j2 < requests.jsonl")
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 200)
        for (i, line) in lines.enumerated() {
            guard let j = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { XCTFail(String(line)); continue }
            XCTAssertEqual(j["request"] as? Int, i + 1, String(line))
            let result = j["result"] as? String, error = j["error"] as? String ?? ""
            if i % 50 == 7 {
                XCTAssertTrue(result == "error" && error.contains("unknown key \"tolerence\""), String(line))
            } else if i % 50 == 8 {
                XCTAssertTrue(result == "error" && error.hasPrefix("not JSON"), String(line))
            } else if i == 99 {
                XCTAssertTrue(result == "error" && error.contains("died"), String(line))
            } else {
                let n = (i % 7) * (i % 5)
                XCTAssertEqual(j["actual"] as? String, "a/\(i).png")
                XCTAssertEqual(j["differing_pixels"] as? Int, n, String(line))
                XCTAssertEqual(result, n <= 10 ? "match" : "differ", String(line))
            }
        }
        XCTAssertEqual(CLI.run(["compare", "--server", dir + "/e/1.png", dir + "/a/1.png"]).status, 2)
        // A diff named as either image is refused: it would overwrite a golden.
        let golden = try Data(contentsOf: URL(fileURLWithPath: dir + "/e/1.png"))
        let over = CLI.sh("cd '\(dir)' && echo '{\"expected\": \"e/1.png\", \"actual\": \"a/1.png\", \"diff\": \"e/1.png\"}' | '\(CLI.binary)' compare --server")
        XCTAssertTrue(over.stdout.contains("\"result\":\"error\"") && over.stdout.contains("is an image this server has compared"), over.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/e/1.png")), golden)
    }

    /// A client that waits for each answer before it sends the next is answered at once.
    func testAnswersEachRequestAsItComes() throws {
        let dir = CLI.tempDir()
        try python("""
            import os, subprocess, json, time
            import numpy as np
            from PIL import Image
            Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save('x.png')
            p = subprocess.Popen([os.environ['IMGSCALE'], 'compare', '--server'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            for i in range(5):
                p.stdin.write(json.dumps({'expected': 'x.png', 'actual': 'x.png'}) + '\\n'); p.stdin.flush()
                j = json.loads(p.stdout.readline())
                assert j['request'] == i + 1 and j['result'] == 'match', j
            p.stdin.close()
            assert p.wait(timeout=10) == 0
            """, in: dir)
    }
}
