import ImageScaler

/// libFuzzer target: the files and lines imgscale reads besides images, each of which a
/// stranger may write (a repository's committed `.imgscale-manifest` and goldens rules, a
/// test runner's requests to `compare --server`): the JSON reader, the manifest, a rules
/// file and a server request line, from the same bytes. Anything malformed must only
/// ever be refused.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFiles(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    _ = try? JSONValue.parse(bytes)
    _ = try? JSONValue.parseWithLines(bytes)
    _ = BuildManifest.parse(bytes)
    _ = try? GoldenRules.parse(bytes, path: "goldens/imgscale-goldens.json")
    for line in bytes.split(separator: 0x0A) {
        _ = CompareServer.parse(String(decoding: line, as: UTF8.self))
    }
    return 0
}
