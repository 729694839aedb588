/// A width and height in whole pixels. Both are positive wherever the library accepts one.
public struct Size: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The side of a box left open (`fit --size 320x`): 2^24, the largest side accepted,
    /// so the other side always decides.
    public static let unbounded = 1 << 24

    public var pixelCount: Int { width * height }
    public var description: String { "\(width)x\(height)" }
}
