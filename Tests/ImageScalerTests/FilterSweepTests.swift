import XCTest
import TestReferences
import Foundation
import ImageScaler

/// Every filter against Pillow at hundreds of random sizes, where fixed-point rounding
/// edges live (a few fixed images cannot reach them): 400 random shapes, each shrunk
/// and enlarged with all six filters, as L and as RGBA, all made by one Python process.
///
/// The reference is Pillow's C resampler called directly (`im.im.resize`): horizontal
/// pass, then vertical, the order of every Pillow 10 and 11 resize. Pillow 12's Python
/// layer runs the vertical pass first for images over 100 times taller than wide whose
/// height shrinks (a separate 8-bit pass each, so near-ties move by a level); imgscale
/// keeps the classic order for every shape, and the tall shapes here are held to it.
final class FilterSweepTests: XCTestCase {
    static let script = """
    import json, os, random, sys
    from PIL import Image
    out = sys.argv[1]
    rng = random.Random(29)
    filters = ['nearest', 'box', 'bilinear', 'hamming', 'bicubic', 'lanczos']
    cases = []
    for n in range(400):
        # Long rows and long columns both: each pass meets many weights.
        long, short = rng.randint(1, 1200), rng.randint(1, 3)
        w, h = (long, short) if n % 2 == 0 else (short, long)
        for mode in ('L', 'RGBA'):
            data = bytes(rng.randrange(256) for _ in range(w * h * len(mode)))
            if mode == 'RGBA':
                # Alpha of every kind: transparent, opaque and in between.
                b = bytearray(data)
                for i in range(3, len(b), 4):
                    b[i] = rng.choice([0, 255, b[i], 1])
                data = bytes(b)
            src = 'in%d%s.raw' % (n, mode)
            open(os.path.join(out, src), 'wb').write(data)
            im = Image.frombytes(mode, (w, h), data)
            for f in filters:
                for grow in (False, True):
                    ow = rng.randint(w, 2 * w + 3) if grow else rng.randint(1, w)
                    oh = rng.randint(h, 2 * h + 3) if grow else rng.randint(1, h)
                    filt = getattr(Image.Resampling, f.upper())
                    if (ow, oh) == (w, h):
                        r = im.copy()  # as Image.resize: its own size is a copy, never premultiplied
                    else:
                        base = im.convert('RGBa') if mode == 'RGBA' and f != 'nearest' else im
                        r = base._new(base.im.resize((ow, oh), filt, (0, 0, w, h)))
                        if r.mode == 'RGBa':
                            r = r.convert('RGBA')
                    dst = 'out%d.raw' % len(cases)
                    open(os.path.join(out, dst), 'wb').write(r.tobytes())
                    cases.append([src, mode, w, h, f, ow, oh, dst])
    json.dump(cases, open(os.path.join(out, 'cases.json'), 'w'))
    """

    func testEveryFilterEqualsPillowAtRandomSizes() throws {
        let dir = NSTemporaryDirectory() + "imgscale-sweep-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard Fixtures.python(Self.script, [dir]) != nil,
              let cases = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/cases.json"))) as? [[Any]] else {
            throw missingReference("python3 with Pillow is not available (scripts/install-deps --test installs it)")
        }
        XCTAssertEqual(cases.count, 400 * 2 * 6 * 2)
        var inputs: [String: [UInt8]] = [:]
        var failures = 0
        for c in Sweep.sample(cases, every: 8) {
            let (src, mode, w, h, f, ow, oh, dst) = (c[0] as! String, c[1] as! String, c[2] as! Int, c[3] as! Int,
                                                     c[4] as! String, c[5] as! Int, c[6] as! Int, c[7] as! String)
            if inputs[src] == nil { inputs = [src: try ImageFile.read(dir + "/" + src)] }
            let image = try PixelBuffer(width: w, height: h, channels: mode == "L" ? 1 : 4, pixels: inputs[src]!)
            let ours = Resampler.resample(image, from: SamplingRect(Rect(size: image.size)), to: Size(width: ow, height: oh),
                                          filter: ResampleFilter(rawValue: f)!)
            let theirs = try ImageFile.read(dir + "/" + dst)
            if ours.pixels != theirs {
                failures += 1
                if failures <= 10 {
                    let differ = zip(ours.pixels, theirs).filter { $0 != $1 }.count
                    XCTFail("\(f) \(mode) \(w)x\(h) -> \(ow)x\(oh): \(differ) of \(theirs.count) samples differ")
                }
            }
        }
        XCTAssertEqual(failures, 0)
    }
}
