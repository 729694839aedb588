/// An integral rectangle of pixels. `x, y` is its top-left corner in top-left-origin
/// image coordinates unless a function says otherwise; width and height may be zero
/// only as the result of an empty intersection.
public struct Rect: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public init(size: Size) {
        self.init(x: 0, y: 0, width: size.width, height: size.height)
    }

    public var size: Size { Size(width: width, height: height) }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// `X,Y,W,H`, the form `plan` prints and `--from` reads.
    public var description: String { "\(x),\(y),\(width),\(height)" }

    /// The overlap of two rects, or nil when they do not share a pixel.
    public func intersection(_ other: Rect) -> Rect? {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(maxX, other.maxX), y1 = min(maxY, other.maxY)
        guard x1 > x0, y1 > y0 else { return nil }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Converts between the two origins inside an image `imageHeight` rows tall. The
    /// flip is its own inverse, so the same call converts either way.
    public func flipped(from origin: Rect.Origin, imageHeight: Int) -> Rect {
        switch origin {
        case .topLeft: return self
        case .bottomLeft: return Rect(x: x, y: imageHeight - y - height, width: width, height: height)
        }
    }
}
