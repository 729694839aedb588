import Foundation
import ImageScaler

// The resampler alone, in process: both passes (and premultiplying, with alpha) of one
// raw image, timed over repeats, with no decode, encode or process start around it.
// What scripts/bench --job resample runs beside Pillow's resize of the same bytes.
//
//   resample-kernel RAW WIDTH HEIGHT CHANNELS OUT_WIDTH OUT_HEIGHT FILTER REPEATS [OUT_RAW]
//
// Prints the median and fastest seconds of one resample and the source Gpx/s of each;
// writes the output's bytes to OUT_RAW when given, for the byte comparison with Pillow.
let args = CommandLine.arguments
guard args.count >= 9, let width = Int(args[2]), let height = Int(args[3]), let channels = Int(args[4]),
      let outWidth = Int(args[5]), let outHeight = Int(args[6]), let filter = ImageOperation.Filter(rawValue: args[7]),
      let repeats = Int(args[8]), repeats > 0 else {
    FileHandle.standardError.write(Data("usage: resample-kernel RAW WIDTH HEIGHT CHANNELS OUT_WIDTH OUT_HEIGHT FILTER REPEATS [OUT_RAW]\n".utf8))
    exit(2)
}
let bytes = [UInt8](FileManager.default.contents(atPath: args[1]) ?? Data())
guard bytes.count == width * height * channels else {
    FileHandle.standardError.write(Data("resample-kernel: \(args[1]) holds \(bytes.count) bytes, not \(width)x\(height)x\(channels)\n".utf8))
    exit(1)
}
let image = try PixelBuffer(width: width, height: height, channels: channels, pixels: bytes)
let rect = SamplingRect(x: 0, y: 0, width: Double(width), height: Double(height))
let target = Size(width: outWidth, height: outHeight)
var seconds: [Double] = []
var output = Resampler.resample(image, from: rect, to: target, filter: filter)
for _ in 0..<repeats {
    let start = DispatchTime.now().uptimeNanoseconds
    output = Resampler.resample(image, from: rect, to: target, filter: filter)
    seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}
seconds.sort()
let median = seconds[seconds.count / 2], fastest = seconds[0]
let pixels = Double(width * height)
print(String(format: "median %.5f s %.3f Gpx/s fastest %.5f s %.3f Gpx/s", median, pixels / median / 1e9, fastest, pixels / fastest / 1e9))
if args.count > 9 {
    FileManager.default.createFile(atPath: args[9], contents: Data(output.pixels))
}
