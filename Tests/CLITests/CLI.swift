import XCTest
import TestReferences
import Foundation

/// Runs the built `imgscale` binary as a user would and captures what it prints.
struct CLI {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static let binary: String = {
        // scripts/test points this at the release build it installs, so the plain run
        // checks the binary users get; otherwise the one beside the test bundle.
        if let given = ProcessInfo.processInfo.environment["IMGSCALE_BINARY"], !given.isEmpty { return given }
        // The test bundle runs from the build products directory, beside imgscale.
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("imgscale").path
    }()

    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    static let testImages = root + "/TestImages"
    static let testdata = root + "/../shared/testdata"

    @discardableResult
    static func run(_ args: [String], stdin: Data? = nil, cwd: String? = nil, environment: [String: String] = [:]) -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let input = Pipe()
        p.standardInput = input
        return collect(p, cwd: cwd) {
            if let stdin { input.fileHandleForWriting.write(stdin) }
            try? input.fileHandleForWriting.close()
        }
    }

    /// Runs a bash script as a user would type it, with $IMGSCALE the built binary: for
    /// what Process cannot express (non-UTF-8 argv bytes, `>(cmd)`, FIFOs).
    @discardableResult
    /// The peak RSS in MiB of a run under scripts/peak-rss and its stderr without the
    /// peak-rss line; a failure when the line is missing, so no bound passes unmeasured.
    static func peak(_ r: Result, file: StaticString = #filePath, line: UInt = #line) -> (mib: Double, stderr: String) {
        var lines = r.stderr.split(separator: "\n").map(String.init)
        guard let last = lines.popLast(), last.hasPrefix("peak-rss: "),
              let kib = last.split(separator: " ").first(where: { $0.hasPrefix("kib=") }).flatMap({ Double($0.dropFirst(4)) }) else {
            XCTFail("no peak-rss line: \(r.stderr)", file: file, line: line)
            return (.infinity, r.stderr)
        }
        return (kib / 1024, lines.joined(separator: "\n"))
    }

    static func sh(_ script: String, cwd: String? = nil, argv0: String? = nil) -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", script] + (argv0.map { [$0] } ?? [])
        p.environment = ProcessInfo.processInfo.environment.merging(["IMGSCALE": binary, "LC_ALL": "C"]) { $1 }
        p.standardInput = FileHandle.nullDevice
        return collect(p, cwd: cwd) {}
    }

    /// Starts `p`, runs `started` (to feed stdin), and gathers its output and status.
    private static func collect(_ p: Process, cwd: String?, started: () -> Void) -> Result {
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let exited = ExitSignal(p)
        try! p.run()
        started()
        // Read both pipes concurrently so a chatty child never blocks on a full pipe.
        final class Box: @unchecked Sendable { var data = Data() }
        let errBox = Box()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { errBox.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        exited.wait()
        return Result(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errBox.data, as: UTF8.self))
    }

    /// One python3 for the whole test process (Pillow imported once, not per case).
    static let pythonSession = PythonSession()

    /// Runs a Python script in that process: its status and raw stdout bytes, or nil when
    /// python3 cannot be started.
    static func python(_ script: String, _ argv: [String]) -> PythonSession.Reply? {
        pythonSession?.run(script, argv)
    }

    /// One directory per test process, removed when the process exits, so a run leaves
    /// nothing behind in /tmp (each test's own directory lives inside it).
    static let tempRoot: String = {
        let root = NSTemporaryDirectory() + "imgscale-cli-\(getpid())-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: CLI.tempRoot) }
        return root
    }()

    static func tempDir() -> String {
        let path = tempRoot + "/" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func files(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    static func sharedDir(_ sub: String) throws -> String {
        let path = testdata + "/" + sub
        guard FileManager.default.fileExists(atPath: path) else {
            // Under IMGSCALE_REQUIRE_REFERENCES=1 (CI) a failure naming the path.
            throw missingReference("\(path) is not present; CLI checks on ../shared/testdata did not run")
        }
        return path
    }

    /// "WxH" from `imgscale info`'s line for a file.
    static func size(_ path: String) -> String? {
        let r = run(["info", "--json", path])
        guard r.status == 0, let data = r.stdout.data(using: .utf8),
              let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let w = obj["width"] as? Int, let h = obj["height"] as? Int else { return nil }
        return "\(w)x\(h)"
    }
}

