import XCTest
import Foundation
import ImageScaler
import ImageCompare
import ImageScalerTesting

/// `imgscale compare` and ImageScalerTesting's golden check give one verdict
/// (`PairVerdict`): 200 pairs, 20 under each of ten settings (tolerances, pixel and
/// percentage allowances, pixelmatch's rule with anti-aliasing ignored and counted, ΔE,
/// an ignored rect, PSNR and SSIM floors), some of different sizes, each judged by the
/// CLI over a directory and by `GoldenCheck`: the same match or differ, and where the
/// check fails the same differing pixels, largest difference and PSNR.
final class VerdictAgreementTests: XCTestCase {
    private struct Setting {
        let flags: [String]
        var comparison = ImageComparison()
        var limits = CompareLimits()
    }

    func testTwoHundredPairsGetOneVerdictFromTheCLIAndTheGoldenCheck() throws {
        let settings: [Setting] = [
            Setting(flags: []),
            Setting(flags: ["--tolerance", "3"], comparison: ImageComparison(rule: .tolerance(3))),
            Setting(flags: ["--tolerance", "1", "--max-pixels-differ", "5"], comparison: ImageComparison(rule: .tolerance(1)),
                    limits: CompareLimits(allowed: .pixels(5))),
            Setting(flags: ["--max-pixels-differ", "2%"], limits: CompareLimits(allowed: .percent(2))),
            Setting(flags: ["--threshold", "0.1"], comparison: ImageComparison(rule: .perceptual(threshold: 0.1, countAntialiased: false))),
            Setting(flags: ["--threshold", "0.2", "--antialiasing", "count", "--max-pixels-differ", "10"],
                    comparison: ImageComparison(rule: .perceptual(threshold: 0.2, countAntialiased: true)), limits: CompareLimits(allowed: .pixels(10))),
            Setting(flags: ["--max-delta-e", "2.3"], comparison: ImageComparison(rule: .deltaE(2.3))),
            Setting(flags: ["--tolerance", "2", "--ignore", "0,0,12,12"],
                    comparison: ImageComparison(rule: .tolerance(2), ignore: [Rect(x: 0, y: 0, width: 12, height: 12)])),
            Setting(flags: ["--min-psnr", "40"], limits: CompareLimits(minPSNR: 40)),
            Setting(flags: ["--min-ssim", "0.97"], limits: CompareLimits(minSSIM: 0.97)),
        ]
        let root = CLI.tempDir()
        var seed: UInt64 = 0x5EED
        func random(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        var pairs: [(setting: Int, name: String, actual: PixelBuffer)] = []
        for (k, _) in settings.enumerated() {
            for i in 0..<20 {
                let (w, h, channels) = (12 + random(40), 12 + random(40), random(2) == 0 ? 3 : 4)
                var samples = [UInt8](repeating: 0, count: w * h * channels)
                for y in 0..<h {
                    for x in 0..<w {
                        for c in 0..<channels {
                            let value: Int = c == 3 ? 128 + random(128) : x * 5 + y * 3 + c * 60 + random(9)
                            samples[(y * w + x) * channels + c] = UInt8(truncatingIfNeeded: value)
                        }
                    }
                }
                let expected = try PixelBuffer(width: w, height: h, channels: channels, pixels: samples)
                // Unchanged, a few pixels nudged, many moved a little, or a blotch.
                var changed = samples
                let (count, step) = [(0, 0), (1, 1), (3, 4), (25, 2), (60, 12), (200, 1), (8, 90)][random(7)]
                for _ in 0..<count {
                    let at = random(w * h) * channels + random(min(channels, 3))
                    let moved: Int = Int(changed[at]) + (random(2) == 0 ? step : -step)
                    changed[at] = UInt8(clamping: moved)
                }
                // One pair in ten a column wider: a size difference.
                let wider = random(10) == 0
                var actual = try PixelBuffer(width: w, height: h, channels: channels, pixels: changed)
                if wider {
                    var rows: [UInt8] = []
                    for y in 0..<h {
                        let start: Int = y * w * channels
                        rows.append(contentsOf: changed[start..<(start + w * channels)])
                        rows.append(contentsOf: changed[start..<(start + channels)])
                    }
                    actual = try PixelBuffer(width: w + 1, height: h, channels: channels, pixels: rows)
                }
                let name = "p\(i)"
                for (sub, image) in [("goldens", expected), ("actual", actual)] {
                    try ImageFile.makeDirectory("\(root)/s\(k)/\(sub)")
                    try ImageFile.write(try ImageFile.encode(image, as: .png), to: "\(root)/s\(k)/\(sub)/\(name).png")
                }
                pairs.append((k, name, actual))
            }
        }
        // The CLI first: the golden check writes its failures beside the goldens.
        var cli: [String: [String: Any]] = [:]
        for (k, setting) in settings.enumerated() {
            let r = CLI.run(["compare", "\(root)/s\(k)/goldens", "\(root)/s\(k)/actual", "--json"] + setting.flags)
            XCTAssertNotEqual(r.status, 2, r.stderr)
            for line in r.stdout.split(separator: "\n") {
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let actual = object["actual"] as? String else { continue }
                cli["s\(k)/" + ((actual as NSString).lastPathComponent as String)] = object
            }
        }
        var matched = 0, compared = 0
        for pair in pairs {
            let key = "s\(pair.setting)/\(pair.name).png", setting = settings[pair.setting]
            guard let line = cli[key] else { XCTFail("no CLI line for \(key)"); continue }
            let check = GoldenCheck.check(pair.actual, named: pair.name, comparison: setting.comparison, limits: setting.limits,
                                          directory: "\(root)/s\(pair.setting)/goldens")
            let cliMatched = line["result"] as? String == "match"
            XCTAssertEqual(check == .matched, cliMatched, "\(key) \(setting.flags): the CLI said \(line["result"] ?? "-"), the check \(check)")
            if cliMatched { matched += 1 }
            compared += 1
            guard case .failed(let message) = check, line["reason"] == nil else { continue }
            let psnr = (line["psnr"] as? Double).map { GoldenCheckFigures.twoDecimals($0) } ?? "inf"
            let figures = "\(line["differing_pixels"] ?? "-") pixels differ (max difference \(line["max_difference"] ?? "-"), PSNR \(psnr) dB)"
            XCTAssertTrue(message.contains(figures), "\(key): the CLI's \(figures), the check's \(message)")
        }
        XCTAssertEqual(compared, 200)
        // Both verdicts occur often enough for the agreement to mean something.
        XCTAssertGreaterThan(matched, 30)
        XCTAssertLessThan(matched, 170)
    }
}

/// PSNR as both print it: two decimals, rounded.
private enum GoldenCheckFigures {
    static func twoDecimals(_ v: Double) -> String {
        let n = Int((v * 100).rounded())
        return "\(n / 100)." + (n % 100 < 10 ? "0" : "") + "\(n % 100)"
    }
}
