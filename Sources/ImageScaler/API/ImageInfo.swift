/// What a file's header says, read without decoding pixels. `size` is as stored; with
/// an EXIF orientation of 5-8 the upright image is `uprightSize`.
public struct ImageInfo: Equatable, Sendable {
    public var format: ImageFormat
    public var size: Size
    /// Channels of the decoded buffer: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA.
    public var channels: Int
    /// Bits per sample as stored in the file.
    public var bitDepth: Int
    /// A short name of the stored colour model: gray, gray+alpha, rgb, rgba, palette, cmyk.
    public var colorModel: ImageInfo.ColorModel
    public var orientation: ImageInfo.Orientation
    public var interlaced: Bool
    public var iccProfile: [UInt8]?
    public var exif: [UInt8]?
    public var xmp: [UInt8]?
    /// Text chunks (PNG tEXt/zTXt/iTXt other than XMP) or comments (JPEG COM).
    public var textCount: Int = 0
    /// Frames of an animation (the first is the one decoded); 1 for a still image.
    public var frames: Int = 1
    /// Still images side by side in one container (HEIF's top-level items); the one
    /// decoded is `primaryItem`, the file's own choice.
    public var images: Int = 1
    /// The container's id of the image decoded, where it has ids (HEIF's `pitm`).
    public var primaryItem: Int? = nil
    /// Bytes a decode holds besides the rows it hands over: a progressive JPEG's
    /// coefficients, an interlaced PNG's whole image, libpng's row buffers.
    public var workingBytes: Int = 0
    /// An HDR photo's gain map (UltraHDR), kept through fill, fit and crop into a JPEG.
    public var gainMap: GainMap? = nil
    /// Why a gain map the file lists was not kept (an index pointing outside the file...):
    /// said by a render that would have kept it.
    public var gainMapDropped: String? = nil
    /// Things worth telling the user that did not stop the decode (broken EXIF).
    public var warnings: [String] = []

    /// The kinds of metadata present, in a fixed order: icc, exif, xmp, text.
    public var metadataKinds: [String] {
        [iccProfile != nil ? "icc" : nil, exif != nil ? "exif" : nil, xmp != nil ? "xmp" : nil,
         textCount > 0 ? "text" : nil].compactMap { $0 }
    }

    public var uprightSize: Size { orientation.swapsAxes ? Size(width: size.height, height: size.width) : size }
}

extension ImageInfo {
    /// A header as a codec fills it in: the ten fields every format has, the rest at
    /// their defaults.
    package init(format: ImageFormat, size: Size, channels: Int, bitDepth: Int, colorModel: ColorModel,
                 orientation: Orientation, interlaced: Bool, iccProfile: [UInt8]?, exif: [UInt8]?, xmp: [UInt8]?) {
        self.format = format
        self.size = size
        self.channels = channels
        self.bitDepth = bitDepth
        self.colorModel = colorModel
        self.orientation = orientation
        self.interlaced = interlaced
        self.iccProfile = iccProfile
        self.exif = exif
        self.xmp = xmp
    }
}
