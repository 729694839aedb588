import XCTest
import TestReferences
import Foundation

/// `--export-profile` and `--intent` through the built imgscale, against Pillow's
/// ImageCms (Little CMS) on the same pixels and the very profile imgscale embeds: sRGB
/// into Display P3 and Adobe RGB at each intent; a P3 image's primaries, which sRGB
/// cannot hold, kept through a P3-to-P3 resize; a CMYK JPEG through its own profile;
/// the same bytes every run; and the refusals.
final class ExportProfileTests: XCTestCase {
    func testAgainstLittleCMSThroughPillow() throws {
        let dir = CLI.tempDir()
        let cmykProfile = "/usr/share/color/icc/ghostscript/default_cmyk.icc"
        guard FileManager.default.fileExists(atPath: cmykProfile) else {
            throw missingReference("\(cmykProfile) is missing (scripts/install-deps --test installs libgs-common)")
        }
        try python("""
            import io, os, subprocess
            import numpy as np
            from PIL import Image, ImageCms
            exe = os.environ['IMGSCALE']
            y, x = np.mgrid[0:48, 0:64]
            rgb = np.stack([x * 4, y * 5, (x * y) % 256], 2).astype(np.uint8)
            Image.fromarray(rgb).save('srgb.png')
            srgb = ImageCms.createProfile('sRGB')
            for name in ('p3', 'adobergb'):
                for intent, code in (('perceptual', 0), ('relative', 1), ('saturation', 2), ('absolute', 3)):
                    out = f'{name}-{intent}.png'
                    subprocess.run([exe, 'convert', '--export-profile', name, '--intent', intent, 'srgb.png', '-o', out], check=True)
                    made = Image.open(out)
                    target = ImageCms.ImageCmsProfile(io.BytesIO(made.info['icc_profile']))
                    ref = ImageCms.applyTransform(Image.open('srgb.png'), ImageCms.buildTransform(srgb, target, 'RGB', 'RGB', renderingIntent=code))
                    d = np.abs(np.asarray(made.convert('RGB')).astype(int) - np.asarray(ref).astype(int)).max()
                    assert d <= 1, (name, intent, d)
            # The same bytes every run (Little CMS's creation date is pinned).
            subprocess.run([exe, 'convert', '--export-profile', 'p3', 'srgb.png', '-o', 'again.png'], check=True)
            assert open('again.png', 'rb').read() == open('p3-perceptual.png', 'rb').read()
            p3 = Image.open('p3-perceptual.png').info['icc_profile']
            # A P3 image's pure primaries: kept exactly through a P3-to-P3 resize, where
            # the round trip through sRGB (which cannot hold them) changes them.
            a = np.zeros((20, 30, 3), np.uint8)
            a[:, :10], a[:, 10:20], a[:, 20:] = (255, 0, 0), (0, 255, 0), (0, 0, 255)
            Image.fromarray(a).save('p3in.png', icc_profile=p3)
            subprocess.run([exe, 'fit', '--size', '15x', '--export-profile', 'p3', 'p3in.png', '-o', 'p3out.png'], check=True)
            out = Image.open('p3out.png')
            o = np.asarray(out.convert('RGB'))
            assert out.info['icc_profile'] == p3
            assert tuple(o[5, 2]) == (255, 0, 0) and tuple(o[5, 7]) == (0, 255, 0) and tuple(o[5, 12]) == (0, 0, 255), o[5]
            subprocess.run([exe, 'convert', '--to-srgb', 'p3in.png', '-o', 'via-srgb.png'], check=True)
            subprocess.run([exe, 'convert', '--export-profile', 'p3', 'via-srgb.png', '-o', 'back.png'], check=True)
            back = np.asarray(Image.open('back.png').convert('RGB')).astype(int)
            assert np.abs(back[5, 2] - [255, 0, 0]).max() > 8, back[5, 2]
            # CMYK through its own profile, into Adobe RGB.
            cmyk_icc = open('\(cmykProfile)', 'rb').read()
            cmyk = ImageCms.applyTransform(Image.fromarray(rgb), ImageCms.buildTransform(srgb, ImageCms.ImageCmsProfile(io.BytesIO(cmyk_icc)), 'RGB', 'CMYK'))
            cmyk.save('cmyk.jpg', quality=95, icc_profile=cmyk_icc)
            subprocess.run([exe, 'convert', '--export-profile', 'adobergb', 'cmyk.jpg', '-o', 'cmyk-adobe.png'], check=True)
            made = Image.open('cmyk-adobe.png')
            target = ImageCms.ImageCmsProfile(io.BytesIO(made.info['icc_profile']))
            ref = ImageCms.applyTransform(Image.open('cmyk.jpg'), ImageCms.buildTransform(ImageCms.ImageCmsProfile(io.BytesIO(cmyk_icc)), target, 'CMYK', 'RGB'))
            d = np.abs(np.asarray(made.convert('RGB')).astype(int) - np.asarray(ref).astype(int))
            assert d.max() <= 1, d.max()
            """, in: dir)
        let input = dir + "/srgb.png"
        for (args, message) in [(["--intent", "relative"], "--intent applies to --export-profile"),
                                (["--export-profile", "p3", "--to-srgb"], "cannot be combined"),
                                (["--export-profile", dir + "/missing.icc"], "give srgb, p3, adobergb or an ICC profile's path"),
                                (["--export-profile", input], "is not an ICC profile"),
                                (["--export-profile", cmykProfile], "describes no RGB colour space"),
                                (["--export-profile", "p3", "--intent", "vivid"], "--intent must be one of")] {
            let r = CLI.run(["convert"] + args + [input, "-o", dir + "/x.png"])
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/x.png"))
        }
        let plan = CLI.run(["plan", "convert", "--export-profile", "p3", "--intent", "relative", input, "-o", dir + "/y.jpg"])
        XCTAssertTrue(plan.stdout.contains("colour to Display P3 (Little CMS, relative intent)"), plan.stdout)
    }
}
