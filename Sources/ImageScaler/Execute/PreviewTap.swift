/// Watches the pixels one output's encoder is given and keeps them reduced to fit a box
/// (`ThumbnailBox`, Pillow's bicubic, alpha weighted), streaming, so a placeholder is
/// computed from exactly what was encoded without the output existing twice or being
/// decoded again. Each encode starts it over (a quality search encodes the same pixels
/// several times); `image` is the last complete one. Fed by one encoding thread at a
/// time and read after the render; its state is locked all the same.
package final class PreviewTap: @unchecked Sendable {  // all state under `state`'s lock
    package let box: Size
    private struct State {
        var resampler: RowResampler? = nil
        var rows = 0
        var height = 0
        var image: PixelBuffer? = nil
    }
    private let state = Locked(State())

    package init(box: Size) { self.box = box }

    /// The picture reduced, once an encode has been given every row.
    package var image: PixelBuffer? { state.withLock { $0.image } }

    /// A new encode of `width` x `height` pixels of `channels` channels starts.
    func begin(width: Int, height: Int, channels: Int) {
        let source = Size(width: width, height: height)
        state.withLock { s in
            s = State(image: s.image)
            guard width > 0, height > 0 else { return }
            s.resampler = RowResampler(source: source, channels: channels, rect: SamplingRect(Rect(size: source)),
                                       target: ThumbnailBox.fit(source, into: box), filter: .bicubic)
            s.height = height
        }
    }

    /// The next `count` rows of that encode.
    func add(_ rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) {
        state.withLock { s in
            guard let resampler = s.resampler else { return }
            for i in 0..<min(count, s.height - s.rows) { resampler.add(row: s.rows + i, rows + i * bytesPerRow) }
            s.rows += count
            if s.rows >= s.height {
                s.image = resampler.finish()
                s.resampler = nil
            }
        }
    }

    /// A whole picture encoded at once (a palette image, a frame, a 16-bit image narrowed).
    func take(_ image: PixelBuffer) {
        begin(width: image.width, height: image.height, channels: image.channels)
        image.pixels.withUnsafeBufferPointer { add($0.baseAddress!, count: image.height, bytesPerRow: image.bytesPerRow) }
    }
}
