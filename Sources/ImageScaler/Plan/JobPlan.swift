/// The whole of one job worked out before a pixel is decoded: the input's header, each
/// output's decode, stages and encoder, the threads and the memory. It is made by the
/// same planning `ImageOperation.render` runs (the `RenderPlan`s, the executor's passes
/// and split, the metadata each format can carry), so it says what a render of the same
/// arguments does. Printed by `imgscale plan COMMAND ...`; `Equatable` for tests.
package struct JobPlan: Equatable, Sendable {
    /// How one decode runs.
    package struct Decode: Equatable, Sendable {
        /// Decoded at 1/`shrink` of the stored size.
        package let shrink: Int
        /// The rows and columns decoded, in the shrunk image's stored pixels; nil: all.
        package let window: Rect?
        /// How the decode uses a second core: "none", "two parts at once, split at row N",
        /// or "a lent thread".
        package let split: String
        /// The outputs (by index) this decode feeds.
        package let outputs: [Int]
        /// The size a drawn picture (SVG) is drawn at for them; nil for stored pixels.
        package var drawn: Size? = nil
    }

    /// One output: what it is made by, and how it is written.
    package struct Output: Equatable, Sendable {
        package let operation: String
        /// The result's size, upright.
        package let size: Size
        /// stream (rows flow to the encoder), held (the small result is finished whole) or
        /// whole (the image decoded whole, then cut).
        package let path: String
        package let stages: [Stage]
        package let format: ImageFormat
        /// The encoder's settings, defaults resolved.
        package let settings: [String]
        /// The metadata written: "ICC 3144 bytes", "EXIF 1202 bytes", "XMP 480 bytes".
        package let metadata: [String]
        /// What the format cannot carry, said as the render's warning lines say it.
        package let dropped: [String]
    }

    package let input: ImageInfo
    package let outputs: [Output]
    /// The decodes, in the order they run (the most work first).
    package let decodes: [Decode]
    /// Threads the executor runs this image on.
    package let threads: Int
    /// Threads a decoder library starts of its own, outside that count (libheif's).
    package let libraryThreads: String?
    /// About the most bytes the job holds at once, and the budget.
    package let memory: Int
    package let budget: Int
    /// How the outputs run within the budget when not all at once with an encoder on
    /// each thread (`RenderSchedule`): "2 rounds, each decoding again (...): outputs 1, 3; 2";
    /// nil when they do.
    package var schedule: String? = nil

    /// The plan as `imgscale plan` prints it, one fact a line, each output under its
    /// name in `names` (its number without).
    package func lines(names: [String] = []) -> [String] {
        var out = ["input: \(input.format.displayName) \(input.size), \(input.channels) channel\(input.channels == 1 ? "" : "s") (\(input.colorModel.rawValue)), "
                   + "\(input.bitDepth)-bit" + (input.orientation == .up ? "" : ", orientation \(input.orientation.rawValue)")]
        for d in decodes {
            out.append("decode: " + (d.drawn.map { "drawn at \($0), " } ?? "")
                       + "1/\(d.shrink) " + (d.window.map { "rows and columns \($0)" } ?? "whole") + ", \(d.split); for output "
                       + d.outputs.map { "\($0 + 1)" }.joined(separator: ", "))
        }
        for (i, o) in outputs.enumerated() {
            out.append("output \(i + 1)" + (i < names.count ? ": \(names[i])" : ""))
            out.append("  \(o.operation) -> \(o.size), \(o.path) path")
            out.append("  stages: " + (o.stages.isEmpty ? "none" : o.stages.map(\.description).joined(separator: ", ")))
            out.append("  encoder: \(o.format.displayName), " + o.settings.joined(separator: ", ")
                       + "; metadata: " + (o.metadata.isEmpty ? "none" : o.metadata.joined(separator: ", ")))
            for d in o.dropped { out.append("  warning: \(d)") }
        }
        out.append("threads: \(threads)" + (libraryThreads.map { "; \($0)" } ?? ""))
        if let schedule { out.append("schedule: \(schedule)") }
        out.append("memory: about \(MemoryBudget.describe(memory)) of \(budget >= Int.max / 2 ? "no budget" : MemoryBudget.describe(budget))"
                   + (memory > budget ? " (over: the render would be refused)" : ""))
        return out
    }
}
