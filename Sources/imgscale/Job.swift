import ImageScaler

/// One input, one plan, one output: the unit the batch runner schedules. Paths are
/// `FileName` strings. With no `format` (an output name without an image extension,
/// or `-o -`), the output takes the input's own format, as mogrify does.
struct Job: Sendable {
    let input: String
    let output: String
    let format: ImageFormat?
    /// Why this input cannot be done, found while naming it; the rest of the batch goes on.
    var failure: String? = nil
}
