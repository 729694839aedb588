#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

// srcset FILE BYTES: FILE-320w.webp, -640w, -1280w and their @2x beside FILE, each at
// the highest quality whose file is at most BYTES (100000, or 100K), upright, and the
// <img srcset> line that names them. Widths past the picture's own are left out, never
// made by upscaling; an output even quality 1 cannot fit is reported.
let args = Array(CommandLine.arguments.dropFirst())
func bytes(_ text: String) -> Int? {
    let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20]
    if let unit = text.last.flatMap({ units[$0] }) { return Int(text.dropLast()).map { $0 * unit } }
    return Int(text)
}
guard args.count == 2, let budget = bytes(args[1]), budget > 0 else {
    print("usage: srcset FILE BYTES   (BYTES: 100000, 100K or 1M)")
    exit(2)
}
let path = args[0]
var options = RenderOptions()
options.encoding.maxBytes = budget
options.resize.upscale = false
var entries: [String] = [], failed = false
do {
    let input = try ImageFile.readImage(path)
    let widest = try ImageFile.info(input, options: options).uprightSize.width
    for width in [320, 640, 1280] {
        for scale in [1, 2] where width * scale <= widest {
            let name = path + "-\(width)w" + (scale == 2 ? "@2x" : "") + ".webp"
            do {
                // As wide as asked, as tall as the picture's shape makes it.
                let result = try ImageOperation.fit(Size(width: width * scale, height: width * scale * 8)).render(input, as: .webp, options: options)
                try ImageFile.write(result.bytes, to: name)
                entries.append("\(name) \(width * scale)w")
                print("\(name): \(result.size), quality \(result.quality.map(String.init) ?? "-"), \(result.bytes.count) bytes")
            } catch {
                print("\(name): \(error)")
                failed = true
            }
        }
    }
} catch {
    print("\(path): \(error)")
    exit(1)
}
print("<img srcset=\"\(entries.joined(separator: ", "))\">")
exit(failed ? 1 : 0)
