import ImageScaler

/// Everything a job needs besides its paths and operations, shared by every job of a batch.
struct JobSettings: Sendable {
    var decode = DecodeOptions()
    var encode = EncodeOptions()
    var render = RenderSettings()
}
