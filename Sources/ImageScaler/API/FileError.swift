extension ImageFile {
    /// A failed read or write, with the system's own reason (strerror).
    public enum FileError: Error, Equatable, CustomStringConvertible {
        case read(String)
        case write(String, path: String)
        /// The input is longer than the bytes a job may hold (`limit`).
        case tooLarge(limit: Int)

        public var description: String {
            switch self {
            case .read(let reason): return reason
            case .write(let reason, let path): return "cannot write \(FileName.display(path)): \(reason)"
            case .tooLarge(let limit):
                return "file is larger than the memory budget of \(MemoryBudget.describe(limit)); refusing to read it whole"
            }
        }
    }
}

/// The name the package's own code uses.
package typealias FileError = ImageFile.FileError
