/// Why an input could not become a `PixelBuffer`. Each message reads well after
/// "imgscale: <path>: " and quotes the codec library's own words where there are some.
public enum DecodeError: Error, Equatable, CustomStringConvertible {
    /// The frames of an animation together may hold this many times the pixel limit.
    public static let framePixelsFactor = 4

    case empty
    case unknownFormat
    /// The format's decoder refused the data, in its own (or its library's) words.
    case invalid(ImageFormat, String)
    case tooManyPixels(Size, limit: Int)
    /// An animation of more frames than `--max-frames` allows.
    case tooManyFrames(Int, limit: Int)
    /// An animation whose frames hold more pixels in all than `AnimationRender` plans
    /// for the pixel limit `limit` (16 times it).
    case tooManyFramePixels(frames: Int, Size, limit: Int)
    case badDimensions(Size)
    /// The two halves of a split decode did not fit together (a decoder bug, not data).
    case inconsistentHalves
    /// A codec's warning, fatal under `FailOn.warning`.
    case warning(String)
    /// Decoding and processing would need about `needed` bytes, over the budget.
    case overBudget(needed: Int, budget: Int)
    /// The system refused memory the budget allowed (`ulimit -v`, a cgroup).
    case outOfMemory(Int)
    /// The page asked for (0-based) is not in the file, which holds `pages` of them;
    /// `name` is what the format calls them (nil: it holds one image).
    case noPage(Int, pages: Int, name: String?)
    /// Damage the decode was told to fail on, which `FailOn` level `tolerableAt` would
    /// let through (decoding what is there, with a warning).
    indirect case damaged(DecodeError, tolerableAt: RenderOptions.FailOn)

    /// `error`, marked as damage of kind `damage` (a `FailOn` severity).
    static func refusing(_ error: DecodeError, damage: FailOn) -> DecodeError {
        .damaged(error, tolerableAt: damage.strictestTolerating)
    }

    public var description: String {
        switch self {
        case .empty: return "empty file"
        case .unknownFormat:
            return "not a \(ImageFormat.names(ImageFormat.allCases, or: true)) file (unrecognised signature)"
        case .invalid(let format, let message): return "invalid \(format.displayName): \(message)"
        case .tooManyPixels(let size, let limit):
            return "image is \(size) = \(size.pixelCount) pixels, over the limit of \(limit)"
        case .tooManyFrames(let frames, let limit):
            return "\(frames) frames, over the limit of \(limit)"
        case .tooManyFramePixels(let frames, let size, let limit):
            return "\(frames) frames of \(size) are \(frames * size.width * size.height) pixels in all, over \(DecodeError.framePixelsFactor) times the limit of \(limit)"
        case .badDimensions(let size): return "unsupported image dimensions \(size)"
        case .warning(let text): return text
        case .inconsistentHalves: return "the two halves of a split decode disagree"
        case .overBudget(let needed, let budget):
            return "would need about \(MemoryBudget.describe(needed)), over the memory budget of \(MemoryBudget.describe(budget))"
        case .outOfMemory(let bytes):
            return "cannot allocate the \(MemoryBudget.describe(bytes)) it needs (out of memory)"
        case .noPage(let page, let pages, let name):
            guard let name else { return "no page \(page): this format holds one image a file" }
            return "no page \(page): the file holds \(pages) \(name)\(pages == 1 ? "" : "s"), numbered from 0"
        case .damaged(let error, _): return error.description
        }
    }
}
