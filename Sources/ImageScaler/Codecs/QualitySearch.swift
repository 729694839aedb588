import Glibc

/// Picks an encoder quality (1-100) for one image by what the file gives: the lowest
/// whose decoded pixels score at least `targetSSIM` against the image (`SSIM`), and at
/// most the highest whose file fits `maxBytes`. Scores and sizes rise with the quality
/// (near enough: the search treats them as monotonic), so the answer is bracketed and the
/// bracket narrowed to one step, each probe placed where the measure is predicted to cross
/// (log(1 - SSIM) and log(bytes) run nearly straight with quality): between the bracket's
/// ends (Illinois regula falsi), or along the last two probes before there is a bracket.
/// Each probe aims past the predicted crossing, so probes tend to alternate sides. For
/// --target-ssim the format's typical curve (its shape) places the probes: on the camera
/// photos at 256 and 1024 wide and targets 0.95-0.99, 3.25 encodes on average for JPEG,
/// 3.7 for WebP, 3.9 for AVIF (256 wide), where a straight line took 4.2 and 4.5; on
/// other test images 4.1 and 3.5. For --max-bytes 3.25.
/// Deterministic: the same probes in the same order every run. The image was resampled
/// once; only encode and decode repeat.
package struct QualitySearch {
    /// The encoder at a quality: the file.
    let encode: (Int) throws -> [UInt8]
    /// The file's pixels.
    let decode: ([UInt8]) throws -> PixelBuffer
    /// The image the files are scored against.
    let image: PixelBuffer
    let targetSSIM: Double?
    let maxBytes: Int?
    /// The format's typical -log(1 - SSIM) at qualities 0, 5, ..., 100
    /// (`CodecDescriptor.Writer.qualityShape`), or nil.
    var shape: [Double]? = nil

    /// What the search settled on.
    struct Choice {
        let bytes: [UInt8]
        let quality: Int
        /// The chosen file's score, when a target asked for one.
        let ssim: Double?
        /// Probes encoded.
        let encodes: Int
        let warnings: [String]
    }

    func run() throws -> Choice {
        var files: [Int: [UInt8]] = [:]
        var scores: [Int: Double] = [:]
        func file(_ q: Int) throws -> [UInt8] {
            if let f = files[q] { return f }
            let f = try encode(q)
            files[q] = f
            return f
        }
        func score(_ q: Int) throws -> Double {
            if let s = scores[q] { return s }
            let s = SSIM.score(image, try decode(try file(q)))
            scores[q] = s
            return s
        }
        var warnings: [String] = []
        var quality = 100
        if let target = targetSSIM {
            // The lowest quality whose score reaches the target. With the format's shape
            // the search works along it, where a photo's -log(1 - SSIM) is the shape
            // shifted: the first probe is where the shape meets the target, and each
            // probe's score gives the shift that places the next.
            let goal = -log(max(1 - target, 1e-9))
            let measure = { (q: Int) throws -> Double in -log(max(1 - (try score(q)), 1e-9)) - goal }
            let q: Int?
            if let shape {
                let along = QualitySearch.Along(shape)
                q = try QualitySearch.boundary(start: Int(along.quality(at: goal).rounded()), top: 101,
                                               isAbove: { try score($0) >= target }, measure: measure,
                                               scale: along.value, inverse: along.quality, slope: 1)
            } else {
                // A first probe where the camera photos' JPEGs reach the target: quality 45
                // for 0.95, 83 for 0.98, straight in 1 - SSIM between and beyond.
                let start = min(max(Int((83 - ((1 - target) - 0.02) * 1267).rounded()), 5), 95)
                q = try QualitySearch.boundary(start: start, top: 101, isAbove: { try score($0) >= target }, measure: measure)
            }
            if let q {
                quality = q
            } else {
                warnings.append("--target-ssim \(target): quality 100 scores \(QualitySearch.format(try score(100))), written at 100")
            }
        }
        if let limit = maxBytes, try targetSSIM == nil || file(quality).count > limit {
            // The highest quality that fits: one below the lowest that does not.
            let tooBig = try QualitySearch.boundary(start: min(quality, 75), top: quality + 1, isAbove: { try file($0).count > limit },
                                                    measure: { log(Double(max(try file($0).count, 1))) - log(Double(max(limit, 1))) }) ?? (quality + 1)
            guard tooBig > 1 else { throw EncodeError.overBudget(bytes: try file(1).count, limit: limit) }
            if targetSSIM != nil && tooBig <= quality {
                warnings.append("--max-bytes \(limit): quality \(quality) met --target-ssim in \(try file(quality).count) bytes; written at \(tooBig - 1)")
            }
            quality = tooBig - 1
        }
        return Choice(bytes: try file(quality), quality: quality, ssim: targetSSIM == nil ? nil : try score(quality),
                      encodes: files.count, warnings: warnings)
    }

    /// The lowest quality in 1..<`top` at which `isAbove` holds, given that it holds from
    /// some quality up (nil: not below `top`). `measure` is negative where `isAbove` does
    /// not hold and positive where it does, roughly straight in the quality. Each probe
    /// lies inside the bracket, so the search ends; where one end keeps moving, it halves.
    /// The measure is taken to run straight in `scale(q)` (by default q itself), `inverse`
    /// mapping a scale value back to a (fractional) quality, at a typical `slope` per unit
    /// of the scale until two probes give their own.
    package static func boundary(start: Int, top: Int, isAbove: (Int) throws -> Bool, measure: (Int) throws -> Double,
                         scale: (Int) -> Double = { Double($0) }, inverse: (Double) -> Double = { $0 },
                         slope typical: Double = 1.0 / 40) throws -> Int? {
        var lo = 0, hi = top
        var loValue: Double? = nil, hiValue: Double? = nil
        var probe = min(max(start, 1), top - 1)
        var lastAbove: Bool? = nil
        var previous: (Int, Double)? = nil
        while hi - lo > 1 {
            let above = try isAbove(probe), value = try measure(probe)
            if above { hi = probe; hiValue = value } else { lo = probe; loValue = value }
            // Illinois: an end that stays while the other moves twice counts half, so the
            // interpolation does not creep up on the boundary from one side.
            if lastAbove == above {
                if above { loValue = loValue.map { $0 / 2 } } else { hiValue = hiValue.map { $0 / 2 } }
            }
            lastAbove = above
            guard hi - lo > 1 else { break }
            // Where the measure crosses zero, by the bracket's ends, else by the line
            // through the last two probes, else by the typical slope (without a shape,
            // 1/40 of the measure's unit a quality step: log(1 - SSIM) and log(bytes)
            // alike). Worked along the scale, then taken back to a quality.
            var slope = typical
            if let (q, v) = previous, q != probe, scale(probe) != scale(q),
               (value - v) / (scale(probe) - scale(q)) > 0.08 * typical {
                slope = (value - v) / (scale(probe) - scale(q))
            }
            previous = (probe, value)
            let crossing: Double
            if let a = loValue, let b = hiValue, b > a {
                crossing = inverse(scale(lo) + (scale(hi) - scale(lo)) * -a / (b - a))
            } else {
                crossing = inverse(scale(probe) - value / slope)
            }
            // Aim for the other side of the crossing than this probe fell on: after a probe
            // above, the last quality predicted below; after one below, the first predicted
            // above. Each probe then tends to flip sides, and two right predictions in a
            // row leave the bracket one step wide.
            let firstAbove = Int(crossing.rounded(.up))
            probe = min(max(above ? firstAbove - 1 : firstAbove, lo + 1), hi - 1)
        }
        return hi >= top ? nil : hi
    }

    /// Piecewise-linear along a shape of 21 points (qualities 0, 5, ..., 100), rising;
    /// beyond its ends it runs on at the end segments' slopes.
    package struct Along {
        let points: [Double]

        package init(_ points: [Double]) {
            precondition(points.count == 21 && zip(points, points.dropFirst()).allSatisfy { $0 < $1 }, "a shape must rise over 21 points")
            self.points = points
        }

        package func value(_ q: Int) -> Double { value(Double(q)) }

        func value(_ q: Double) -> Double {
            let i = min(max(Int((q / 5).rounded(.down)), 0), 19)
            return points[i] + (points[i + 1] - points[i]) * (q - Double(i * 5)) / 5
        }

        /// The quality at which the shape reaches `v`.
        package func quality(at v: Double) -> Double {
            var i = 0
            while i < 19 && points[i + 1] < v { i += 1 }
            return Double(i * 5) + 5 * (v - points[i]) / (points[i + 1] - points[i])
        }
    }

    static func format(_ ssim: Double) -> String {
        let scaled = Int((ssim * 10000).rounded())
        let text = String(scaled)
        return scaled >= 10000 ? "1.0000" : "0." + String(repeating: "0", count: max(0, 4 - text.count)) + text
    }
}
