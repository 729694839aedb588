import ImageScaler

/// An input's outcome as bytes, from a worker process to the batch's parent: integers
/// little-endian, strings as a length and their UTF-8 (a path's escaped bytes are
/// scalars of the string, so a name comes back exactly as it went). A message that
/// does not decode is treated by the parent like a worker that died.
enum OutcomeWire {
    static func encode(_ o: BatchReporter.InputOutcome) -> [UInt8] {
        var out: [UInt8] = []
        func int(_ v: Int) { withUnsafeBytes(of: Int64(v).littleEndian) { out += $0 } }
        func string(_ s: String?) {
            guard let s else { return int(-1) }
            let bytes = Array(s.utf8)
            int(bytes.count)
            out += bytes
        }
        string(o.input)
        string(o.error)
        int(o.warnings.count)
        o.warnings.forEach { string($0) }
        string(o.decodes)
        int(o.milliseconds)
        int(o.outputs.count)
        for output in o.outputs {
            string(output.output)
            string(output.status.rawValue)
            string(output.error)
            int(output.size?.width ?? -1)
            int(output.size?.height ?? -1)
        }
        return out
    }

    static func decode(_ bytes: [UInt8]) -> BatchReporter.InputOutcome? {
        var at = 0
        var bad = false
        func int() -> Int {
            guard bytes.count - at >= 8 else { bad = true; return 0 }
            var v: UInt64 = 0
            for i in 0..<8 { v |= UInt64(bytes[at + i]) << (8 * i) }
            at += 8
            return Int(Int64(bitPattern: v))
        }
        func string() -> String? {
            let n = int()
            guard n >= 0 else { return nil }
            guard n <= bytes.count - at else { bad = true; return nil }
            defer { at += n }
            return String(decoding: bytes[at ..< at + n], as: UTF8.self)
        }
        let input = string() ?? ""
        let error = string()
        let warningCount = int()
        guard !bad, warningCount >= 0, warningCount <= bytes.count else { return nil }
        let warnings = (0..<warningCount).map { _ in string() ?? "" }
        let decodes = string()
        let ms = int()
        let outputCount = int()
        guard !bad, outputCount >= 0, outputCount <= bytes.count else { return nil }
        var outputs: [BatchReporter.Outcome] = []
        for _ in 0..<outputCount {
            let path = string() ?? ""
            let status = BatchReporter.Status(rawValue: string() ?? "") ?? .failed
            let failure = string()
            let w = int(), h = int()
            outputs.append(.init(output: path, status: status, error: failure, size: w >= 0 && h >= 0 ? Size(width: w, height: h) : nil))
        }
        guard !bad, at == bytes.count else { return nil }
        return .init(input: input, error: error, warnings: warnings, decodes: decodes, outputs: outputs, milliseconds: ms)
    }
}
