import XCTest
import Foundation

/// TIFFs whose cost is in the samples inflated, not the pixels kept: refused from the
/// header in one line, where the first ran 61.7 s at exit 0 (it inflated 550 GB from
/// 172 KB to keep one sample in 2,048). Crafted here, tag by tag.
final class TIFFCostTests: XCTestCase {
    func testSamplesSharedStripsAndInflatedBytesAreBoundedFromTheHeader() throws {
        let dir = CLI.tempDir()
        try python("""
            import struct, zlib
            def tiff(path, w, h, samples, bits, rows_per_strip, share, photometric=1):
                strips = (h + rows_per_strip - 1) // rows_per_strip
                row = w * samples * bits // 8
                data = zlib.compress(bytes(row * rows_per_strip), 9)
                out = bytearray(b'II*\\x00' + struct.pack('<I', 0))
                blobs = []
                def blob(b):
                    off = len(out); out.extend(b)
                    if len(out) % 2: out.append(0)
                    return off
                if share:
                    d = blob(data); offsets = [d] * strips
                else:
                    offsets = [blob(data) for _ in range(strips)]
                counts = [len(data)] * strips
                bps = blob(struct.pack('<%dH' % samples, *([bits] * samples))) if samples > 2 else None
                so = blob(struct.pack('<%dI' % strips, *offsets)) if strips > 1 else None
                sc = blob(struct.pack('<%dI' % strips, *counts)) if strips > 1 else None
                ex = blob(struct.pack('<%dH' % (samples - 1), *([0] * (samples - 1)))) if samples > 3 else None
                tags = []
                tags.append((256, 4, 1, w)); tags.append((257, 4, 1, h))
                if bps is None: tags.append((258, 3, samples, bits if samples == 1 else bits | bits << 16))
                else: tags.append((258, 3, samples, bps))
                tags.append((259, 3, 1, 8)); tags.append((262, 3, 1, photometric))
                tags.append((273, 4, strips, so if so is not None else offsets[0]))
                tags.append((277, 3, 1, samples)); tags.append((278, 4, 1, rows_per_strip))
                tags.append((279, 4, strips, sc if sc is not None else counts[0]))
                tags.append((284, 3, 1, 1))
                if ex is not None: tags.append((338, 3, samples - 1, ex))
                elif samples in (2, 3) and photometric == 1: tags.append((338, 3, samples - 1, 0))
                ifd = len(out)
                out.extend(struct.pack('<H', len(tags)))
                for t, ty, c, v in sorted(tags):
                    out.extend(struct.pack('<HHII', t, ty, c, v))
                out.extend(struct.pack('<I', 0))
                out[4:8] = struct.pack('<I', ifd)
                open(path, 'wb').write(out)
            tiff('samples.tif', 16383, 16383, 2048, 8, 1, True)
            tiff('shared.tif', 4096, 4096, 1, 8, 1, True)
            tiff('deep.tif', 16383, 16383, 17, 16, 64, True)
            tiff('ok.tif', 256, 256, 1, 8, 16, False)
            """, in: dir)
        let expected = [
            "samples.tif": "invalid TIFF: 2048 samples a pixel, over the 1 of its colour model and 16 extra",
            "shared.tif": "invalid TIFF: two of its strips start at one offset, so one compressed stream would be inflated again for each; refusing it",
            "deep.tif": "invalid TIFF: it would inflate 8.5 GiB of samples (16383x16383, 17 of 16 bits a pixel), over 16 bytes for each pixel the limit allows (raise it with --max-pixels)",
        ]
        for (name, message) in expected.sorted(by: { $0.key < $1.key }) {
            let start = Date()
            let r = CLI.run(["fill", dir + "/" + name, "--size", "64x64", "-o", dir + "/out.png"])
            XCTAssertEqual(r.status, 1, name)
            XCTAssertEqual(r.stderr, "imgscale: \(dir)/\(name): \(message)\n")
            XCTAssertLessThan(Date().timeIntervalSince(start), 5, name)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.png"))
        // The same tags with strips of their own, at an ordinary size, decode.
        XCTAssertEqual(CLI.run(["fill", dir + "/ok.tif", "--size", "64x64", "-o", dir + "/out.png"]).status, 0)
    }
}
