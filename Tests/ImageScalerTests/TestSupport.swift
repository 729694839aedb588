import XCTest
@testable import ImageScaler

/// Paths to the project's TestImages and the shared corpus beside the project.
enum Fixtures {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()
    static let testImages = root + "/TestImages"
    static let testdata = root + "/../shared/testdata"

    static func image(_ name: String) throws -> PixelBuffer {
        try ImageCodec.decode(try ImageFile.read(testImages + "/" + name)).0
    }

    /// The shared corpus, or an XCTSkip that says plainly it was not there.
    static func shared(_ sub: String) throws -> String {
        let path = testdata + "/" + sub
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw XCTSkip("SKIPPED: \(path) is not present; conformance against ../shared/testdata did not run")
        }
        return path
    }

    static func files(in dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    /// Runs a program and returns its stdout, or nil when it is not installed or fails.
    static func run(_ argv: [String]) -> [UInt8]? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = argv
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return p.terminationStatus == 0 ? [UInt8](data) : nil
    }

    /// Parses binary PGM (P5) and PPM (P6) with maxval 255, as djpeg writes them.
    static func pnm(_ bytes: [UInt8]) -> PixelBuffer? {
        var fields: [String] = []
        var i = 0
        while fields.count < 4 && i < bytes.count {
            while i < bytes.count, bytes[i] == 0x23 { while i < bytes.count, bytes[i] != 10 { i += 1 } }
            while i < bytes.count, [9, 10, 13, 32].contains(bytes[i]) { i += 1 }
            var token = ""
            while i < bytes.count, ![9, 10, 13, 32].contains(bytes[i]) { token.append(Character(UnicodeScalar(bytes[i]))); i += 1 }
            if !token.isEmpty { fields.append(token) }
        }
        i += 1
        guard fields.count == 4, let w = Int(fields[1]), let h = Int(fields[2]), fields[3] == "255" else { return nil }
        let ch = fields[0] == "P5" ? 1 : 3
        guard bytes.count - i >= w * h * ch else { return nil }
        return PixelBuffer(width: w, height: h, channels: ch, pixels: Array(bytes[i..<i + w * h * ch]))
    }
}
