#if canImport(Glibc)
import Glibc
#endif
import ImageCompare
import ImageScaler

/// The outcome of checking an image against its golden: the same comparison and verdict
/// as `imgscale compare` (`ImageDifference`, `CompareLimits`), so a test and the CLI
/// never disagree. Goldens are PNGs in `__Goldens__/` beside the test file, named
/// after the check (`ImageFormat.lossless`'s extension added); a missing golden, or any golden when `IMGSCALE_RECORD=1` is set, is
/// recorded from the image instead (and the check says so, so CI never passes on a
/// fresh recording). A failure writes the actual image and a diff beside the goldens,
/// in `__Goldens__/__Failures__/`, and names them.
public enum GoldenCheck: Equatable, Sendable {
    case matched
    case recorded(path: String)
    case failed(message: String)

    /// Compares `image` with the golden `name` under `directory` (by default the
    /// `__Goldens__` folder beside `file`).
    public static func check(_ image: PixelBuffer, named name: String, comparison: ImageComparison = ImageComparison(),
                             limits: CompareLimits = CompareLimits(), directory: String? = nil,
                             file: StaticString = #filePath) -> GoldenCheck {
        let dir = directory ?? goldensDirectory(beside: "\(file)")
        let ext = "." + ImageFormat.lossless.fileExtension, path = dir + "/" + name + ext
        let record = getenv("IMGSCALE_RECORD").map { String(cString: $0) == "1" } ?? false
        let golden: PixelBuffer?
        do {
            golden = record ? nil : try ImageCodec.decode(try ImageFile.read(path)).0
        } catch FileError.read {
            golden = nil
        } catch {
            return .failed(message: "golden \(path) cannot be read: \(error)")
        }
        guard let expected = golden else {
            do {
                try ImageFile.makeDirectory(dir)
                try ImageFile.write(try ImageCodec.encode(image, as: .lossless), to: path)
                return .recorded(path: path)
            } catch {
                return .failed(message: "cannot record golden \(path): \(error)")
            }
        }
        // The verdict `imgscale compare` gives (`PairVerdict`), SSIM included where the
        // limits ask for it.
        let verdict: PairVerdict
        do { verdict = try PairVerdict(expected: expected, actual: image, comparison: comparison, limits: limits, keepClasses: true) } catch {
            return .failed(message: "\(error)")
        }
        if verdict.matches { return .matched }
        let (e, a, d, sameSize) = (verdict.expected, verdict.actual, verdict.difference, verdict.sameSize)
        let failures = dir + "/__Failures__"
        var message = sameSize ? "\(d.differingPixels) pixels differ (max difference \(d.maxDifference), PSNR "
            + (d.psnr.isInfinite ? "inf" : GoldenCheck.twoDecimals(d.psnr)) + " dB)" : "size \(image.size) vs golden \(expected.size)"
        do {
            try ImageFile.makeDirectory(failures)
            try ImageFile.write(try ImageCodec.encode(image, as: .lossless), to: failures + "/\(name)\(ext)")
            try ImageFile.write(try ImageCodec.encode(try DiffImage.render(expected: e, actual: a, difference: d, style: .sideBySide), as: .lossless),
                                to: failures + "/\(name).diff\(ext)")
            message += "; actual and diff (expected | actual | diff) written to \(failures)/\(name)\(ext) and \(name).diff\(ext)"
        } catch {
            message += "; the diff could not be written: \(error)"
        }
        return .failed(message: "golden \(name): " + message)
    }

    static func goldensDirectory(beside file: String) -> String {
        let dir = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
        return dir + "/__Goldens__"
    }

    /// PSNR as the CLI prints it: rounded to two decimals, never truncated.
    static func twoDecimals(_ v: Double) -> String {
        let n = Int((v * 100).rounded())
        return "\(n / 100)." + (n % 100 < 10 ? "0" : "") + "\(n % 100)"
    }
}
