import ImageScaler

/// libFuzzer target: the argument parser and value parsers over arbitrary argument
/// vectors (NUL-separated in the input), and the planner that turns them into jobs.
/// Usage errors must only ever throw.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArgs(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let argv = bytes.split(separator: 0, omittingEmptySubsequences: false).map { FileName.decode($0) }
    // --files-from is left out: it would read whatever path the input names.
    let table = Commands.all.first { $0.name == "fill" }!.options.filter { $0.long != "files-from" }
    guard let args = try? ArgumentParser(options: table).parse(argv) else { return 0 }
    for (key, values) in args.values {
        for v in values {
            _ = try? ValueParser.size(v, option: key)
            _ = try? ValueParser.rect(v, option: key)
            _ = try? ValueParser.int(v, option: key, range: 0...100)
            _ = RGBColor(hex: v)
            _ = try? ValueParser.byteSize(v, option: key)
            _ = FileName.display(v)
        }
    }
    if let operations = try? Commands.fillOperations(args) {
        _ = try? BatchPlanner(args: args, operations: operations, limit: 1 << 20).jobs()
        for case .fill(let size, let from, let origin, let gravity, let focus) in operations {
            _ = try? Scaling.plan(source: Size(width: 640, height: 427), target: size, from: from, origin: origin, gravity: gravity, focus: focus)
        }
    }
    return 0
}
