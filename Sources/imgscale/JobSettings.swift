import ImageScaler

/// Everything a job needs besides its paths, shared by every job of a batch.
struct JobSettings {
    var operation: Operation
    var decode = DecodeOptions()
    var encode = EncodeOptions()
    var autoOrient = true
    var keepProfile = true
}
