import ImageScaler

/// One input and the outputs made from it, the unit the batch runner schedules: the
/// input is read and decoded once for all of them. Paths are `FileName` strings.
struct Job: Sendable {
    /// One output: where it goes, in which format, made by which operation (one per
    /// `--size`). With no `format` (a name without an image extension, or `-o -`), it
    /// takes the input's own format, as mogrify does.
    struct Output: Sendable {
        let path: String
        let format: ImageFormat?
        let operation: ImageOperation
        /// For a container of sizes (ICO): the other sizes the same file holds, after
        /// `operation`'s; empty for every other output.
        var entries: [ImageOperation] = []
        /// Why this output cannot be made, found while naming it; the rest go on.
        var failure: String? = nil
        /// The size it will have, when the name needed it (`{width}`, `{height}`).
        var produced: Size? = nil
        /// Said of it once, in the report and under `-v` ("--size 1920x and --size 3840x
        /// give the same file ...").
        var note: String? = nil
    }

    /// The job's place in the batch as given: reports come in this order.
    let index: Int
    let input: String
    var outputs: [Output]
}
