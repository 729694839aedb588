import CTIFFShim

/// How one TIFF page's stored samples become `PixelBuffer` rows: its colour model, the
/// samples a pixel holds and which of them are kept, their depth, and how strips or tiles
/// tile the image. Made from libtiff's facts, or refused with what is not read (yet).
/// Rows come out as gray, gray+alpha, RGB or RGBA at 8 bits (16-bit samples rounded to
/// nearest), straight alpha; or, for CMYK, four ink samples for the colour stage.
struct TIFFLayout: Equatable, Sendable {
    enum Model: Equatable, Sendable {
        /// `whiteIsZero`: PhotometricInterpretation 0, where 0 is white.
        case gray(whiteIsZero: Bool)
        case rgb
        case palette([UInt8])
        /// Four samples of ink, 0 = none.
        case cmyk
    }

    let size: Size
    let model: Model
    /// Samples a stored pixel holds, extra ones included.
    let samples: Int
    let bits: Int
    /// Alpha in the sample after the colour ones: none, premultiplied, or straight.
    let alpha: Alpha
    let orientation: Orientation
    /// Tile size, or nil for strips of `rowsPerStrip` rows.
    let tile: Size?
    let rowsPerStrip: Int
    let pages: Int
    /// 1 when a pixel's samples are stored together; `samples` when each is a plane of
    /// its own (PlanarConfiguration 2), whose strips or tiles follow one plane after another.
    let planes: Int

    enum Alpha: Equatable, Sendable { case none, premultiplied, straight }

    init(_ raw: ctiff_info, palette: (Int) -> [UInt8]?) throws {
        func refuse(_ why: String) -> DecodeError { .invalid(.tiff, why) }
        size = Size(width: Int(raw.width), height: Int(raw.height))
        guard size.width > 0, size.height > 0 else { throw DecodeError.badDimensions(size) }
        samples = Int(raw.samples)
        bits = Int(raw.bits)
        pages = Int(raw.pages)
        guard raw.sample_format == 1 else {
            throw refuse("\(raw.sample_format == 3 ? "floating-point" : "signed") samples; imgscale reads unsigned integer TIFF samples")
        }
        guard [1, 2, 4, 8, 16].contains(bits) else { throw refuse("\(bits)-bit samples; imgscale reads 1, 2, 4, 8 and 16 bits") }
        guard raw.planar == 1 || raw.planar == 2 else { throw refuse("planar configuration \(raw.planar)") }
        planes = raw.planar == 2 ? samples : 1
        // Old-style JPEG (TIFF 6.0's, withdrawn in 1995) that libtiff's RGBA interface
        // cannot read either.
        guard raw.compression != 6 || raw.converted != 0 else { throw refuse("old-style JPEG compression (6) that libtiff cannot convert") }
        let colour: Int
        switch raw.photometric {
        case 0, 1:
            model = .gray(whiteIsZero: raw.photometric == 0)
            colour = 1
        case 2:
            model = .rgb
            colour = 3
        case 6 where raw.compression == 7 && raw.planar == 1:
            // libjpeg hands JPEG's YCbCr over as RGB; in separate planes it cannot, and
            // each plane would be a channel of YCbCr.
            model = .rgb
            colour = 3
        case 3:
            guard bits <= 8, raw.colormap != 0, let entries = palette(1 << bits) else { throw refuse("a palette image without its colour map") }
            model = .palette(entries)
            colour = 1
        case 5:
            guard raw.ink_set == 1, samples >= 4 else { throw refuse("separated ink other than CMYK") }
            model = .cmyk
            colour = 4
        case 8, 9, 10:
            throw refuse("CIE L*a*b* colour (photometric interpretation \(raw.photometric)) is not read")
        default:
            throw refuse("photometric interpretation \(raw.photometric)\(raw.photometric == 6 ? " (YCbCr)" : ""); imgscale reads gray, RGB, palette, CMYK and the YCbCr libtiff converts (8-bit)")
        }
        guard samples >= colour else { throw refuse("\(samples) samples a pixel, too few for its colour model") }
        // Extra samples past alpha are read and dropped: more than 16 of them are no
        // image anyone made, only work.
        guard samples <= colour + 16 else { throw refuse("\(samples) samples a pixel, over the \(colour) of its colour model and 16 extra") }
        switch (raw.extra_alpha, samples > colour) {
        // A palette's alpha is a second sample beside the index, straight as Pillow's PA
        // (colours looked up cannot have been multiplied by it).
        case (1, true): if case .palette = model { alpha = .straight } else { alpha = .premultiplied }
        case (2, true): alpha = .straight
        // One sample more than the colour needs and no ExtraSamples tag to say what it
        // is: writers that forget the tag mean alpha (Pillow and libvips read it so).
        case (3, true) where samples == colour + 1 && (model == .rgb || colour == 1 && raw.photometric <= 1): alpha = .straight
        default: alpha = .none
        }
        if case .cmyk = model, alpha != .none { throw refuse("CMYK with alpha is not read yet") }
        if bits < 8, !(colour == 1 && samples == 1) { throw refuse("\(bits)-bit samples in a pixel of \(samples); imgscale reads them for gray and palette") }
        orientation = Orientation(rawValue: Int(raw.orientation)) ?? .up
        if raw.tiled != 0 {
            let t = Size(width: Int(raw.tile_width), height: Int(raw.tile_height))
            guard t.width > 0, t.height > 0 else { throw refuse("tiles of \(t)") }
            tile = t
            rowsPerStrip = 0
        } else {
            tile = nil
            rowsPerStrip = max(1, min(Int(raw.rows_per_strip), size.height))
        }
    }

    /// Channels of the rows handed over (4 of ink for CMYK).
    var channels: Int {
        switch model {
        case .gray: return alpha == .none ? 1 : 2
        case .rgb: return alpha == .none ? 3 : 4
        case .palette: return alpha == .none ? 3 : 4
        case .cmyk: return 4
        }
    }

    /// What `info` says the decoded image is (CMYK as the RGB the colour stage makes).
    var reportedChannels: Int { model == .cmyk ? 3 : channels }

    var colorModel: ColorModel {
        switch model {
        case .gray: return alpha == .none ? .gray : .grayAlpha
        case .rgb: return alpha == .none ? .rgb : .rgba
        case .palette: return alpha == .none ? .palette : .rgba
        case .cmyk: return .cmyk
        }
    }

    /// Bytes of one stored row `width` pixels wide (rows start on a byte), its planes
    /// interleaved.
    func rowBytes(_ width: Int) -> Int { (width * samples * bits + 7) / 8 }

    /// Interleaves `rows` rows `width` pixels wide, one chunk a plane, into `dst` as
    /// samples stored together would be. Planes hold 8 or 16 bits here: a pixel of one
    /// sample has a plane only.
    func interleave(_ planes: [UnsafePointer<UInt8>], rows: Int, width: Int, into dst: UnsafeMutablePointer<UInt8>) {
        let bytes = bits / 8, n = planes.count
        for (k, plane) in planes.enumerated() {
            var d = dst + k * bytes, s = plane
            for _ in 0..<(rows * width) {
                for b in 0..<bytes { d[b] = s[b] }
                d += n * bytes
                s += bytes
            }
        }
    }

    /// Whether a stored row is already the row handed over: 8-bit samples, all of them
    /// kept, nothing to invert, unpremultiply or look up.
    var isStoredAsDecoded: Bool {
        guard bits == 8, samples == channels, alpha != .premultiplied else { return false }
        switch model {
        case .gray(let whiteIsZero): return !whiteIsZero
        case .rgb, .cmyk: return true
        case .palette: return false
        }
    }

    /// Pixels `x0..<x0 + width` of stored row `src` as output pixels into `dst`.
    func convert(_ src: UnsafePointer<UInt8>, from x0: Int, width: Int, into dst: UnsafeMutablePointer<UInt8>) {
        let out = channels
        if isStoredAsDecoded {
            dst.update(from: src + x0 * samples, count: width * samples)
            return
        }
        if bits < 8 {
            // One sample a pixel, most significant bits first.
            let mask = (1 << bits) - 1, perByte = 8 / bits
            for i in 0..<width {
                let x = x0 + i
                let byte = Int(src[x / perByte])
                let v = byte >> (8 - bits * (x % perByte + 1)) & mask
                write(level: v * 255 / mask, index: v, x: i, into: dst)
            }
            return
        }
        let src = src + x0 * samples * bits / 8
        // Colour is divided by alpha at the stored depth, then rounded to 8 bits, so a
        // 16-bit premultiplied pixel keeps what its low bits hold.
        let full = bits == 16 ? 65535 : 255
        for x in 0..<width {
            let p = x * samples
            func raw(_ k: Int) -> Int {
                if bits == 8 { return Int(src[p + k]) }
                // libtiff gives 16-bit samples in native order.
                return Int(UnsafeRawPointer(src).loadUnaligned(fromByteOffset: 2 * (p + k), as: UInt16.self))
            }
            func eight(_ v: Int) -> UInt8 { UInt8(bits == 8 ? v : (v * 255 + 32767) / 65535) }
            let d = dst + x * out
            let colour = alpha == .none ? out : out - 1
            // The alpha sample follows the colour's: one sample of gray or a palette index, three of RGB.
            var stored = colour
            if case .palette = model { stored = 1 }
            let a = alpha == .none ? full : raw(stored == 1 ? 1 : 3)
            func straight(_ v: Int) -> Int {
                guard alpha == .premultiplied else { return v }
                // Truncating, as Pillow's unpacker (RGBa) does.
                return a == 0 ? 0 : min(full, v * full / a)
            }
            switch model {
            case .gray(let whiteIsZero):
                let g = straight(raw(0))
                d[0] = eight(whiteIsZero ? full - g : g)
            case .rgb:
                for c in 0..<3 { d[c] = eight(straight(raw(c))) }
            case .palette(let entries):
                let i = Int(src[p]) * 3
                for c in 0..<3 { d[c] = i + c < entries.count ? entries[i + c] : 0 }
            case .cmyk:
                for c in 0..<4 { d[c] = eight(raw(c)) }
            }
            if alpha != .none { d[colour] = eight(a) }
        }
    }

    /// Whether `convertWide` reads this layout: 16-bit gray or RGB (CMYK goes through the
    /// colour stage at 8 bits, and palettes hold 8-bit colours).
    var convertsWide: Bool {
        guard bits == 16 else { return false }
        switch model {
        case .gray, .rgb: return true
        case .palette, .cmyk: return false
        }
    }

    /// Pixels `x0..<x0 + width` of stored row `src` as 16-bit output samples (gray or RGB,
    /// straight alpha), for a layout that `convertsWide`.
    func convertWide(_ src: UnsafePointer<UInt8>, from x0: Int, width: Int, into dst: UnsafeMutablePointer<UInt16>) {
        let out = channels, colour = alpha == .none ? out : out - 1
        let s = UnsafeRawPointer(src) + x0 * samples * 2
        var invert = false
        if case .gray(let whiteIsZero) = model { invert = whiteIsZero }
        for x in 0..<width {
            let p = x * samples
            func raw(_ k: Int) -> Int { Int(s.loadUnaligned(fromByteOffset: 2 * (p + k), as: UInt16.self)) }
            let a = alpha == .none ? 65535 : raw(colour)
            let d = dst + x * out
            for c in 0..<colour {
                var v = raw(c)
                // Truncating, as the 8-bit path (and Pillow's unpacker) does.
                if alpha == .premultiplied { v = a == 0 ? 0 : min(65535, v * 65535 / a) }
                d[c] = UInt16(invert ? 65535 - v : v)
            }
            if alpha != .none { d[colour] = UInt16(a) }
        }
    }

    /// A low-depth pixel: its gray level, or its palette index's colour.
    private func write(level: Int, index: Int, x: Int, into dst: UnsafeMutablePointer<UInt8>) {
        switch model {
        case .gray(let whiteIsZero): dst[x] = UInt8(whiteIsZero ? 255 - level : level)
        case .palette(let entries):
            for c in 0..<3 { dst[x * 3 + c] = index * 3 + c < entries.count ? entries[index * 3 + c] : 0 }
        default: break
        }
    }
}
