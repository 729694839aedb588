import XCTest
import TestReferences
import Foundation
import ImageScaler

/// Orientation, colour profiles, metadata and output options, run through the CLI.
final class RealPhotoTests: XCTestCase {
    func psnr(_ a: String, _ b: String) throws -> Double {
        let r = CLI.run(["compare", "--json", a, b])
        let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        return (obj["psnr"] as? Double) ?? .infinity
    }

    /// imgscale's own JPEG entropy decoders check themselves against libjpeg at first
    /// use; when the known answer differs (forced here by IMGSCALE_TEST_JPEG_MISMATCH,
    /// as a libjpeg-turbo whose private decoder changed would make it), every JPEG is
    /// decoded by libjpeg alone and `-v` says so once (`--version` does not run the check,
    /// to stay as quick as it was). The camera photo still comes out as libjpeg alone
    /// makes it.
    func testOwnJPEGDecodersFallBackToLibjpegWhenTheKnownAnswerDiffers() throws {
        let photo = try CLI.sharedDir("photos") + "/street-4032x3024.jpg"
        let dir = CLI.tempDir()
        let usual = CLI.run(["fill", "-v", "--size", "320x240", photo, "-o", dir + "/usual.png"])
        XCTAssertEqual(usual.status, 0, usual.stderr)
        XCTAssertFalse(usual.stderr.contains("note:"), usual.stderr)
        XCTAssertFalse(CLI.run(["--version"]).stdout.contains("decoding alone"))
        let broken = ["IMGSCALE_TEST_JPEG_MISMATCH": "1"]
        let fallback = CLI.run(["fill", "-v", "--size", "320x240", photo, "-o", dir + "/fallback.png"], environment: broken)
        XCTAssertEqual(fallback.status, 0, fallback.stderr)
        let notes = fallback.stderr.split(separator: "\n").filter { $0.hasPrefix("imgscale: note: ") }
        XCTAssertEqual(notes.count, 1, fallback.stderr)
        XCTAssertTrue(notes.first?.contains("own JPEG entropy decoders differ from libjpeg-turbo 2.") == true
                      && notes.first?.contains("every JPEG is decoded by libjpeg alone") == true, fallback.stderr)
        let alone = CLI.run(["fill", "--size", "320x240", photo, "-o", dir + "/alone.png"], environment: ["IMGSCALE_JPEG_DECODER": "libjpeg"])
        XCTAssertEqual(alone.status, 0, alone.stderr)
        for name in ["usual", "fallback"] {
            XCTAssertEqual(FileManager.default.contents(atPath: dir + "/\(name).png"), FileManager.default.contents(atPath: dir + "/alone.png"), name)
        }
    }

    func testAllEighteenOrientationFilesComeOutUpright() throws {
        let dir = try CLI.sharedDir("exif-orientation")
        let out = CLI.tempDir()
        let names = (0...8).flatMap { ["Landscape_\($0).jpg", "Portrait_\($0).jpg"] }
        let r = CLI.run(["fit", "--size", "300x300", "--out-dir", out, "--name", "{stem}.png"] + names.map { dir + "/" + $0 })
        XCTAssertEqual(r.status, 0, r.stderr)
        for kind in ["Landscape", "Portrait"] {
            let reference = out + "/\(kind)_1.png"
            XCTAssertEqual(CLI.size(reference), kind == "Landscape" ? "300x200" : "200x300")
            for n in [0, 2, 3, 4, 5, 6, 7, 8] {
                // Separately encoded sources differ by JPEG noise (about 30-37 dB); a wrong
                // turn or mirror scores under 10 dB.
                XCTAssertGreaterThan(try psnr(reference, out + "/\(kind)_\(n).png"), 28, "\(kind)_\(n)")
            }
            // The test can tell: the stored pixels of orientation 3 are upside down.
            XCTAssertEqual(CLI.run(["fit", "--size", "300x300", "--no-auto-orient", dir + "/\(kind)_3.jpg", "-o", out + "/raw.png"]).status, 0)
            XCTAssertLessThan(try psnr(reference, out + "/raw.png"), 15)
            // Output carries no orientation: info says 1 and the size is upright.
            XCTAssertEqual(CLI.run(["fill", "--size", "64x32", dir + "/\(kind)_6.jpg", "-o", out + "/o.jpg", "--keep-metadata"]).status, 0)
            XCTAssertTrue(CLI.run(["info", out + "/o.jpg"]).stdout.contains("JPEG 64x32, 3 channels (rgb), 8-bit, orientation 1"))
        }
        let info = CLI.run(["info", "--json", dir + "/Portrait_6.jpg"]).stdout
        XCTAssertTrue(info.contains("\"orientation\":6,\"upright_width\":1200,\"upright_height\":1800"), info)
    }

    func testRotatedCameraPhotoAndPlanInUprightCoordinates() throws {
        let photos = try CLI.sharedDir("photos")
        let out = CLI.tempDir()
        XCTAssertEqual(CLI.run(["fill", "--size", "90x160", photos + "/rotated-2048x1536.jpg", "-o", out + "/r.png"]).status, 0)
        XCTAssertEqual(CLI.size(out + "/r.png"), "90x160")
        // The same upright rect with and without a stored rotation.
        let plan = CLI.run(["plan", "--source", "2048x1536", "--orientation", "6", "--size", "90x160"]).stdout
        XCTAssertEqual(plan.split(separator: "\n").last, "192,0,1152,2048")
    }

    func testMetadataStrippedByDefaultAndKeptOnRequest() throws {
        let photos = try CLI.sharedDir("photos")
        let out = CLI.tempDir()
        let src = photos + "/rotated-2048x1536.jpg"
        XCTAssertTrue(CLI.run(["info", "--json", src]).stdout.contains("\"exif\":true"))
        XCTAssertEqual(CLI.run(["fill", "--size", "64x64", src, "-o", out + "/plain.jpg"]).status, 0)
        XCTAssertTrue(CLI.run(["info", "--json", out + "/plain.jpg"]).stdout.contains("\"metadata\":[]"))
        for ext in ["jpg", "png"] {
            XCTAssertEqual(CLI.run(["fill", "--size", "64x64", src, "-o", out + "/kept.\(ext)", "--keep-metadata"]).status, 0)
            let data = try ImageFile.read(out + "/kept.\(ext)")
            let info = try ImageCodec.info(data)
            let exif = try XCTUnwrap(info.exif, ext)
            XCTAssertEqual(try ExifReader.orientation(in: exif).get(), .up)
            XCTAssertLessThan(exif.count, try ImageCodec.info(try ImageFile.read(src)).exif!.count - 10_000, "thumbnail dropped")
        }
    }

    func testICCProfileCarriedOrStripped() throws {
        let jpegDir = try CLI.sharedDir("jpeg")
        let out = CLI.tempDir()
        for name in ["monkey16.png", "vgl_5674_0098.png"] {
            let src = jpegDir + "/" + name
            let original = try XCTUnwrap(try ImageCodec.info(try ImageFile.read(src)).iccProfile)
            for ext in ["png", "jpg"] {
                XCTAssertEqual(CLI.run(["fit", "--size", "50x50", src, "-o", out + "/c.\(ext)"]).status, 0)
                XCTAssertEqual(try ImageCodec.info(try ImageFile.read(out + "/c.\(ext)")).iccProfile, original, "\(name) -> \(ext)")
                XCTAssertEqual(CLI.run(["fit", "--size", "50x50", "--strip-profile", src, "-o", out + "/s.\(ext)"]).status, 0)
                XCTAssertNil(try ImageCodec.info(try ImageFile.read(out + "/s.\(ext)")).iccProfile)
            }
        }
        // A CMYK profile never rides along on RGB output.
        XCTAssertFalse(ICCProfile.fits(Array(repeating: 0, count: 16) + Array("CMYK".utf8) + Array(repeating: 0, count: 108), channels: 3))
    }

    func testOutputOptions() throws {
        let out = CLI.tempDir()
        let scene = CLI.testImages + "/scene-640x427.png"
        XCTAssertEqual(CLI.run(["fit", "--size", "100x100", scene, "-o", out + "/p.jpg", "--progressive", "--subsampling", "444"]).status, 0)
        XCTAssertTrue(CLI.run(["info", "--json", out + "/p.jpg"]).stdout.contains("\"progressive\":true"))
        // Palette: a 4-colour image with one half-transparent entry.
        let pal = CLI.testImages + "/palette-trns-20x20.png"
        XCTAssertEqual(CLI.run(["convert", pal, "-o", out + "/pal.png", "--palette"]).status, 0)
        XCTAssertTrue(CLI.run(["info", out + "/pal.png"]).stdout.contains("(palette)"))
        XCTAssertEqual(CLI.run(["compare", pal, out + "/pal.png"]).status, 0)
        XCTAssertEqual(CLI.run(["convert", scene, "-o", out + "/many.png", "--palette"]).status, 0)
        XCTAssertTrue(CLI.run(["info", out + "/many.png"]).stdout.contains("(rgb)"), "too many colours: stays RGB")
        // fit --pad: exactly the box, image centred on the background.
        XCTAssertEqual(CLI.run(["fit", "--size", "100x100", "--pad", "--background", "ff0000", scene, "-o", out + "/pad.png"]).status, 0)
        let padded = try ImageCodec.decode(try ImageFile.read(out + "/pad.png")).0
        XCTAssertEqual(padded.size, Size(width: 100, height: 100))
        XCTAssertEqual(padded[50, 0], [255, 0, 0])
        XCTAssertEqual(padded[50, 99], [255, 0, 0])
        XCTAssertNotEqual(padded[50, 50], [255, 0, 0])
        // Gray stays gray; alpha that is all opaque is dropped; real alpha is kept.
        XCTAssertTrue(CLI.run(["info", CLI.testImages + "/checker-1px-64x64.png"]).stdout.contains("1 channel"))
        XCTAssertEqual(CLI.run(["fill", "--size", "9x9", CLI.testImages + "/checker-1px-64x64.png", "-o", out + "/g.jpg"]).status, 0)
        XCTAssertTrue(CLI.run(["info", out + "/g.jpg"]).stdout.contains("1 channel (gray)"))
        XCTAssertEqual(CLI.run(["crop", "--rect", "40,40,20,20", CLI.testImages + "/alpha-disc-100x100.png", "-o", out + "/opaque.png"]).status, 0)
        XCTAssertTrue(CLI.run(["info", out + "/opaque.png"]).stdout.contains("3 channels (rgb)"))
        XCTAssertEqual(CLI.run(["fill", "--size", "9x9", CLI.testImages + "/alpha-disc-100x100.png", "-o", out + "/alpha.png"]).status, 0)
        XCTAssertTrue(CLI.run(["info", out + "/alpha.png"]).stdout.contains("4 channels (rgba)"))
        // Alpha flattened for JPEG onto the background.
        XCTAssertEqual(CLI.run(["fill", "--size", "10x10", "--background", "0000ff", CLI.testImages + "/alpha-disc-100x100.png", "-o", out + "/flat.jpg"]).status, 0)
        let flat = try ImageCodec.decode(try ImageFile.read(out + "/flat.jpg")).0
        XCTAssertGreaterThan(Int(flat[0, 0][2]), 200, "corner shows the blue background")
    }

    func testBrokenExifWarnsAndStillWorks() throws {
        var tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0x7F, 0, 0, 8]
        tiff += [UInt8](repeating: 0, count: 20)
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let jpeg = try ImageFile.read(CLI.testImages + "/gradient-rgb-64x48.jpg")
        let bytes = [0xFF, 0xD8, 0xFF, 0xE1, 0, UInt8(payload.count + 2)] + payload + jpeg[2...]
        let dir = CLI.tempDir()
        try ImageFile.write(bytes, to: dir + "/broken-exif.jpg")
        let r = CLI.run(["fill", "--size", "8x8", dir + "/broken-exif.jpg", "-o", dir + "/out.png"])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stderr, "imgscale: \(dir)/broken-exif.jpg: warning: ignoring broken EXIF (EXIF IFD offset points outside the block); orientation 1 assumed\n")
    }

    static let profiles = "/usr/share/color/icc/ghostscript"

    /// Inserts APP2 ICC segments (as many as the profile needs) right after SOI.
    func tagJPEG(_ jpeg: [UInt8], _ icc: [UInt8]) -> [UInt8] {
        let part = 65000
        let count = (icc.count + part - 1) / part
        var out: [UInt8] = [0xFF, 0xD8]
        for i in 0..<count {
            let payload = Array("ICC_PROFILE".utf8) + [0, UInt8(i + 1), UInt8(count)] + icc[i * part..<min(icc.count, (i + 1) * part)]
            out += [0xFF, 0xE2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        return out + jpeg[2...]
    }

    func testToSRGBConvertsWideGamutAndWritesNoProfile() throws {
        guard let a98 = try? ImageFile.read(Self.profiles + "/a98.icc") else {
            throw missingReference("\(Self.profiles)/a98.icc is missing (libgs-common; scripts/install-deps --test installs it)")
        }
        let dir = CLI.tempDir()
        let scene = try ImageCodec.decode(try ImageFile.read(CLI.testImages + "/scene-640x427.png")).0
        var options = EncodeOptions()
        options.iccProfile = a98
        try ImageFile.write(try ImageCodec.encode(scene, as: .png, options: options), to: dir + "/a98.png")
        options.quality = 95
        try ImageFile.write(try ImageCodec.encode(scene, as: .jpeg, options: options), to: dir + "/a98.jpg")
        for ext in ["png", "jpg"] {
            XCTAssertEqual(CLI.run(["convert", "--to-srgb", dir + "/a98.\(ext)", "-o", dir + "/srgb-\(ext).png"]).status, 0)
            XCTAssertEqual(CLI.run(["convert", dir + "/a98.\(ext)", "-o", dir + "/kept-\(ext).png"]).status, 0)
            XCTAssertTrue(CLI.run(["info", "--json", dir + "/srgb-\(ext).png"]).stdout.contains("\"icc\":false"))
            XCTAssertTrue(CLI.run(["info", "--json", dir + "/kept-\(ext).png"]).stdout.contains("\"icc\":true"))
            // Adobe RGB values mean more saturated colours: converted, they must change.
            XCTAssertLessThan(try psnr(dir + "/kept-\(ext).png", dir + "/srgb-\(ext).png"), 40, ext)
        }
        // The independent reference: Pillow's ImageCms (its own Little CMS), perceptual.
        let script = """
        import sys, io
        from PIL import Image, ImageCms
        im = Image.open(sys.argv[1])
        src = ImageCms.ImageCmsProfile(io.BytesIO(im.info['icc_profile']))
        out = ImageCms.profileToProfile(im, src, ImageCms.createProfile('sRGB'), renderingIntent=ImageCms.Intent.PERCEPTUAL)
        out.save(sys.argv[2])
        """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script, dir + "/a98.png", dir + "/pillow.png"]
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw missingReference("Pillow with ImageCms is not available") }
        let r = CLI.run(["compare", "--tolerance", "3", dir + "/pillow.png", dir + "/srgb-png.png"])
        XCTAssertEqual(r.status, 0, r.stdout)
    }

    func testCMYKWithProfileConvertsThroughIt() throws {
        let jpegDir = try CLI.sharedDir("jpeg")
        guard let cmykProfile = try? ImageFile.read(Self.profiles + "/default_cmyk.icc") else {
            throw missingReference("\(Self.profiles)/default_cmyk.icc is missing (libgs-common)")
        }
        let dir = CLI.tempDir()
        try ImageFile.write(tagJPEG(try ImageFile.read(jpegDir + "/cmyk.jpg"), cmykProfile), to: dir + "/tagged.jpg")
        XCTAssertEqual(CLI.run(["convert", "--to-srgb", dir + "/tagged.jpg", "-o", dir + "/managed.png"]).status, 0)
        XCTAssertEqual(CLI.run(["convert", dir + "/tagged.jpg", "-o", dir + "/plain.png"]).status, 0)
        XCTAssertEqual(CLI.run(["convert", jpegDir + "/testorig.jpg", "-o", dir + "/orig.png"]).status, 0)
        // Both come out right way round (close to the RGB original), and differently.
        XCTAssertGreaterThan(try psnr(dir + "/orig.png", dir + "/managed.png"), 18)
        XCTAssertGreaterThan(try psnr(dir + "/orig.png", dir + "/plain.png"), 25)
        XCTAssertLessThan(try psnr(dir + "/plain.png", dir + "/managed.png"), 45)
        XCTAssertTrue(CLI.run(["info", "--json", dir + "/plain.png"]).stdout.contains("\"icc\":false"), "a CMYK profile never rides on RGB")
    }
}
