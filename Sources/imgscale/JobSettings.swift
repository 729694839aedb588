import ImageScaler

/// Everything a job needs besides its paths, shared by every job of a batch.
struct JobSettings {
    var operation: ImageOperation
    var decode = DecodeOptions()
    var encode = EncodeOptions()
    var autoOrient = true
    var keepProfile = true
    /// Encode on a second thread while decoding: worth it only when cores would
    /// otherwise sit idle, that is when fewer jobs run at once than there are cores.
    var concurrent = false
}
