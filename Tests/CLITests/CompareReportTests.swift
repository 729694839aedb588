import XCTest
import TestReferences
import Foundation

/// A 30-pair goldens directory under a rules file with three kinds of rule (a tolerance
/// for some, ΔE for others, one skipped), its `--html` report opened in headless Chromium:
/// the DOM it builds holds the failure count, the first failure's three pictures in every
/// view, the filter and the view controls; the screenshot is a page, not a blank.
final class CompareReportTests: XCTestCase {
    func testReportInHeadlessChromium() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            throw missingReference("chromium is not installed (scripts/install-deps --test installs it)")
        }
        let dir = CLI.tempDir()
        try python("""
            import os
            import numpy as np
            from PIL import Image
            os.makedirs('exp/icons'); os.makedirs('exp/charts'); os.makedirs('act/icons'); os.makedirs('act/charts')
            for i in range(30):
                where = 'icons' if i < 12 else 'charts' if i < 24 else '.'
                a = np.full((24, 32, 3), 8 * i, np.uint8); b = a.copy()
                if i % 3 == 0: b[:6, :6] = 255            # broken everywhere
                elif i % 3 == 1: b[0, :3] = 8 * i + 2     # two levels: within the icons' tolerance
                else: b[1, 1] = (8 * i, 8 * i + 1, 8 * i) # under ΔE 1
                Image.fromarray(a).save(f'exp/{where}/p{i:02d}.png'); Image.fromarray(b).save(f'act/{where}/p{i:02d}.png')
            open('exp/imgscale-goldens.json', 'w').write('''{"version": 1, "rules": [
              {"match": "icons/*.png", "tolerance": 2},
              {"match": "charts/**", "max_delta_e": 1.5, "max_pixels_differ": 3},
              {"match": "p27.png", "skip": true, "reason": "animated"}
            ]}''')
            """, in: dir)
        let r = CLI.run(["compare", dir + "/exp", dir + "/act", "--html", dir + "/report"])
        XCTAssertEqual(r.status, 1, r.stderr)
        // Broken: 10, less p27 skipped; the small changes pass under the icons' tolerance and
        // the charts' ΔE, and fail at the top level (p25, p26, p28, p29) under the default rule.
        XCTAssertTrue(r.stderr.contains("compared 30: 16 match, 13 differ, 0 missing, 0 extra, 0 unreadable, 1 skipped by rule"), r.stderr)
        let page = "file://\(dir)/report/index.html"
        let chromium = "/usr/bin/chromium --headless --no-sandbox --disable-gpu --user-data-dir='\(dir)/chromium'"
        let dom = CLI.sh("\(chromium) --dump-dom '\(page)' 2>/dev/null")
        XCTAssertEqual(dom.status, 0, dom.stderr)
        let html = dom.stdout
        XCTAssertTrue(html.contains("<span id=\"failed\">13</span> of 30 failed"), html)
        let first = html.components(separatedBy: "<section ").dropFirst().first ?? ""
        XCTAssertTrue(first.contains("data-status=\"differ\"") && first.contains("charts/p12.png: differ"), first)
        for picture in ["files/charts/p12.png.expected.png", "files/charts/p12.png.actual.png", "files/charts/p12.png.diff.png"] {
            XCTAssertTrue(first.contains("src=\"\(picture)\""), picture)
            XCTAssertTrue(FileManager.default.fileExists(atPath: "\(dir)/report/\(picture)"), picture)
        }
        for control in ["data-view=\"slider\"", "data-view=\"onion\"", "data-view=\"blink\"", "data-view=\"diff\"", "class=\"slide\"", "class=\"fade\"",
                        "type=\"checkbox\" data-status=\"differ\" checked", "data-status=\"skipped\"",
                        "rules of imgscale-goldens.json applied: 2; decided by rule 2 (line 3, match \"charts/**\")"] {
            XCTAssertTrue(html.contains(control), control)
        }
        XCTAssertFalse(html.contains("http://") || html.contains("https://"), "no network")
        let shot = dir + "/shot.png"
        let s = CLI.sh("\(chromium) --window-size=1200,900 --screenshot='\(shot)' '\(page)' 2>/dev/null")
        XCTAssertEqual(s.status, 0, s.stderr)
        try python("""
            import numpy as np
            from PIL import Image
            a = np.asarray(Image.open('\(shot)').convert('RGB')).astype(int)
            assert a.shape[:2] == (900, 1200), a.shape
            assert a.std() > 20 and (np.abs(a - [176, 0, 0]).sum(axis=2) < 60).sum() > 200, 'a page with its red summary'
            """, in: dir)
    }

    /// Names whose report copies could meet (`ui/b_c.png`, `ui_b/c.png`) each show their
    /// own pictures; an extra image shows the new one, a missing one its golden.
    func testReportPicturesNeverMixPairs() throws {
        let dir = CLI.tempDir()
        try python("""
            import os
            from PIL import Image
            for d in ('exp/ui', 'exp/ui_b', 'act/ui', 'act/ui_b'): os.makedirs(d)
            for name, v in (('ui/b_c.png', 10), ('ui_b/c.png', 200)):
                Image.new('RGB', (8, 8), (v, v, v)).save('exp/' + name)
                Image.new('RGB', (8, 8), (v, v, v + 40)).save('act/' + name)
            Image.new('RGB', (8, 8), (0, 90, 0)).save('act/ui/new.png')
            Image.new('RGB', (8, 8), (90, 0, 0)).save('exp/ui/gone.png')
            """, in: dir)
        let r = CLI.run(["compare", dir + "/exp", dir + "/act", "--html", dir + "/report"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let html = try String(contentsOfFile: dir + "/report/index.html", encoding: .utf8)
        let check = CLI.sh("""
            python3 - <<'EOF'
            import re
            from PIL import Image
            html = open('report/index.html').read()
            shown = {}
            for section in html.split('<section ')[1:]:
                name = re.search(r'<h2>([^:]+):', section).group(1)
                shown[name] = re.findall(r'src="([^"]+)"', section)
            def first(path): return Image.open('report/' + path).convert('RGB').getpixel((0, 0))
            assert first(shown['ui/b_c.png'][0]) == (10, 10, 10), shown
            assert first(shown['ui_b/c.png'][0]) == (200, 200, 200), shown
            assert first(shown['ui/new.png'][0]) == (0, 90, 0), shown
            assert first(shown['ui/gone.png'][0]) == (90, 0, 0), shown
            print('ok')
            EOF
            """, cwd: dir)
        XCTAssertEqual(check.stdout, "ok\n", check.stderr + html)
    }
}
