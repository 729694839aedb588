/// An ICO of one entry, written as rows: the rows go to a PNG encoder, and `finish`
/// puts its file into the icon's directory.
final class ICOEncoder: RowEncoder {
    private let entry: any RowEncoder
    private let size: Size

    init(entry: any RowEncoder, size: Size) {
        self.entry = entry
        self.size = size
    }

    func write(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        try entry.write(rows, count: count, bytesPerRow: bytesPerRow)
    }

    func finish() throws -> [UInt8] {
        try ICOContainer.file([(size, try entry.finish())])
    }
}
