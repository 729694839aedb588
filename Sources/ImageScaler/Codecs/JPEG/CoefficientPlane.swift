/// One JPEG component's blocks, row by row across the frame, 64 coefficients each in
/// natural order: as libjpeg sizes the component (`blocksWide` x `blocksHigh`, edge
/// blocks filled by repeating the last column and row), sampled `h` x `v` times per MCU.
struct CoefficientPlane {
    let h: Int
    let v: Int
    let blocksWide: Int
    let blocksHigh: Int
    var coefficients: [Int16]

    init(width: Int, height: Int, h: Int, v: Int, maxH: Int, maxV: Int) {
        self.h = h
        self.v = v
        blocksWide = (width * h + 8 * maxH - 1) / (8 * maxH)
        blocksHigh = (height * v + 8 * maxV - 1) / (8 * maxV)
        coefficients = [Int16](repeating: 0, count: blocksWide * blocksHigh * 64)
    }

    init(blocksWide: Int, blocksHigh: Int, h: Int, v: Int) {
        (self.blocksWide, self.blocksHigh, self.h, self.v) = (blocksWide, blocksHigh, h, v)
        coefficients = [Int16](repeating: 0, count: blocksWide * blocksHigh * 64)
    }
}
