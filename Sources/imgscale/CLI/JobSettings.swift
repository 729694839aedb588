import ImageScaler

/// Everything a job needs besides its paths and operations, shared by every job of a batch.
struct JobSettings: Sendable {
    var decode = DecodeOptions()
    var encode = EncodeOptions()
    var render = RenderSettings()
    /// Whether each output's length, format and SHA-256 are wanted (`--report`,
    /// `--if-changed`); hashing is not paid for otherwise.
    var fileFacts = false
    /// `--placeholder`: what each output's report line adds, in this order.
    var placeholders: [Placeholder] = []
    /// `--blurhash-components`.
    var blurhashComponents = (x: 4, y: 3)
}
