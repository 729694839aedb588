import Foundation
import XCTest

/// The docs keep up with the code: the architecture's layout names every source file,
/// and the README stays a user's guide of at most 300 lines.
final class DocsTests: XCTestCase {
    func testArchitectureNamesEverySourceFile() throws {
        let doc = try String(contentsOfFile: CLI.root + "/docs/architecture.md", encoding: .utf8)
        let words = Set(doc.split { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "+" || $0 == ".") }
            .flatMap { word in [String(word), String(word).trimmingCharacters(in: CharacterSet(charactersIn: "."))] })
        let sources = CLI.root + "/Sources"
        let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: sources) as [String]?)
            .filter { $0.hasSuffix(".swift") || $0.hasSuffix(".c") || $0.hasSuffix(".h") }
        XCTAssertGreaterThan(files.count, 100)
        let missing = files.filter { path in
            let name = (path as NSString).lastPathComponent
            // Swift files by their type's name, C files by their own name.
            let key = name.hasSuffix(".swift") ? String(name.dropLast(6)) : name
            return !words.contains(key) && !words.contains(name)
        }
        XCTAssertEqual(missing, [], "docs/architecture.md does not name these source files")
    }

    func testTheREADMEIsAGuideOfAtMost300Lines() throws {
        let readme = try String(contentsOfFile: CLI.root + "/README.md", encoding: .utf8)
        XCTAssertLessThanOrEqual(readme.split(separator: "\n", omittingEmptySubsequences: false).count, 300)
        for doc in ["batches", "golden-testing", "security", "performance", "architecture", "testing"] {
            XCTAssertTrue(readme.contains("(docs/\(doc).md)"), "the README links docs/\(doc).md")
            XCTAssertTrue(FileManager.default.fileExists(atPath: CLI.root + "/docs/\(doc).md"), doc)
        }
    }
}
