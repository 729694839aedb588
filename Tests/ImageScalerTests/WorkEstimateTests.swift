import XCTest
import ImageScaler

/// `--timeout`'s default grows with what a job costs: never under what was measured for
/// an ordinary job (a 12 MP AVIF took 14.6 s on 2 cores), and at its floor for a thumbnail.
final class WorkEstimateTests: XCTestCase {
    private func header(_ w: Int, _ h: Int, _ format: ImageFormat, frames: Int = 1) -> ImageInfo {
        var info = ImageInfo(format: format, size: Size(width: w, height: h), channels: 3, bitDepth: 8, colorModel: .rgb,
                             orientation: .up, interlaced: false, iccProfile: nil, exif: nil, xmp: nil)
        info.frames = frames
        return info
    }

    func testAnOrdinaryJobHasRoomAndAThumbnailHasTheFloor() {
        let photo = header(4032, 3024, .jpeg)
        let avif = WorkEstimate.seconds(header: photo, outputs: [RenderOutput(.convert, as: .avif)], encode: EncodeOptions(), animated: false, floor: 10)
        // 12.2 MP: 30 ns to decode, 100 x 12 ns to encode, a pixel; tripled, on the floor.
        // (Typed constants: the same sum in literals takes the type checker seconds.)
        let pixels: Double = 12_192_768, decode: Double = pixels * 30e-9, encode: Double = pixels * 1_200e-9
        XCTAssertEqual(avif, 10 + 3 * (decode + encode), accuracy: 1e-6)
        XCTAssertGreaterThan(avif, 2 * 14.6)
        let thumb = WorkEstimate.seconds(header: photo, outputs: [RenderOutput(.fill(Size(width: 64, height: 64)), as: .jpeg)],
                                         encode: EncodeOptions(), animated: false, floor: 10)
        XCTAssertLessThan(thumb, 11.2)
        var search = EncodeOptions()
        search.targetSSIM = 0.95
        let searched = WorkEstimate.seconds(header: photo, outputs: [RenderOutput(.convert, as: .avif)], encode: search, animated: false, floor: 10)
        XCTAssertEqual(searched - 10, 3 * (decode + 5 * encode), accuracy: 1e-6)
        // Frames count only when they are all rendered; a hostile header is capped.
        let frames = header(2000, 2000, .gif, frames: 999)
        let still = WorkEstimate.seconds(header: frames, outputs: [RenderOutput(.convert, as: .gif)], encode: EncodeOptions(), animated: false, floor: 10)
        let all = WorkEstimate.seconds(header: frames, outputs: [RenderOutput(.convert, as: .gif)], encode: EncodeOptions(), animated: true, floor: 10)
        XCTAssertEqual(all - 10, 999 * (still - 10), accuracy: 1e-6)
        XCTAssertEqual(WorkEstimate.seconds(header: header(1 << 30, 1 << 30, .avif, frames: 1 << 20), outputs: [RenderOutput(.convert)],
                                            encode: EncodeOptions(), animated: true, floor: 10), 1e7)
    }
}
