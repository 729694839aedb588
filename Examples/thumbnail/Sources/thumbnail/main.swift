#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

// thumbnail SIZE FILE...: a SIZExSIZE JPEG beside each file, centred crop, upright,
// decoded only as far as the thumbnail needs. Bad files are reported and skipped.
let args = Array(CommandLine.arguments.dropFirst())
guard args.count >= 2, let side = Int(args[0]), side > 0 else {
    print("usage: thumbnail SIZE FILE...")
    exit(2)
}
let fill = ImageOperation.fill(Size(width: side, height: side))
// One options value, grouped by intent; the defaults already suit files from strangers.
var options = RenderOptions()
options.resize.filter = .lanczos
options.encoding.quality = 80
options.limits.maxPixels = 100_000_000
var failed = false
for path in args.dropFirst() {
    do {
        let input = try ImageFile.readImage(path)
        let result = try fill.render(input, as: .jpeg, options: options)
        let output = path + "-thumb.jpg"
        try ImageFile.write(result.bytes, to: output)
        print("\(path) -> \(output) (\(result.size))")
    } catch {
        print("\(path): \(error)")
        failed = true
    }
}
exit(failed ? 1 : 0)
