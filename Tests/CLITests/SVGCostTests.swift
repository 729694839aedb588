import XCTest
import Foundation
import TestReferences

/// SVGs small on disk that cost librsvg minutes: each is bounded from its tags before
/// librsvg draws it (`SVGCost`), in one line and well under a second, where before each
/// ran from 5 s to over 200 s; and the one clamped, not refused, draws as a browser's
/// would: `numOctaves` 10, as rsvg-convert draws it at 10.
final class SVGCostTests: XCTestCase {
    private func write(_ text: String, _ path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    func testFilterUseAndMarkerBombsAreRefusedFromTheirTags() throws {
        let dir = CLI.tempDir()
        let svg = #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="500" height="500">"#
        try write(svg + #"<filter id="m"><feMorphology operator="dilate" radius="1000"/></filter><rect width="500" height="500" filter="url(#m)"/></svg>"#, dir + "/morph.svg")
        try write(svg + #"<filter id="c"><feConvolveMatrix order="200" kernelMatrix="1"/></filter><rect width="9" height="9" filter="url(#c)"/></svg>"#, dir + "/conv.svg")
        // 8^5 = 32,768 blurred rects from five levels of eight <use>s.
        var use = svg + #"<defs><filter id="b"><feGaussianBlur stdDeviation="3"/></filter><g id="l0"><rect width="9" height="9" filter="url(#b)"/></g>"#
        for l in 1...5 { use += "<g id=\"l\(l)\">" + (0..<8).map { "<use xlink:href=\"#l\(l - 1)\" x=\"\($0)\"/>" }.joined() + "</g>" }
        try write(use + ##"</defs><use xlink:href="#l5"/></svg>"##, dir + "/use.svg")
        // A marker of 100 circles at each of 9,000 vertices: 900,000 circles drawn (6.3 s before).
        let marker = #"<defs><marker id="k" markerWidth="10" markerHeight="10">"# + String(repeating: #"<circle cx="5" cy="5" r="2"/>"#, count: 100) + "</marker></defs>"
        let path = "<path d=\"M0 0 " + (0..<9000).map { "L\(($0 * 7) % 500) \(($0 * 13) % 500)" }.joined(separator: " ") + "\" marker-mid=\"url(#k)\" stroke=\"black\"/>"
        try write(svg + marker + path + "</svg>", dir + "/marker.svg")
        let primitives = (0..<1001).map { "<feOffset dx=\"\($0 % 3)\"/>" }.joined()
        try write(svg + "<filter id=\"p\">\(primitives)</filter><rect width=\"9\" height=\"9\" filter=\"url(#p)\"/></svg>", dir + "/primitives.svg")
        let expected = [
            "morph.svg": "invalid SVG: feMorphology radius 1000 is over 256 (its cost grows with the radius)",
            "conv.svg": "invalid SVG: feConvolveMatrix order 200 is over 32 (its cost grows with the order squared)",
            "use.svg": "invalid SVG: it draws about 32768 filter passes once <use> and markers are expanded, over 4096",
            "marker.svg": "invalid SVG: it draws about 900",
            "primitives.svg": "invalid SVG: 1001 filter primitives, over 1000 (each is a pass over its region)",
        ]
        for (name, message) in expected.sorted(by: { $0.key < $1.key }) {
            let start = Date()
            let r = CLI.run(["convert", dir + "/" + name, "-o", dir + "/out.png"])
            XCTAssertEqual(r.status, 1, name + r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("imgscale: \(dir)/\(name): \(message)"), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertLessThan(Date().timeIntervalSince(start), 5, name)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.png"))
    }

    func testOctavesPastTenAreDrawnAsTenAsRsvgConvertDrawsTen() throws {
        let rsvg = "/usr/bin/rsvg-convert"
        guard FileManager.default.isExecutableFile(atPath: rsvg) else {
            throw missingReference("rsvg-convert is not installed (scripts/install-deps --test installs librsvg2-bin)")
        }
        let dir = CLI.tempDir()
        let doc = #"<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128"><filter id="f"><feTurbulence baseFrequency="0.05" numOctaves="N"/></filter><rect width="128" height="128" filter="url(#f)"/></svg>"#
        try write(doc.replacingOccurrences(of: "\"N\"", with: "\"100000\""), dir + "/bomb.svg")
        try write(doc.replacingOccurrences(of: "\"N\"", with: "\"10\""), dir + "/ten.svg")
        let start = Date()
        let r = CLI.run(["convert", dir + "/bomb.svg", "-o", dir + "/bomb.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        XCTAssertEqual(CLI.sh("'\(rsvg)' '\(dir)/ten.svg' -o '\(dir)/ref.png'").status, 0)
        let same = CLI.run(["compare", dir + "/ref.png", dir + "/bomb.png"])
        XCTAssertEqual(same.status, 0, same.stdout + same.stderr)
    }
}
