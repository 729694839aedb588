/// An encoder writing a file into memory from rows given top to bottom, so encoding
/// can start while later rows are still being made. Rows are in the layout of
/// `PixelBuffer` with the channels the encoder was made for. Deterministic: no
/// timestamps. One class per format conforms, in the codec's own files;
/// `ImageFormat.encoder(width:height:channels:options:)` picks it.
protocol RowEncoder: AnyObject {
    /// Encodes the next `count` rows, `bytesPerRow` apart.
    func write(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws
    /// Ends the file and returns its bytes; every row must have been written.
    func finish() throws -> [UInt8]
}

extension RowEncoder {
    /// Writes a whole buffer and finishes.
    func encode(_ image: PixelBuffer) throws -> [UInt8] {
        try image.pixels.withUnsafeBufferPointer {
            try write($0.baseAddress!, count: image.height, bytesPerRow: image.bytesPerRow)
        }
        return try finish()
    }
}
