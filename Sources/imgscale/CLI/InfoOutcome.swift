/// What `info` found for one input, as the parent prints it: the line (or JSON object)
/// for stdout, then the lines for stderr, in that order.
struct InfoOutcome: WorkerOutcome {
    let display: String
    var out: String? = nil
    var err: [String] = []
    var failed = false

    init(display: String, out: String? = nil, err: [String] = [], failed: Bool = false) {
        self.display = display
        self.out = out
        self.err = err
        self.failed = failed
    }

    func wire() -> [UInt8] {
        var w = WireWriter()
        w.string(display)
        w.string(out)
        w.strings(err)
        w.int(failed ? 1 : 0)
        return w.bytes
    }

    init?(wire bytes: [UInt8]) {
        var r = WireReader(bytes)
        display = r.string() ?? ""
        out = r.string()
        err = r.strings()
        failed = r.int() != 0
        guard r.complete else { return nil }
    }

    mutating func attach(printed: String) {
        err.append("imgscale: \(display): warning: the decoder printed: \(printed)")
    }
}
