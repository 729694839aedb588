import XCTest
import TestReferences
import Foundation

/// QOI through the CLI, against Pillow's QOI plugin (12.x; it writes QOI from 11.3):
/// what imgscale writes is Pillow's file byte for byte (Pillow asked for the sRGB colour
/// space, which imgscale writes), what Pillow writes imgscale reads pixel for pixel, over
/// PngSuite and a camera photo; damaged and hostile files fail in one line.
final class QOITests: XCTestCase {
    func testWritesPillowsBytesAndReadsPillowsFiles() throws {
        let suite = try CLI.sharedDir("pngsuite/png")
        let photo = try CLI.sharedDir("photos") + "/street-4032x3024.jpg"
        let dir = CLI.tempDir()
        try python("""
            import glob, subprocess, os
            from PIL import Image
            imgscale = os.environ['IMGSCALE']
            # PngSuite's valid files (the x* ones are broken on purpose), and a camera photo's thumbnail.
            sources = sorted(p for p in glob.glob('\(suite)/*.png') if not os.path.basename(p).startswith('x'))
            assert len(sources) > 150, len(sources)
            subprocess.run([imgscale, 'fit', '--size', '640x640', '\(photo)', '-o', 'photo.png'], check=True)
            sources.append('photo.png')
            # One batch each way: imgscale's 8-bit decode of every source as a PNG (the
            # pixels either side sees), and as QOI.
            subprocess.run([imgscale, 'convert', *sources, '--out-dir', 'png', '--name', '{stem}.png'], check=True)
            subprocess.run([imgscale, 'convert', *sources, '--out-dir', 'qoi', '--name', '{stem}.qoi'], check=True)
            os.makedirs('pillow')
            stems = [os.path.splitext(os.path.basename(s))[0] for s in sources]
            wants = {}
            for stem in stems:
                im = Image.open(f'png/{stem}.png')
                want = im.convert('RGBA' if im.mode in ('RGBA', 'LA', 'PA') or 'transparency' in im.info else 'RGB')
                want.save(f'pillow/{stem}.qoi', colorspace='sRGB')
                assert open(f'qoi/{stem}.qoi', 'rb').read() == open(f'pillow/{stem}.qoi', 'rb').read(), (stem, 'bytes differ from Pillow')
                # Pillow's file in the linear colour space too, for imgscale to read back.
                want.save(f'pillow/{stem}.linear.qoi')
                wants[stem] = want
            subprocess.run([imgscale, 'convert', *sorted(glob.glob('pillow/*.qoi')), '--out-dir', 'back', '--name', '{stem}.png'], check=True)
            read = 0
            for stem, want in wants.items():
                for name in (stem, stem + '.linear'):
                    back = Image.open(f'back/{name}.png')
                    assert back.mode == want.mode and back.tobytes() == want.tobytes(), (name, back.mode, want.mode)
                    read += 1
            print(len(stems), read)
            assert read == 2 * len(sources)
            """, in: dir)
        let info = CLI.run(["info", dir + "/qoi/photo.qoi"])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("QOI"), info.stdout)
    }

    func testDamagedAndHostileFilesFailInOneLine() throws {
        let dir = CLI.tempDir()
        XCTAssertEqual(CLI.run(["convert", CLI.testImages + "/scene-640x427.png", "-o", dir + "/whole.qoi"]).status, 0)
        let whole = try XCTUnwrap(FileManager.default.contents(atPath: dir + "/whole.qoi"))
        func header(_ w: UInt32, _ h: UInt32, _ channels: UInt8, _ space: UInt8 = 0) -> Data {
            Data("qoif".utf8) + Data(Crafted.be32(w) + Crafted.be32(h) + [channels, space])
        }
        let cases: [(String, Data)] = [
            ("truncated.qoi", whole.prefix(whole.count / 2)),
            ("no-end.qoi", whole.dropLast(8)),
            ("short-header.qoi", Data("qoif".utf8) + Data([0, 0, 1])),
            ("zero-width.qoi", header(0, 10, 3) + Data(QOIEnd.marker)),
            ("five-channels.qoi", header(10, 10, 5) + Data(QOIEnd.marker)),
            ("space-7.qoi", header(10, 10, 4, 7) + Data(QOIEnd.marker)),
            // Four billion pixels claimed in 22 bytes: refused from the header, nothing allocated.
            ("huge.qoi", header(65535, 65535, 4) + Data(QOIEnd.marker)),
        ]
        for (name, data) in cases { XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/" + name, contents: data)) }
        let expected = [
            "truncated.qoi": "invalid QOI: the data ends at pixel",
            "no-end.qoi": "invalid QOI: no end marker after the last pixel",
            "short-header.qoi": "invalid QOI: the file ends inside its 14-byte header",
            "zero-width.qoi": "unsupported image dimensions 0x10",
            "five-channels.qoi": "invalid QOI: 5 channels (QOI has 3 or 4)",
            "space-7.qoi": "invalid QOI: colour space 7",
            "huge.qoi": "over the limit",
        ]
        for (name, message) in expected {
            let r = CLI.run(["fill", "--size", "16x16", dir + "/" + name, "-o", dir + "/out-" + name + ".png"])
            XCTAssertEqual(r.status, 1, name + ": " + r.stderr)
            let lines = r.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, name + ": " + r.stderr)
            XCTAssertTrue(r.stderr.contains(name) && r.stderr.contains(message), name + ": " + r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out-" + name + ".png"), name)
        }
        // Damage let through where asked: the decoded part, the rest black, and a warning.
        let kept = CLI.run(["convert", "--fail-on", "none", dir + "/truncated.qoi", "-o", dir + "/kept.png"])
        XCTAssertEqual(kept.status, 0, kept.stderr)
        XCTAssertTrue(kept.stderr.contains("damaged QOI decoded anyway"), kept.stderr)
        XCTAssertEqual(CLI.size(dir + "/kept.png"), "640x427")
        let unended = CLI.run(["convert", "--fail-on", "error", dir + "/no-end.qoi", "-o", dir + "/unended.png"])
        XCTAssertEqual(unended.status, 0, unended.stderr)
        XCTAssertEqual(CLI.run(["compare", dir + "/unended.png", CLI.testImages + "/scene-640x427.png"]).status, 0)
    }
}

/// The eight bytes that end every QOI file.
private enum QOIEnd {
    static let marker: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]
}
