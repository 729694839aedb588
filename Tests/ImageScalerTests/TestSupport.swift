import XCTest
import TestReferences
import ImageScaler

/// Paths to the project's TestImages and the shared corpus beside the project.
enum Fixtures {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()
    static let testImages = root + "/TestImages"
    static let testdata = root + "/../shared/testdata"

    /// JPEGs cjpeg writes from a photo-like image at every subsampling it offers, odd
    /// sizes, with restart markers every MCU row, every few MCUs, or none, and at the
    /// extremes of quality.
    static func cjpegVariants() throws -> [(String, [UInt8])] { try variants.get() }

    /// Made once per test process: about 75 cjpeg runs, which five tests share.
    private static let variants: Result<[(String, [UInt8])], Error> = Result { try makeCjpegVariants() }

    private static func makeCjpegVariants() throws -> [(String, [UInt8])] {
        let scene = try Fixtures.image("scene-640x427.png")
        let ppm = NSTemporaryDirectory() + "/variants-scene-\(getpid()).ppm"
        defer { unlink(ppm) }
        var out: [(String, [UInt8])] = []
        for (w, h) in [(640, 427), (333, 91), (97, 250)] {
            var header = Array("P6\n\(w) \(h)\n255\n".utf8)
            for y in 0..<h {
                let start: Int = y * 640 * 3
                header += scene.pixels[start ..< start + w * 3]
            }
            try ImageFile.write(header, to: ppm)
            for sample in ["1x1", "2x1", "2x2", "1x2", "4x1", "4x2", "2x2,1x1,2x1"] {
                for restart in [[], ["-restart", "1"], ["-restart", "3B"]] {
                    guard let jpeg = Fixtures.run(["cjpeg", "-sample", sample, "-quality", "80"] + restart + [ppm]) else {
                        throw missingReference("cjpeg is not installed (scripts/install-deps --test installs it)")
                    }
                    out.append(("\(w)x\(h) \(sample) \(restart)", jpeg))
                }
            }
            if let gray = Fixtures.run(["cjpeg", "-grayscale", "-optimize", ppm]) { out.append(("\(w)x\(h) gray", gray)) }
            if let q = Fixtures.run(["cjpeg", "-quality", "3", ppm]) { out.append(("\(w)x\(h) quality 3", q)) }
            // Values of every size, and tables with long codes.
            if let q = Fixtures.run(["cjpeg", "-quality", "100", "-sample", "2x1", "-restart", "2", ppm]) {
                out.append(("\(w)x\(h) quality 100", q))
            }
            if let o = Fixtures.run(["cjpeg", "-optimize", "-quality", "97", ppm]) { out.append(("\(w)x\(h) optimized", o)) }
        }
        return out
    }

    static func image(_ name: String) throws -> PixelBuffer {
        try ImageCodec.decode(try ImageFile.read(testImages + "/" + name)).0
    }

    /// The shared corpus, or an XCTSkip that says plainly it was not there.
    static func shared(_ sub: String) throws -> String {
        let path = testdata + "/" + sub
        var st = stat()
        guard stat(path, &st) == 0 else {
            // Under IMGSCALE_REQUIRE_REFERENCES=1 (CI) a failure naming the path.
            throw missingReference("\(path) is not present; conformance against ../shared/testdata did not run")
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

    /// One python3 for the whole test process (Pillow imported once, not per case).
    static let pythonSession = PythonSession()

    /// Runs a Python script in that process and returns its stdout, or nil when python3
    /// is missing or the script fails (exits non-zero, or raises).
    static func python(_ script: String, _ argv: [String]) -> [UInt8]? {
        guard let reply = pythonSession?.run(script, argv), reply.status == 0 else { return nil }
        return reply.stdout
    }

    /// Runs a program and returns its stdout, or nil when it is not installed or fails.
    static func run(_ argv: [String]) -> [UInt8]? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = argv
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        let exited = ExitSignal(p)
        do { try p.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        exited.wait()
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
        return try! PixelBuffer(width: w, height: h, channels: ch, pixels: Array(bytes[i..<i + w * h * ch]))
    }
}

