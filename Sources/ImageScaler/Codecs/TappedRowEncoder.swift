/// A format's row encoder with a `PreviewTap` shown each row on its way in: the bytes
/// written are the inner encoder's alone.
final class TappedRowEncoder: RowEncoder {
    private let inner: any RowEncoder
    private let tap: PreviewTap

    init(_ inner: any RowEncoder, tap: PreviewTap, width: Int, height: Int, channels: Int) {
        self.inner = inner
        self.tap = tap
        tap.begin(width: width, height: height, channels: channels)
    }

    func write(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        try inner.write(rows, count: count, bytesPerRow: bytesPerRow)
        tap.add(rows, count: count, bytesPerRow: bytesPerRow)
    }

    func finish() throws -> [UInt8] { try inner.finish() }
}
