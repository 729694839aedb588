import XCTest
import TestReferences
import Foundation

/// UltraHDR through fill, fit and crop, against libvips 8.18 (pyvips-binary's `uhdrload`,
/// `uhdrsave`, `uhdr2scRGB`): test files are HDR renders of the camera photos saved by
/// `uhdrsave`; each output must load in `uhdrload` with a map of the size the geometry
/// gives, its map within 1 level on average of Pillow's resize of libvips's decoded map
/// through the same geometry, and libvips's HDR reconstruction from it within 1% (the
/// mean over 32x32 blocks) of its reconstruction of the full-size source, cropped and
/// resized alike. Hostile maps are dropped with one warning, the picture still written.
final class GainMapTests: XCTestCase {
    /// `make SRC OUT ORIENTATION`: an HDR render (highlights lifted up to 4x) of SRC at
    /// half size, saved by uhdrsave with that EXIF orientation.
    /// `check SRC OUT X,Y,W,H`: the measures of OUT against SRC through that upright rect.
    /// `craft KIND SRC OUT`: a hostile file from the UltraHDR SRC.
    private static let script = #"""
    import sys, io, json, struct
    import numpy as np, pyvips
    from PIL import Image
    def segments(b, start=0):
        i, out = start + 2, []
        while b[i] == 0xFF and b[i + 1] != 0xDA:
            n = struct.unpack(">H", b[i + 2:i + 4])[0]
            out.append((b[i + 1], i, i + 2 + n)); i += 2 + n
        return out
    def split(b):
        mpf = [s for s in segments(b) if s[0] == 0xE2 and b[s[1] + 4:s[1] + 8] == b"MPF\0"][0]
        tiff = mpf[1] + 8
        count = struct.unpack(">I", b[tiff + 8 + 2 + 12 + 8:tiff + 8 + 2 + 12 + 12])[0] if False else None
        entries_at = tiff + struct.unpack(">I", b[tiff + 4 + 2 + 12 * 2 + 8 + 4 * 0:tiff + 4 + 2 + 12 * 2 + 12])[0] if False else None
        return mpf, tiff
    def with_mpf(base, maps, entries=None):
        # base without its MPF, then a new index listing `maps` after it (or `entries` as given).
        segs = segments(base)
        old = [s for s in segs if s[0] == 0xE2 and base[s[1] + 4:s[1] + 8] == b"MPF\0"]
        if old: base = base[:old[0][1]] + base[old[0][2]:]
        at = segments(base)[-1][2] if False else [s for s in segments(base) if 0xE0 <= s[0] <= 0xEF][-1][2]
        n = len(entries) if entries is not None else 1 + len(maps)
        payload_len = 4 + 8 + 2 + 36 + 4 + 16 * n
        total = len(base) + 4 + payload_len
        tiff = at + 8
        if entries is None:
            entries, off = [(0x030000, total, 0)], total - tiff
            for m in maps: entries.append((0, len(m), off)); off += len(m)
        p = b"MPF\0MM\0*" + struct.pack(">I", 8) + struct.pack(">H", 3)
        p += struct.pack(">HHI", 0xB000, 7, 4) + b"0100"
        p += struct.pack(">HHII", 0xB001, 4, 1, n)
        p += struct.pack(">HHII", 0xB002, 7, 16 * n, 8 + 2 + 36 + 4) + struct.pack(">I", 0)
        for a, s, o in entries: p += struct.pack(">IIIHH", a, s, o, 0, 0)
        seg = b"\xff\xe2" + struct.pack(">H", len(p) + 2) + p
        return base[:at] + seg + base[at:] + b"".join(maps)
    def parts(b):
        mpf = [s for s in segments(b) if s[0] == 0xE2 and b[s[1] + 4:s[1] + 8] == b"MPF\0"][0]
        tiff = mpf[1] + 8
        size, off = struct.unpack(">II", b[tiff + 50 + 16 + 4:tiff + 50 + 16 + 12])
        return b[:tiff + off], b[tiff + off:tiff + off + size]
    mode = sys.argv[1]
    if mode == "make":
        im = pyvips.Image.new_from_file(sys.argv[2]).autorot().resize(0.5)
        lin = im.colourspace("scrgb")
        # The boost follows the light smoothly (a local tone map undone), as a phone's map does.
        boost = (lin.extract_band(1).gaussblur(4) - 0.3).maxpair(0) * 5 + 1
        hdr = (lin * boost).copy(interpretation="scrgb")
        if int(sys.argv[4]) != 1:
            # Stored turned back, so that the orientation shows it upright.
            hdr = {6: hdr.rot270(), 8: hdr.rot90(), 3: hdr.rot180()}[int(sys.argv[4])].copy()
            hdr.set_type(pyvips.GValue.gint_type, "orientation", int(sys.argv[4]))
        hdr.uhdrsave(sys.argv[3])
        print(json.dumps({"size": [hdr.width, hdr.height]}))
    elif mode == "check":
        src, out = pyvips.Image.uhdrload(sys.argv[2]), pyvips.Image.uhdrload(sys.argv[3])
        x, y, w, h = map(int, sys.argv[4].split(","))
        o = src.get("orientation") if src.get_typeof("orientation") else 1
        turn = {1: None, 3: Image.Transpose.ROTATE_180, 6: Image.Transpose.ROTATE_270, 8: Image.Transpose.ROTATE_90}[o]
        gs = Image.open(io.BytesIO(src.get("gainmap-data"))); gs.load()
        if turn is not None: gs = gs.transpose(turn)
        go = Image.open(io.BytesIO(out.get("gainmap-data"))); go.load()
        uw, uh = (src.height, src.width) if o in (6, 8) else (src.width, src.height)
        rx, ry = gs.width / uw, gs.height / uh
        want = [max(1, (out.width * gs.width * 2 + uw) // (2 * uw)), max(1, (out.height * gs.height * 2 + uh) // (2 * uh))]
        ref = gs.resize(go.size, Image.Resampling.BILINEAR, box=(x * rx, y * ry, (x + w) * rx, (y + h) * ry))
        gdiff = float(np.abs(np.asarray(ref, dtype=float) - np.asarray(go, dtype=float)).mean())
        full = src.uhdr2scRGB()
        full = {1: full, 3: full.rot180(), 6: full.rot90(), 8: full.rot270()}[o]
        hs = full.crop(x, y, w, h).resize(out.width / w, vscale=out.height / h, kernel="linear")
        ho = out.uhdr2scRGB()
        a = np.ndarray(buffer=hs.write_to_memory(), dtype=np.float32, shape=[hs.height, hs.width, hs.bands])[..., :3]
        b = np.ndarray(buffer=ho.write_to_memory(), dtype=np.float32, shape=[ho.height, ho.width, ho.bands])[..., :3]
        H, W = (min(a.shape[0], b.shape[0]) // 32) * 32, (min(a.shape[1], b.shape[1]) // 32) * 32
        blocks = lambda v: v[:H, :W].reshape(H // 32, 32, W // 32, 32, 3).mean(axis=(1, 3))
        ba, bb = blocks(a), blocks(b)
        sdr = np.ndarray(buffer=out.colourspace("scrgb").write_to_memory(), dtype=np.float32, shape=[out.height, out.width, 3])
        print(json.dumps({"map": list(go.size), "want": want, "map_mean_abs": gdiff,
                          "hdr_rel": float(np.abs(bb - ba).mean() / ba.mean()), "hdr_rel_blockwise": float((np.abs(bb - ba) / np.maximum(ba, 1e-3)).mean()),
                          "sdr_rel": float(np.abs(blocks(sdr) - ba).mean() / ba.mean()), "blocks": int(ba.size // 3)}))
    elif mode == "craft":
        kind, b = sys.argv[2], open(sys.argv[3], "rb").read()
        base, gmap = parts(b)
        if kind == "outside":
            out = with_mpf(base, [], entries=[(0x030000, len(base), 0), (0, len(gmap), 1 << 30)])
        elif kind == "larger":
            big = io.BytesIO(); Image.open(io.BytesIO(gmap)).resize((4000, 3000)).save(big, "JPEG", quality=50)
            segs = [gmap[s[1]:s[2]] for s in segments(gmap) if s[0] == 0xE2 and gmap[s[1] + 4:s[1] + 31] == b"urn:iso:std:iso:ts:21496:-1"]
            big = big.getvalue(); out = with_mpf(base, [big[:2] + b"".join(segs) + big[2:]])
        elif kind == "nested":
            segs = segments(gmap)
            out = with_mpf(base, [with_mpf(gmap, [gmap])])
        elif kind == "hundred":
            out = with_mpf(base, [gmap] + [gmap[:0]] * 0, entries=[(0x030000, 0, 0)] + [(0, len(gmap), 0)] * 99)
        elif kind == "xmp":
            # Android's form: the base's XMP lists the map's length, the map's XMP its hdrgm: values.
            app1 = lambda x: b"\xff\xe1" + struct.pack(">H", len(x) + 31) + b"http://ns.adobe.com/xap/1.0/\0" + x
            rdf = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            g2 = gmap[:2] + app1(rdf + b'<rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0" hdrgm:GainMapMax="2.0"/></rdf:RDF></x:xmpmeta>') + gmap[2:]
            px = rdf + (b'<rdf:Description xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/" '
                        b'xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0"><Container:Directory><rdf:Seq>'
                        b'<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>'
                        b'<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="%d"/></rdf:li>'
                        b'</rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>') % len(g2)
            at = [s for s in segments(base) if 0xE0 <= s[0] <= 0xEF][0][2]
            out = with_mpf(base[:at] + app1(px) + base[at:], [g2])
        elif kind == "lengths":
            import re
            m = re.search(rb'Item:Semantic="GainMap"[^>]*Item:Length="(\d+)"', b)
            print(json.dumps({"xmp_length": int(m.group(1)) if m else None, "map_bytes": len(gmap),
                              "libvips_map_bytes": len(pyvips.Image.uhdrload(sys.argv[3]).get("gainmap-data"))}))
            sys.exit(0)
        elif kind == "truncated":
            out = b[:len(b) - len(gmap) // 2]
        open(sys.argv[4], "wb").write(out)
        print(json.dumps({"bytes": len(out)}))
    """#

    private func py(_ args: [String]) throws -> [String: Any] {
        guard let reply = CLI.python(Self.script, args) else { throw missingReference("python3 cannot be started") }
        let err = String(decoding: reply.stderr, as: UTF8.self)
        if reply.status != 0 {
            if err.contains("No module named") || err.contains("uhdr") && err.contains("not found") {
                throw missingReference("pyvips with libvips 8.18's uhdrload is not installed (scripts/install-deps --test installs it): \(err)")
            }
            XCTFail("\(args.joined(separator: " ")): \(err)")
            return [:]
        }
        let line = String(decoding: reply.stdout, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? "{}"
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// Each command line, its upright rect: the measures within bounds, and far outside
    /// them without the map (so the check can fail).
    func testFillFitCropKeepTheMapAsLibvipsReadsIt() throws {
        if ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] != nil {
            throw XCTSkip("SKIPPED under the sanitizers: libvips's HDR reconstructions take the time; the hostile test runs the reader and writer")
        }
        let photos = try CLI.sharedDir("photos"), dir = CLI.tempDir()
        let phone = dir + "/phone.jpg", street = dir + "/street6.jpg"
        _ = try py(["make", photos + "/phone-3264x2448.jpg", phone, "1"])          // 1632x1224
        _ = try py(["make", photos + "/street-4032x3024.jpg", street, "6"])        // stored 1512x2016, upright 2016x1512
        // The HDR bound is asserted where resizing the picture and its map apart can meet
        // it: the phone photo, and crops (no resampling of the picture). The night street
        // scaled down 5x is 5-10% off however the two are resized apart (a model of just
        // Pillow's two resizes gives the same; docs/hdr.md): there only the map is held
        // to its bound, and the figure printed.
        let cases: [(String, [String], String, Bool)] = [
            (phone, ["fill", "--size", "400x300"], "0,0,1632,1224", true),
            (phone, ["fill", "--size", "256x256"], "204,0,1224,1224", true),
            (phone, ["fill", "--size", "320x200", "--focus", "90%,10%"], "0,0,1632,1020", true),
            (phone, ["fit", "--size", "500x500"], "0,0,1632,1224", true),
            (phone, ["crop", "--rect", "301,95,777,555"], "301,95,777,555", true),
            (street, ["fill", "--size", "300x300"], "252,0,1512,1512", false),
            (street, ["crop", "--rect", "1001,333,640,481"], "1001,333,640,481", true),
        ]
        var lines: [String] = []
        for (i, (input, op, rect, bounded)) in cases.enumerated() {
            let out = dir + "/out\(i).jpg"
            let r = CLI.run(op + [input, "-o", out])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stderr, "", "a JPEG keeps the map in silence")
            let m = try py(["check", input, out, rect])
            let size = m["map"] as? [Int], want = m["want"] as? [Int]
            XCTAssertEqual(size, want, "\(op): the map's size")
            // The plan names the map the render writes, at the size libvips reads.
            let plan = CLI.run(["plan"] + op + [input, "-o", dir + "/planned.jpg"])
            XCTAssertTrue(plan.stdout.contains("gain map \(size?.first ?? 0)x\(size?.last ?? 0)\n"), "\(op): \(plan.stdout)")
            let map = try XCTUnwrap(m["map_mean_abs"] as? Double), hdr = try XCTUnwrap(m["hdr_rel"] as? Double)
            let sdr = try XCTUnwrap(m["sdr_rel"] as? Double)
            XCTAssertLessThanOrEqual(map, 1, "\(op): the map within 1 level on average of Pillow's resize of libvips's map")
            if bounded { XCTAssertLessThanOrEqual(hdr, 0.01, "\(op): libvips's HDR within 1% of the source's") }
            XCTAssertGreaterThan(sdr, 0.2, "\(op): without the map the picture is far from the HDR one (the check can fail)")
            lines.append("\(input.split(separator: "/").last ?? "") \(op.joined(separator: " ")): map \(size ?? []) off by \(String(format: "%.3f", map)) levels, HDR by \(String(format: "%.2f", hdr * 100))% (SDR alone \(String(format: "%.0f", sdr * 100))%)")
        }
        print("GainMapTests:\n" + lines.joined(separator: "\n"))
    }

    /// Hostile indexes and maps: each output written, the map dropped with one warning.
    func testHostileMapsAreDroppedWithOneWarning() throws {
        let photos = try CLI.sharedDir("photos"), dir = CLI.tempDir()
        let source = dir + "/phone.jpg"
        _ = try py(["make", photos + "/phone-3264x2448.jpg", source, "1"])
        for (kind, says) in [("outside", "its MPF index places image 2 at bytes"), ("larger", "is larger than its image"),
                             ("nested", "is itself a multi-picture file"), ("hundred", "lists 100 images, more than the 16 read"),
                             ("truncated", "its MPF index places image 2 at bytes")] {
            let crafted = dir + "/\(kind).jpg"
            _ = try py(["craft", kind, source, crafted])
            let t0 = Date()
            let r = CLI.run(["fill", "--size", "200x150", crafted, "-o", dir + "/\(kind)-out.jpg"])
            let seconds = Date().timeIntervalSince(t0)
            if kind == "truncated" {
                // The base's entropy data is whole; the cut lies in the map.
                XCTAssertEqual(r.status, 0, r.stderr)
            } else {
                XCTAssertEqual(r.status, 0, "\(kind): \(r.stderr)")
            }
            XCTAssertTrue(r.stderr.contains("warning: gain map dropped: ") && r.stderr.contains(says), "\(kind): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(kind): one line: \(r.stderr)")
            XCTAssertLessThan(seconds, 5, kind)
            let info = CLI.run(["info", dir + "/\(kind)-out.jpg"])
            XCTAssertFalse(info.stdout.contains("gain map"), "\(kind): \(info.stdout)")
        }
        // Android's XMP form: the Container directory's GainMap length is the new map's,
        // with and without --keep-metadata (which carries the rest of the XMP).
        let xmp = dir + "/xmp.jpg"
        _ = try py(["craft", "xmp", source, xmp])
        for extra in [[], ["--keep-metadata"]] {
            let out = dir + "/xmp-out\(extra.count).jpg"
            let r = CLI.run(["fill", "--size", "300x200", xmp, "-o", out] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            let m = try py(["craft", "lengths", out, out])
            XCTAssertEqual(m["xmp_length"] as? Int, m["map_bytes"] as? Int, "\(extra): \(m)")
            XCTAssertEqual(m["libvips_map_bytes"] as? Int, m["map_bytes"] as? Int, "\(extra): \(m)")
        }
        // Other formats say once that it was dropped; --gain-map drop says nothing.
        let webp = CLI.run(["fill", "--size", "64x48", "--size", "32x24", source, "--out-dir", dir + "/w", "--name", "{w}.webp"])
        XCTAssertEqual(webp.stderr.components(separatedBy: "gain map dropped: WebP holds none here (JPEG keeps it)").count - 1, 1, webp.stderr)
        // The plan says the same, each output under its name; with drop, neither.
        let planned = CLI.run(["plan", "fill", "--size", "64x48", source, "--out-dir", dir + "/w", "--format", "webp", "--format", "jpeg"])
        XCTAssertTrue(planned.stdout.contains("warning: gain map dropped: WebP holds none here (JPEG keeps it)"), planned.stdout)
        XCTAssertTrue(planned.stdout.contains("gain map 32x24\n"), planned.stdout)
        let drop = CLI.run(["fill", "--size", "64x48", source, "-o", dir + "/d.jpg", "--gain-map", "drop"])
        XCTAssertEqual(drop.stderr, "")
        XCTAssertFalse(CLI.run(["plan", "fill", "--size", "64x48", source, "-o", dir + "/d.jpg", "--gain-map", "drop"]).stdout.contains("gain map"))
        XCTAssertFalse(CLI.run(["info", dir + "/d.jpg"]).stdout.contains("gain map"))
        XCTAssertTrue(CLI.run(["info", source]).stdout.contains("gain map 816x612 (HDR)"))
        XCTAssertEqual(CLI.run(["fill", "--size", "64x48", source, "-o", dir + "/x.jpg", "--gain-map", "both"]).status, 2)
    }
}
