import CJPEGShim

/// Each level as the JPEG shim's severity threshold for libjpeg's warnings and errors.
extension FailOn {
    var jpegSeverity: Int32 {
        switch self {
        case .none: return Int32(CJPEG_SEVERITY_NEVER)
        case .truncated: return Int32(CJPEG_SEVERITY_TRUNCATED)
        case .error: return Int32(CJPEG_SEVERITY_ERROR)
        case .warning: return Int32(CJPEG_SEVERITY_WARNING)
        }
    }
}
