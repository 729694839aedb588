import ImageScaler

/// Everything a job needs besides its paths, shared by every job of a batch.
struct JobSettings: Sendable {
    var operation: ImageOperation
    var decode = DecodeOptions()
    var encode = EncodeOptions()
    var render = RenderSettings()
}
