import Foundation

/// One python3 process that runs many scripts: a test asks it for each case instead of
/// starting python3 (and importing Pillow and numpy, half a CPU-second) once per case.
/// Each request runs `code` as a fresh `__main__` with `sys.argv[1:] == argv`, in the
/// directory the session started in; what it and the programs it starts write to stdout
/// and stderr (file descriptors 1 and 2, captured per request) comes back as raw bytes
/// with its exit status, as from a python3 of its own. Requests run one at a time, in order.
public final class PythonSession: @unchecked Sendable {
    /// The status, stdout and stderr bytes of one script run.
    public struct Reply {
        public let status: Int32
        public let stdout: [UInt8]
        public let stderr: [UInt8]
    }

    private static let loop = """
    import io, json, os, struct, sys, tempfile, traceback
    # Requests and replies move to descriptors of their own: 0 becomes /dev/null, so no
    # program a script starts reads the requests, and 1 and 2 are pointed at each
    # request's files, so that what those programs print is the script's output too.
    replies = os.fdopen(os.dup(1), 'wb')
    requests = os.fdopen(os.dup(0), 'rb')
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    home = os.getcwd()
    while True:
        line = requests.readline()
        if not line:
            break
        request = json.loads(line)
        out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        sys.stdout.flush(); sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        os.dup2(out.fileno(), 1); os.dup2(err.fileno(), 2)
        sys.argv = ['-c'] + request['argv']
        status = 0
        try:
            exec(compile(request['code'], '<test>', 'exec'), {'__name__': '__main__'})
        except SystemExit as e:
            if isinstance(e.code, int) or e.code is None:
                status = e.code or 0
            else:
                print(e.code, file=sys.stderr)
                status = 1
        except BaseException:
            traceback.print_exc()
            status = 1
        sys.stdout.flush(); sys.stderr.flush()
        os.dup2(saved[0], 1); os.dup2(saved[1], 2)
        os.close(saved[0]); os.close(saved[1])
        os.chdir(home)
        out.seek(0); err.seek(0)
        o, e = out.read(), err.read()
        out.close(); err.close()
        replies.write(struct.pack('<iQQ', status, len(o), len(e)) + o + e)
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
        PythonSession.finishAtExit(self)
    }

    deinit { finish() }

    /// Ends python3 and waits for it: its CPU is then the test process's children's, as
    /// the per-class CPU of `scripts/run-tests` counts it (a session held in a static
    /// lives until exit, so exit is when it is finished).
    private func finish() {
        try? requests.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    nonisolated(unsafe) private static var open: [PythonSession] = []
    private static let openLock = NSLock()

    private static func finishAtExit(_ session: PythonSession) {
        openLock.lock()
        defer { openLock.unlock() }
        if open.isEmpty {
            atexit {
                PythonSession.openLock.lock()
                let sessions = PythonSession.open
                PythonSession.open = []
                PythonSession.openLock.unlock()
                sessions.forEach { $0.finish() }
            }
        }
        open.append(session)
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
        guard let header = read(20) else { return nil }
        func field(_ range: Range<Int>) -> UInt64 {
            header[range].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        }
        guard let out = read(Int(field(4..<12))), let err = read(Int(field(12..<20))) else { return nil }
        return Reply(status: Int32(bitPattern: UInt32(truncatingIfNeeded: field(0..<4))), stdout: out, stderr: err)
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
