/// A compared pair as bytes, from a worker process to `compare`'s parent
/// (`WireWriter`'s form).
extension CompareCommand.Outcome: WorkerOutcome {
    func wire() -> [UInt8] {
        var w = WireWriter()
        w.string(name)
        w.string(expected)
        w.string(actual)
        w.string(status.rawValue)
        w.string(line)
        w.string(json)
        w.int(milliseconds)
        w.strings(assets)
        w.string(printed)
        w.string(diff)
        w.int(nearMiss ? 1 : 0)
        return w.bytes
    }

    init?(wire bytes: [UInt8]) {
        var r = WireReader(bytes)
        let name = r.string() ?? "", expected = r.string() ?? "", actual = r.string() ?? ""
        guard let status = Status(rawValue: r.string() ?? "") else { return nil }
        let line = r.string() ?? "", json = r.string() ?? ""
        let ms = r.int()
        let assets = r.strings()
        let printed = r.string()
        let diff = r.string()
        let nearMiss = r.int() == 1
        guard r.complete else { return nil }
        self.init(name: name, expected: expected, actual: actual, status: status, line: line, json: json,
                  milliseconds: ms, assets: assets, printed: printed, diff: diff, nearMiss: nearMiss)
    }

    mutating func attach(printed text: String) {
        printed = text
    }
}
