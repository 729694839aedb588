import ImageScaler

/// One input, one plan, one output: the unit the batch runner schedules.
struct Job {
    let input: String
    let output: String
    let format: ImageFormat
}
