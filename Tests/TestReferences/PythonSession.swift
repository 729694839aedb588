import Foundation

/// One python3 process that runs many scripts: a test asks it for each case instead of
/// starting python3 (and importing Pillow) once per case. Each request runs `code` as a
/// fresh `__main__` with `sys.argv[1:] == argv`; what it writes to `sys.stdout.buffer`
/// comes back as raw bytes with its exit status. Requests run one at a time, in order.
public final class PythonSession: @unchecked Sendable {
    /// The status and stdout bytes of one script run.
    public struct Reply {
        public let status: Int32
        public let stdout: [UInt8]
    }

    private static let loop = """
    import io, json, struct, sys, traceback
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    console = sys.stdout
    while True:
        line = requests.readline()
        if not line:
            break
        request = json.loads(line)
        captured = io.BytesIO()
        text = io.TextIOWrapper(captured, write_through=True)
        sys.stdout = text
        sys.argv = ['-c'] + request['argv']
        status = 0
        try:
            exec(compile(request['code'], '<test>', 'exec'), {'__name__': '__main__'})
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:
            traceback.print_exc()
            status = 1
        text.flush()
        sys.stdout = console
        text.detach()  # a collected wrapper would close the buffer under us
        data = captured.getvalue()
        replies.write(struct.pack('<iQ', status, len(data)) + data)
        replies.flush()
    """

    private let process = Process()
    private let requests = Pipe()
    private let replies = Pipe()
    private let lock = NSLock()

    /// Starts python3; nil when it cannot be started.
    public init?() {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-c", Self.loop]
        process.standardInput = requests
        process.standardOutput = replies
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
    }

    deinit {
        try? requests.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Runs `code` with `argv`; nil when python3 is gone (it died, or was never there).
    public func run(_ code: String, _ argv: [String]) -> Reply? {
        lock.lock()
        defer { lock.unlock() }
        guard process.isRunning,
              let json = try? JSONSerialization.data(withJSONObject: ["code": code, "argv": argv]) else { return nil }
        do {
            try requests.fileHandleForWriting.write(contentsOf: json + Data([0x0A]))
        } catch { return nil }
        guard let header = read(12) else { return nil }
        let status = header[0..<4].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        let count = header[4..<12].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        guard let body = read(Int(count)) else { return nil }
        return Reply(status: Int32(bitPattern: status), stdout: body)
    }

    private func read(_ count: Int) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        let handle = replies.fileHandleForReading
        while out.count < count {
            guard let chunk = try? handle.read(upToCount: count - out.count), !chunk.isEmpty else { return nil }
            out += chunk
        }
        return out
    }
}
