/// A failed read or write, with the system's own reason (strerror).
public enum FileError: Error, Equatable, CustomStringConvertible {
    case read(String)
    case write(String, path: String)

    public var description: String {
        switch self {
        case .read(let reason): return reason
        case .write(let reason, let path): return "cannot write \(path): \(reason)"
        }
    }
}
