#if canImport(Glibc)
import Glibc
#endif

/// The forked process `compare --server` hands a request that arrives alone: forked once
/// and kept, so a test runner asking one pair at a time pays a pipe's round trip (about
/// 0.1 ms) rather than a fork (1.3 ms), and a decoder that crashes still takes only its
/// own process down. A request goes over as its number and its line, which the worker
/// parses again (pure, and what the parent already checked); the outcome comes back in
/// its wire form. A worker that dies mid-request makes that request's error, and the next
/// request forks another. Used from the server's one thread only; forked only while the
/// process has one thread (`WorkerPool.available`).
final class ServerWorker {
    private let limits: WorkerPool.Limits
    private let serve: (String, Int) -> CompareCommand.Outcome
    private var pid: pid_t = -1
    private var requests: Int32 = -1
    private var outcomes: Int32 = -1

    init(limits: WorkerPool.Limits, serve: @escaping (_ line: String, _ number: Int) -> CompareCommand.Outcome) {
        self.limits = limits
        self.serve = serve
    }

    deinit { stop() }

    /// Request `number`'s outcome; `died(why)` makes it when the worker dies on it.
    func run(line: String, number: Int, died: (String) -> CompareCommand.Outcome) -> CompareCommand.Outcome {
        if pid < 0 && !start() { return serve(line, number) }
        var message = ServerWorker.int(number) + Array(line.utf8)
        message = ServerWorker.int(message.count) + message
        if ServerWorker.writeAll(requests, message), let length = ServerWorker.readInt(outcomes),
           let bytes = ServerWorker.read(outcomes, length), let outcome = CompareCommand.Outcome(wire: bytes) {
            return outcome
        }
        let why = reap()
        return died(why)
    }

    private func start() -> Bool {
        var down = [Int32](repeating: -1, count: 2), up = [Int32](repeating: -1, count: 2)
        guard pipe(&down) == 0 else { return false }
        guard pipe(&up) == 0 else { close(down[0]); close(down[1]); return false }
        let child = fork()
        if child == 0 {
            close(down[1]); close(up[0])
            WorkerPool.applyMemoryLimit(limits)
            while let length = ServerWorker.readInt(down[0]), length >= 8, let bytes = ServerWorker.read(down[0], length) {
                let number = ServerWorker.int(from: bytes)
                let outcome = serve(String(decoding: bytes[8...], as: UTF8.self), number).wire()
                guard ServerWorker.writeAll(up[1], ServerWorker.int(outcome.count) + outcome) else { break }
            }
            _exit(0)
        }
        close(down[0]); close(up[1])
        guard child > 0 else { close(down[1]); close(up[0]); return false }
        for fd in [down[1], up[0]] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        pid = child
        requests = down[1]
        outcomes = up[0]
        return true
    }

    /// The dead worker's reason, and the pipes closed so that the next request forks anew.
    private func reap() -> String {
        var status: Int32 = 0
        close(requests); close(outcomes)
        requests = -1; outcomes = -1
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        pid = -1
        let signal = status & 0x7F
        return signal != 0 ? WorkerPool.reason(signal: signal, cpuSeconds: nil, perOutput: nil) : "the comparison's worker ended (exit \((status >> 8) & 0xFF))"
    }

    /// Ends the worker: it reads EOF and exits.
    func stop() {
        guard pid > 0 else { return }
        close(requests); close(outcomes)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        pid = -1
    }

    private static func int(_ v: Int) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    private static func int(from bytes: [UInt8]) -> Int { (0..<8).reduce(0) { $0 | Int(bytes[$1]) << (8 * $1) } }

    private static func readInt(_ fd: Int32) -> Int? { read(fd, 8).map(int(from:)) }

    private static func read(_ fd: Int32, _ count: Int) -> [UInt8]? {
        guard count >= 0, count <= 1 << 30 else { return nil }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            done += n
        }
        return buffer
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }
}
