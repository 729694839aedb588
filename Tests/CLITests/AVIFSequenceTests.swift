import XCTest
import TestReferences
import Foundation

/// AVIF image sequences, read as avifdec reads them: made here by avifenc from three RGBA
/// frames (8 and 10 bits), and the same file with its still item hidden (its `meta` box
/// renamed `free`), which libheif refuses. The first frame equals avifdec's, at 16 bits
/// too; under `--animated` every frame equals `avifdec --index`'s; a cut one is called
/// truncated in one line.
final class AVIFSequenceTests: XCTestCase {
    private func tool(_ name: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/\(name)") else {
            throw missingReference("\(name) is not installed (scripts/install-deps --test installs libavif-bin)")
        }
        return "/usr/bin/\(name)"
    }

    func testFramesEqualAvifdecs() throws {
        let (avifenc, avifdec) = (try tool("avifenc"), try tool("avifdec"))
        let dir = CLI.tempDir()
        try python("""
            import subprocess
            import numpy as np
            from PIL import Image
            y, x = np.mgrid[0:48, 0:64]
            for i in range(3):
                rgba = np.dstack([(x * 4 + i * 60) % 256, (y * 5) % 256, np.full_like(x, i * 80), np.where(x < 32, 128 + i * 40, 255)])
                Image.fromarray(rgba.astype(np.uint8), 'RGBA').save(f'f{i}.png')
            frames = ['f0.png', 'f1.png', 'f2.png']
            subprocess.run(['\(avifenc)', *frames, '-o', 'seq.avif'], check=True, capture_output=True)
            subprocess.run(['\(avifenc)', '-d', '10', *frames, '-o', 'seq10.avif'], check=True, capture_output=True)
            # The still item hidden: the top-level meta box renamed, its size kept, and the
            # brands that promise one (avif, mif1) made sequence brands, as in Netflix's.
            data = bytearray(open('seq.avif', 'rb').read())
            ftyp = int.from_bytes(data[0:4], 'big')
            data[0:ftyp] = data[0:ftyp].replace(b'avifavis', b'avisavis').replace(b'mif1', b'msf1')
            at = 0
            while at + 8 <= len(data):
                size = int.from_bytes(data[at:at + 4], 'big')
                if data[at + 4:at + 8] == b'meta':
                    data[at + 4:at + 8] = b'free'
                at += size
            open('only.avif', 'wb').write(bytes(data))
            open('cut.avif', 'wb').write(bytes(data[:len(data) * 2 // 3]))
            """, in: dir)
        for name in ["seq", "only"] {
            let r = CLI.run(["convert", "\(dir)/\(name).avif", "-o", "\(dir)/\(name)-ours.png"])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            XCTAssertEqual(CLI.sh("'\(avifdec)' \(name).avif \(name)-ref.png > /dev/null", cwd: dir).status, 0)
            let c = CLI.run(["compare", "--tolerance", "1", "\(dir)/\(name)-ref.png", "\(dir)/\(name)-ours.png"])
            XCTAssertEqual(c.status, 0, "\(name): \(c.stdout)")
            XCTAssertTrue(CLI.run(["info", "\(dir)/\(name).avif"]).stdout.contains("AVIF 64x48, 4 channels (rgba), 8-bit, 3 frames"), name)
        }
        XCTAssertEqual(CLI.run(["convert", "--depth", "16", dir + "/seq10.avif", "-o", dir + "/seq10-ours.png"]).status, 0)
        XCTAssertEqual(CLI.sh("'\(avifdec)' -d 16 seq10.avif seq10-ref.png > /dev/null", cwd: dir).status, 0)
        let animated = CLI.run(["convert", "--animated", "--lossless", dir + "/only.avif", "-o", dir + "/anim.webp"])
        XCTAssertEqual(animated.status, 0, animated.stderr)
        for i in 0..<3 {
            XCTAssertEqual(CLI.sh("'\(avifdec)' --index \(i) only.avif ref\(i).png > /dev/null", cwd: dir).status, 0)
        }
        try python("""
            import subprocess
            import numpy as np
            from PIL import Image, ImageSequence
            def samples(path):
                pam = subprocess.run(['pngtopam', '-alphapam', path], capture_output=True, check=True).stdout
                end = pam.index(b'ENDHDR\\n') + 7
                return np.frombuffer(pam[end:], '>u2').astype(int)
            ours, ref = samples('seq10-ours.png'), samples('seq10-ref.png')
            assert ours.shape == ref.shape and np.abs(ours - ref).max() <= 65535 / 1023, np.abs(ours - ref).max()
            assert len(np.unique(ours)) > 256
            frames = [np.asarray(f.convert('RGBA')).astype(int) for f in ImageSequence.Iterator(Image.open('anim.webp'))]
            assert len(frames) == 3, len(frames)
            for i, frame in enumerate(frames):
                theirs = np.asarray(Image.open(f'ref{i}.png').convert('RGBA')).astype(int)
                assert np.abs(frame - theirs).max() <= 1, (i, np.abs(frame - theirs).max())
            """, in: dir)
        let cut = CLI.run(["convert", dir + "/cut.avif", "-o", dir + "/cut.png"])
        XCTAssertEqual(cut.status, 1)
        XCTAssertEqual(cut.stderr.split(separator: "\n").count, 1, cut.stderr)
        XCTAssertTrue(cut.stderr.contains("cut.avif: invalid AVIF") && cut.stderr.contains("truncated"), cut.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/cut.png"))
    }
}
