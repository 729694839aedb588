import XCTest
import Foundation
import ImageScaler

/// Every case of TestImages/goldens/cases.tsv, through the library and through the
/// CLI, compared with the stored golden at tolerance 0. The resampler is fixed point,
/// so goldens match exactly on any machine; a failure writes the actual image and a
/// diff into .build/golden-failures/ and names them.
final class GoldenTests: XCTestCase {
    struct Case {
        let name: String
        let input: String
        let args: [String]
    }

    static let dir = CLI.testImages + "/goldens"
    static let failures = CLI.root + "/.build/golden-failures"

    static func cases() -> [Case] {
        let text = String(decoding: CLI.bytes(dir + "/cases.tsv")!, as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let cols = line.split(separator: "\t").map(String.init)
            guard cols.count == 3 else { return nil }
            return Case(name: cols[0], input: cols[1], args: cols[2].split(separator: " ").map(String.init))
        }
    }

    func testCasesAreListed() {
        XCTAssertGreaterThanOrEqual(Self.cases().count, 17)
    }

    func testGoldensThroughTheCLI() throws {
        let tmp = CLI.tempDir()
        for c in Self.cases() {
            let out = tmp + "/" + c.name + ".png"
            let r = CLI.run(c.args + [CLI.testImages + "/" + c.input, "-o", out])
            XCTAssertEqual(r.status, 0, "\(c.name): \(r.stderr)")
            try check(c.name, actual: try ImageCodec.decode(try ImageFile.read(out)).0, via: "cli")
        }
    }

    func testGoldensThroughTheLibrary() throws {
        for c in Self.cases() {
            let data = try ImageFile.read(CLI.testImages + "/" + c.input)
            let (image, _) = try operation(c.args).perform(on: data)
            try check(c.name, actual: image, via: "library")
        }
    }

    func check(_ name: String, actual: PixelBuffer, via: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = try ImageCodec.decode(try ImageFile.read(Self.dir + "/" + name + ".png")).0
        if expected.size == actual.size && expected.channels == actual.channels && expected.pixels == actual.pixels { return }
        try FileManager.default.createDirectory(atPath: Self.failures, withIntermediateDirectories: true)
        let actualPath = Self.failures + "/\(name)-\(via)-actual.png"
        try ImageFile.write(try ImageCodec.encode(actual, as: .png), to: actualPath)
        var detail = "size \(actual.size) vs \(expected.size)"
        if expected.size == actual.size {
            let d = ImageDifference(expected, actual)
            detail = "\(d.differingPixels) pixels differ, max \(d.maxDifference), channels \(actual.channels) vs \(expected.channels)"
            try ImageFile.write(try ImageCodec.encode(DiffImage.render(expected: expected, actual: actual), as: .png),
                                to: Self.failures + "/\(name)-\(via)-diff.png")
        }
        XCTFail("golden \(name) (\(via)): \(detail); actual and diff written to \(Self.failures)/", file: file, line: line)
    }

    /// The library call a case's arguments stand for.
    func operation(_ args: [String]) throws -> ImageOperation {
        func value(_ name: String) -> String? {
            args.firstIndex(of: "--" + name).map { args[$0 + 1] }
        }
        func size(_ text: String) -> Size {
            let p = text.split(separator: "x").map { Int($0)! }
            return Size(width: p[0], height: p[1])
        }
        func rect(_ text: String) -> Rect {
            let p = text.split(separator: ",").map { Int($0)! }
            return Rect(x: p[0], y: p[1], width: p[2], height: p[3])
        }
        let origin = value("origin").flatMap(CoordinateOrigin.init(rawValue:)) ?? .topLeft
        switch args[0] {
        case "fill":
            return .fill(size(value("size")!), from: value("from").map(rect), origin: origin,
                         gravity: value("gravity").flatMap(Gravity.init(rawValue:)) ?? .centre)
        case "fit": return .fit(size(value("size")!))
        case "crop": return .crop(rect(value("rect")!), origin: origin)
        default: return .convert
        }
    }
}
