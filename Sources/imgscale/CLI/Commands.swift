#if canImport(Glibc)
import Glibc
#endif
import ImageCompare
import ImageScaler

/// The command table: every subcommand, its options and help, in `--help` order.
enum Commands {
    static let version = "0.1.0"

    static let outputOptions: [OptionSpec] = [
        OptionSpec("output", short: "o", value: "OUTPUT", "output file for a single input ('-' for stdout)"),
        OptionSpec("out-dir", value: "DIR", "write each output into DIR (created if needed)"),
        OptionSpec("name", value: "TEMPLATE", "output name in --out-dir: {name} {stem} {ext} (the output format's) {dir} {w} {h} (as asked) {width} {height} (as made) {scale} {at} {dpi} (default {name})"),
        OptionSpec("format", value: ImageFormat.writable.map(\.rawValue).joined(separator: "|"),
                   .choice(ImageFormat.writable.map(\.rawValue), aliases: ImageFormat.writableAliases),
                   "output format, replacing the name's extension; repeat it to write each size in each format from one decode",
                   repeatable: true),
        OptionSpec("quality", value: "N", .int(HelpText.span(.quality)), "\(HelpText.formats(.quality)) quality \(HelpText.values(HelpText.span(.quality))) (default: \(HelpText.defaults(.quality)))"),
        OptionSpec("target-ssim", value: "S", .number, "pick the lowest quality whose file scores at least SSIM S (above 0, at most 1; 0.98 is hard to tell from the original) against the resized image; --report gives quality and ssim"),
        OptionSpec("max-bytes", value: "SIZE", .bytes, "pick the highest quality whose file is at most SIZE (100000, or 100K = 102400); the output fails when even quality 1 is larger"),
        OptionSpec("lossless", "write lossless \(HelpText.formats(.lossless, or: true)): every pixel exact (RGB coded as GBR at 4:4:4 where the format codes YCbCr), and a JPEG converted to a format that can hold its coded data keeps it"),
        OptionSpec("effort", value: "N", .int(HelpText.span(.effort)), "\(HelpText.ranges(.effort)) effort: more CPU for smaller files (default: \(HelpText.defaults(.effort)))"),
        OptionSpec("compression", value: "N", .int(HelpText.span(.compression)), "\(HelpText.formats(.compression)) zlib level \(HelpText.values(HelpText.span(.compression))) (default: \(HelpText.defaults(.compression)))"),
        OptionSpec("background", value: "COLOUR", .color, "colour behind alpha in \(ImageFormat.names(ImageFormat.writable.filter { !$0.holdsAlpha }, or: true)) output, --flatten and fit --pad: RRGGBB, RRGGBBAA, RGB, RGBA, transparent or a CSS name (default ffffff)"),
        OptionSpec("progressive", "write progressive \(HelpText.formats(.progressive, or: true))"),
        OptionSpec("optimize", "\(HelpText.formats(.optimize)): a smaller file for the same quality (trellis quantisation, scans chosen by size), as mozjpeg; slower"),
        OptionSpec("subsampling", value: "444|422|420", .choice(ChromaSubsampling.allCases.map(\.rawValue)), "\(HelpText.formats(.subsampling)) chroma subsampling (default 420)"),
        OptionSpec("palette", "write \(HelpText.formats(.palette)) images of at most 256 colours as palette images"),
        OptionSpec("colors", value: "N", .int(2...256), "write a \(HelpText.formats(.colors, or: true)) palette image of at most N colours (2-256), quantised when it has more (photos, icons, screenshots; alpha kept), as pngquant does"),
        OptionSpec("dither", value: "D", .number, "Floyd-Steinberg dithering strength of --colors, 0 (none) to 1 (default 1, as pngquant)"),
        OptionSpec("depth", value: "8|16|auto", .choice(OutputDepth.allCases.map(\.rawValue) + ImageFormat.refusedDepths.map { String($0.bits) }),
                   "bits per sample written: 16 keeps a 16-bit PNG's samples through every step (PNG output only); auto keeps the input's where the output holds it (default 8)"),
        OptionSpec("flatten", "composite alpha onto --background and write an opaque image, in any format"),
        OptionSpec("no-auto-orient", "keep the stored pixel order, ignoring EXIF orientation"),
        OptionSpec("trim", value: "THRESHOLD", .optionalNumber, "first crop away the border matching the top-left pixel (or --trim-color), levels apart at most THRESHOLD (default 10), as libvips's find_trim"),
        OptionSpec("trim-color", value: "COLOR", .color, "the border colour --trim takes away, instead of the top-left pixel's"),
        OptionSpec("strip-profile", "do not carry the input's ICC profile into the output"),
        OptionSpec("to-srgb", "convert from the input's ICC profile to sRGB and write no profile"),
        OptionSpec("export-profile", value: "srgb|p3|adobergb|PATH",
                   "convert from the input's ICC profile (sRGB without one) to this one and embed it: Display P3 keeps a wide-gamut photo's colours; gray images keep their gray"),
        OptionSpec("intent", value: "I", .choice(ColorTarget.Intent.allCases.map(\.rawValue)),
                   "rendering intent of --export-profile: perceptual (default), relative, saturation or absolute"),
        OptionSpec("gain-map", value: "keep|drop", .choice(["keep", "drop"]), "an HDR photo's gain map (UltraHDR): resized through the same fill, fit or crop and kept in \(ImageFormat.names(ImageFormat.writable.filter(\.keepsGainMaps), or: true)) output (default keep; other formats say it was dropped); drop writes the SDR picture alone"),
        OptionSpec("keep-metadata", "copy EXIF (orientation reset to 1, thumbnail dropped) and XMP"),
        OptionSpec("animated", "keep every frame of an animated \(ImageFormat.names(ImageFormat.readingAnimations, or: true)): each composited, made as the first would be, written as an animated \(ImageFormat.names(ImageFormat.writingAnimations, or: true)) (as the output's format says) with its delays and loop count; another format gets the first frame, with a warning (default: the first frame alone)"),
        OptionSpec("max-frames", value: "N", .int(1...1_000_000), "refuse animations of more than N frames with --animated, and any file of more than N coded frames or layers, shown or not (default 1000)"),
        OptionSpec("max-pixels", value: "N", .int(0...Int.max), "refuse inputs over N pixels (default 268402689; 0 = no limit)"),
        OptionSpec("max-memory", value: "SIZE", .bytes, "memory one image may use, like 512M or 2G (default 512M; 0 = no limit)"),
        densityOption,
        pageOption,
        OptionSpec("max-cpu", value: "SECONDS", .int(0...Int(Int32.max)), "CPU time one input may take for each output it makes, before it fails (default 120; 0 = no limit)"),
        OptionSpec("timeout", value: "SECONDS", .number,
                   "wall-clock time one input may take before its worker is killed and it fails (default: 10 s for an input up to 8 MB, scaled with its size, pixels and outputs; 0 = no limit)"),
        OptionSpec("fail-on", value: "none|truncated|error|warning", .choice(FailOn.allCases.map(\.rawValue)), "damage that fails an input (default warning: any); below it, decode what is there and warn"),
        OptionSpec("jobs", short: "j", value: "N", .int(1...1024), "files processed at once (default: number of cores)"),
        OptionSpec("threads", value: "N", .int(1...1024), "threads each file may use: decoding ahead, a region decoded in halves where the format allows, the \(ImageFormat.names(ImageFormat.encodingOnThreads)) encoders, JPEG's --optimize trials (default: the cores -j leaves, at least 1); the bytes are the same at any count"),
        OptionSpec("files-from", value: "PATH", "read input paths from PATH, one per line ('-' = stdin)"),
        OptionSpec("null", "--files-from paths are NUL-separated (find -print0)"),
        OptionSpec("if-newer", "skip inputs whose output exists and is not older"),
        OptionSpec("if-changed", "skip outputs made from these same input bytes and options by this imgscale (a .imgscale-manifest beside them; works after git clone)"),
        OptionSpec("shard", value: "K/N|auto[/N]", "process only the K-th of N slices of the inputs; auto reads K (and N where given) from a Kubernetes Indexed Job, AWS Batch array, Cloud Run job or Slurm array"),
        OptionSpec("balance", value: "count|cost", .choice(ShardSpec.Balance.allCases.map(\.rawValue)),
                   "how --shard deals inputs: count (default: input i to shard i mod N) or cost (by what each header predicts, the same on every machine)"),
        OptionSpec("report", value: "PATH", "write a JSON line per input to PATH ('-' = stdout)"),
        OptionSpec("placeholder", value: "LIST", "add to each output's --report line (and --if-changed's manifest): \(Placeholder.allCases.map(\.rawValue).joined(separator: ", ")), comma-separated; from the pixels encoded, reduced to 100 pixels (docs/placeholders.md)"),
        OptionSpec("blurhash-components", value: "X,Y", "BlurHash's components across and down, 1-9 each (default 4,3)"),
        OptionSpec("progress", value: "auto|always|never", .choice(["auto", "always", "never"]), "progress on stderr (default auto: only on a terminal)"),
        OptionSpec("quiet", short: "q", "no summary line"),
        OptionSpec("verbose", short: "v", "say how each input was decoded: how many decodes, at which scale, for which outputs"),
    ]

    static let densityOption = OptionSpec("density", value: "DPI", .number,
                                          "dots per inch of an SVG sized in mm, in or pt, or by its viewBox alone (default 72)")

    static let pageOption = OptionSpec("page", value: "N", .int(0...65535),
                                       "which page of a multi-page input (TIFF) is read, from 0 (default 0); info counts them")

    /// `--export-profile` and `--intent` as a colour target: a name Little CMS makes, or
    /// an RGB ICC profile read from a file (checked here: a bad one is a usage error).
    static func exportTarget(_ args: ParsedArguments) throws -> ColorTarget? {
        let intent = args.choice("intent", as: ColorTarget.Intent.self) ?? .perceptual
        guard let given = args.value("export-profile") else {
            if args.has("intent") { throw UsageError(message: "--intent applies to --export-profile, which is not given") }
            return nil
        }
        if args.has("to-srgb") { throw UsageError(message: "--to-srgb and --export-profile cannot be combined; --to-srgb is --export-profile srgb without the profile embedded") }
        switch given.lowercased() {
        case "srgb": return ColorTarget(.srgb, intent: intent)
        case "p3", "display-p3": return ColorTarget(.p3, intent: intent)
        case "adobergb", "adobe-rgb": return ColorTarget(.adobeRGB, intent: intent)
        default:
            let bytes: [UInt8]
            do { bytes = try ImageFile.read(given, limit: 16 << 20, regularOnly: true) } catch {
                throw UsageError(message: "--export-profile '\(FileName.display(given))': \(error); give srgb, p3, adobergb or an ICC profile's path")
            }
            if let why = ICCProfile.malformation(bytes) {
                throw UsageError(message: "--export-profile '\(FileName.display(given))' is not an ICC profile: \(why)")
            }
            guard ICCProfile.fits(bytes, channels: 3) else {
                throw UsageError(message: "--export-profile '\(FileName.display(given))' describes no RGB colour space; outputs are RGB")
            }
            return ColorTarget(.icc(bytes), intent: intent, label: FileName.display(given))
        }
    }

    /// `--placeholder LIST` and `--blurhash-components X,Y`, checked.
    static func placeholders(_ args: ParsedArguments) throws -> ([Placeholder], (x: Int, y: Int)) {
        var kinds: [Placeholder] = []
        if let list = args.value("placeholder") {
            for name in list.split(separator: ",", omittingEmptySubsequences: false).map({ String($0.filter { $0 != " " }).lowercased() }) {
                guard let kind = Placeholder(rawValue: name) else {
                    throw UsageError(message: "--placeholder: unknown '\(name)'; give \(Placeholder.allCases.map(\.rawValue).joined(separator: ", ")), comma-separated")
                }
                if !kinds.contains(kind) { kinds.append(kind) }
            }
            guard args.has("report") else {
                throw UsageError(message: "--placeholder adds fields to each output's --report line; give --report PATH ('-' = stdout)")
            }
        }
        guard let given = args.value("blurhash-components") else { return (kinds, (4, 3)) }
        guard kinds.contains(.blurhash) else {
            throw UsageError(message: "--blurhash-components shapes --placeholder blurhash, which is not asked for")
        }
        let parts = given.split(separator: ",", omittingEmptySubsequences: false).map { Int(String($0.filter { $0 != " " })) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], BlurHash.componentRange.contains(x), BlurHash.componentRange.contains(y) else {
            throw UsageError(message: "--blurhash-components must be X,Y with each from 1 to 9, like 4,3, not '\(given)'")
        }
        return (kinds, (x, y))
    }

    static func density(_ args: ParsedArguments) throws -> Double {
        guard let d = args.number("density") else { return 72 }
        guard d > 0, d <= 100_000 else { throw UsageError(message: "--density must be above 0 and at most 100000, not '\(args.value("density") ?? "")'") }
        return d
    }

    static let scaleOption = OptionSpec("scale", value: "N", .number,
                                        "multiply every --size by N (0.75, 1, 1.5, 2, 3, 4, or any above 0) for a density set; repeat it; {scale}, {at} (@2x, empty for 1) and {dpi} (Android's mdpi, xhdpi...) name them",
                                        repeatable: true)

    static let sharpenOption = OptionSpec("sharpen", value: "R,P,T", .sharpen,
                                          "Pillow's unsharp mask after resizing, byte for byte: radius, percent, threshold (Pillow's 2,150,3 fill what is left out); alone, a light 0.5,60,2 for downscaled photos. Off by default")
    static let linearOption = OptionSpec("linear", "resample in linear light (as vipsthumbnail --linear): no darkening of fine detail; blocks averaged to 2x the target, then the filter; decodes at full size")
    static let filterOption = OptionSpec("filter", value: "F", .choice(ResampleFilter.allCases.map(\.rawValue)),
                                         "nearest box bilinear hamming bicubic lanczos (default bilinear)")
    static let filterHelp = """
    Filters (Pillow's, byte for byte): bilinear (default) is smooth and safe for photos;
    lanczos or bicubic are sharper for photos and text (slight ringing at hard edges);
    hamming sits between; box averages, good for exact halvings; nearest keeps pixel art
    and screenshots blocky (no smoothing at all).
    """
    static let noUpscaleOption = OptionSpec("no-upscale", "never enlarge: fit keeps a smaller image's size, fill crops it to the aspect ratio")
    static let originOption = OptionSpec("origin", value: "top-left|bottom-left", .choice(CoordinateOrigin.allCases.map(\.rawValue)), "corner rect coordinates start from (default top-left)")
    static let focusOption = OptionSpec("focus", value: "X,Y", "centre the crop on this point of the upright image, in pixels or percentages of its sides (1200,800 or 50%,30%), as near as the image allows; not with --gravity")

    static let gravityOption = OptionSpec("gravity", value: "G", .choice(Gravity.allCases.map(\.rawValue), aliases: ["center": "centre"]), "where the crop sits: centre north south east west northeast northwest southeast southwest, or entropy (the busiest part)")

    static let all: [CommandSpec] = [
        CommandSpec(
            name: "fill", summary: "Scale to fill WxH exactly, cropping the overflow with the aspect ratio kept.",
            usage: "imgscale fill --size WxH [--from X,Y,W,H] [--origin top-left|bottom-left] [--gravity G | --focus X,Y] INPUT... (-o OUTPUT | --out-dir DIR)",
            examples: ["imgscale fill --size 256x256 photo.jpg -o thumb.jpg",
                       "imgscale fill --size 128x128 --from 362,449,260,160 photo.jpg -o face.png",
                       "imgscale fill --size 400x400 --focus 62%,40% product.jpg -o square.jpg",
                       "imgscale fill --size=200x200 -j2 --out-dir thumbs --name '{stem}_{w}x{h}.jpg' *.jpg",
                       "imgscale fill --size 256x256 --fail-on none damaged.jpg -o thumb.jpg",
                       "imgscale fill --size 1024x1024 --size 180x180 --size 120x120 --size 20x20 --flatten master.png --out-dir AppIcon --name 'icon-{w}.png'"],
            details: """
            --from limits the source to a rect (clipped to the image) before the aspect fill.
            Several --size values make one output each from a single decode, named by --name
            (which then needs {w} or {h}); each is byte for byte what a run with that size alone makes.
            An .ico output (-o favicon.ico, or --format ico) holds every --size in the one file.
            {dir} in --name is the input's directory as given; outputs must stay inside --out-dir.

            """ + filterHelp,
            options: [OptionSpec("size", value: "WxH", .size(), "target size (required); repeat it for several outputs from one decode", repeatable: true),
                      OptionSpec("from", value: "X,Y,W,H", .rect, "fill from this part of the image only"),
                      originOption, gravityOption, focusOption, filterOption, sharpenOption, linearOption, noUpscaleOption, scaleOption] + outputOptions,
            run: { args in try runImages(args, operations: try fillOperations(args)) }),
        CommandSpec(
            name: "crop", summary: "Cut a rect out of the image, unscaled (clipped to the image).",
            usage: "imgscale crop --rect X,Y,W,H [--origin top-left|bottom-left] INPUT... (-o OUTPUT | --out-dir DIR)",
            examples: ["imgscale crop --rect 10,20,300,200 photo.jpg -o part.jpg",
                       "imgscale crop --rect 0,0,100,50 --origin bottom-left page.png -o footer.png"],
            details: "",
            options: [OptionSpec("rect", value: "X,Y,W,H", .rect, "the rect to cut (required)"), originOption, sharpenOption] + outputOptions,
            run: { args in
                guard let r = args.rect("rect") else { throw UsageError(message: "crop needs --rect X,Y,W,H") }
                return try runImages(args, operations: [.crop(r, origin: origin(args))])
            }),
        CommandSpec(
            name: "fit", summary: "Scale to fit inside WxH with the aspect ratio kept; nothing is cropped.",
            usage: "imgscale fit --size WxH INPUT... (-o OUTPUT | --out-dir DIR)",
            examples: ["imgscale fit --size 800x600 photo.jpg -o preview.jpg",
                       "imgscale fit --size 320x --size 640x --size 1280x --size 1920x --no-upscale photo.jpg --out-dir web --name '{stem}-{w}w.jpg'",
                       "imgscale fit --size 256x256 --pad --background 000000 logo.png -o tile.png",
                       "imgscale fit --size 800x800 --pad --trim products/*.jpg --out-dir squares"],
            details: filterHelp,
            options: [OptionSpec("size", value: "WxH", .size(oneSided: true), "the box to fit in (required); Wx or xH bounds one side only; repeat for several outputs", repeatable: true),
                      OptionSpec("pad", "letterbox to exactly WxH, centred, on --background"),
                      filterOption, sharpenOption, linearOption, noUpscaleOption, scaleOption] + outputOptions,
            run: { args in
                let sizes = args.sizes("size")
                guard !sizes.isEmpty else { throw UsageError(message: "fit needs --size WxH") }
                if args.has("pad"), sizes.contains(where: { $0.width == Size.unbounded || $0.height == Size.unbounded }) {
                    throw UsageError(message: "--pad needs both sides of --size, like 800x600")
                }
                return try runImages(args, operations: sizes.map { .fit($0, pad: args.has("pad") ? background(args) : nil) })
            }),
        CommandSpec(
            name: "plan", summary: "Print what a command would do to each input (decode, stages, encoder, threads, memory), or the source rect fill would use for a size.",
            usage: "imgscale plan fill|fit|crop|convert [--json] OPTIONS INPUT...  |  imgscale plan --source WxH --size WxH [--from X,Y,W,H] [--origin top-left|bottom-left] [--gravity G] [--orientation N]",
            examples: ["imgscale plan fill --size 256x256 photo.jpg -o thumb.jpg",
                       "imgscale plan fit --size 800x --json photo.heic -o preview.webp",
                       "imgscale plan --source 4032x3024 --size 256x256",
                       "imgscale plan --source 1000x800 --size 100x100 --from 362,449,260,160"],
            details: """
            Given a command and its arguments, plan reads each input's header (no pixels, unless --gravity entropy needs \
            its preview) and prints what that command would do: each decode (scale, rows and columns, how a second core is \
            used), each output's stages and encoder with its settings and metadata, the threads and the memory. Nothing is \
            written. With --source, no file is read: the source rect fill would use is the last line, as X,Y,W,H \
            (top-left); --orientation N (EXIF 1-8) takes --source as stored, and the rect is in upright coordinates.
            """,
            options: [OptionSpec("source", value: "WxH", .size(), "source image size (required)"),
                      OptionSpec("size", value: "WxH", .size(), "target size (required)"),
                      OptionSpec("from", value: "X,Y,W,H", .rect, "fill from this part of the image only"),
                      originOption,
                      OptionSpec("gravity", value: "G", .choice(Gravity.allCases.map(\.rawValue), aliases: ["center": "centre"]),
                                 "where the crop sits: centre north south east west northeast northwest southeast southwest (entropy needs the pixels, so only fill takes it)"),
                      focusOption,
                      OptionSpec("orientation", value: "N", .int(1...8), "EXIF orientation 1-8 of the source (default 1)")],
            run: runPlan),
        PlanReplay.spec,
        CommandSpec(
            name: "convert", summary: "Decode and re-encode; the output format follows the output's extension.",
            usage: "imgscale convert INPUT... (-o OUTPUT | --out-dir DIR) [--size WxH] [--quality N] [--compression N] [--background COLOUR]",
            examples: ["imgscale convert photo.png -o photo.jpg --quality 90",
                       "imgscale convert --size 1600x --no-upscale scan.png -o scan.jpg",
                       "imgscale convert logo.png -o logo.jpg --background 000000",
                       "imgscale convert --out-dir png --format png *.jpg"],
            details: "With --size the image is also scaled to fit the box, as fit does.",
            options: [OptionSpec("size", value: "WxH", .size(oneSided: true), "also scale to fit WxH (Wx or xH bound one side); repeatable", repeatable: true),
                      filterOption, sharpenOption, linearOption, noUpscaleOption] + outputOptions,
            run: { args in
                let sizes = args.sizes("size")
                return try runImages(args, operations: sizes.isEmpty ? [.convert] : sizes.map { .fit($0) })
            }),
        CommandSpec(
            name: "compare", summary: "Compare two images, or two directories of them; exit 0 when they match, 1 when they differ.",
            usage: "imgscale compare EXPECTED ACTUAL [--tolerance N | --threshold T | --max-delta-e E] [--ignore X,Y,W,H] [--mask PATH] [--max-pixels-differ N|P%] [--min-psnr DB] [--metric ssim] [--min-ssim S] [--diff PATH] [--json] [--junit PATH] [--update missing|failed|all|prune]",
            examples: ["imgscale compare golden.png out.png",
                       "imgscale compare --threshold 0.1 --ignore 0,0,200,40 golden.png screenshot.png --diff diff.png",
                       "imgscale compare --tolerance 2 --max-pixels-differ 0.1% golden.png out.jpg --diff diff.png",
                       "imgscale compare -j2 --threshold 0.1 goldens/ out/ --junit compare.xml --html report/",
                       "imgscale compare goldens/ out/ --update missing"],
            details: """
            Images are compared as RGBA (gray replicated, missing alpha 255), upright (EXIF
            orientation applied unless --no-auto-orient); pixels fully transparent in both are
            equal whatever their hidden colour. By default a pixel differs when any channel differs
            by more than --tolerance. --threshold T (0-1) uses pixelmatch's perceptual YIQ
            distance instead, and does not count the pixels its detector finds to be
            anti-aliasing (--antialiasing count counts them); semi-transparent pixels are
            blended onto white first, as the PyPI pixelmatch does. Two 16-bit PNGs are compared
            at 16 bits under --tolerance (given in 8-bit levels, scaled by 257; differences and
            mean then in 16-bit units). --ignore rects and the black
            or transparent pixels of a --mask PNG are not compared. PSNR is 10*log10(255^2/MSE)
            over R, G and B, and A when either image has alpha; 'inf' only when identical.
            --metric ssim adds SSIM (Wang et al. 2004, Gaussian 11x11, on BT.601 luma of
            premultiplied RGB on white: scikit-image's) and, in JSON, the box where the local
            SSIM fell below 0.95 with its mean; --min-ssim S passes pairs scoring at least S. Mean
            is the mean absolute difference over all RGBA samples. The summary line's format is
            stable. --diff is written only when the images differ (images of different sizes on
            the larger canvas). With two directories every image is compared by relative path
            (-j at a time); missing and extra files fail too, and --diff names a directory.
            In EXPECTED, a file imgscale-goldens.json sets limits per image: {"version": 1,
            "rules": [{"match": "icons/*.png", "tolerance": 3}, {"match": "charts/**",
            "max_delta_e": 2, "max_pixels_differ": "0.5%"}, {"match": "flaky/**", "skip": true,
            "reason": "fonts differ on CI"}]}. Every rule matching a relative path applies,
            least specific first, over the command line's limits; the keys: tolerance,
            threshold, antialiasing, max_delta_e, max_pixels_differ, min_psnr, min_ssim,
            ignore, mask (a PNG beside the goldens), skip, reason (docs/golden-testing.md).
            --update missing (or all) makes the goldens directory on the first recording.
            Exit status: 0 match, 1 differ (or different sizes, missing, extra), 2 an image cannot be read.
            """,
            options: [OptionSpec("tolerance", value: "N", .int(0...255), "channel difference still counted equal (default 0)"),
                      OptionSpec("threshold", value: "T", .number, "perceptual rule: pixelmatch's YIQ threshold 0-1 (0.1 is its default)"),
                      OptionSpec("max-delta-e", value: "E", .number, "colour rule: a pixel differs when CIEDE2000 (sRGB to L*a*b*, D65) exceeds E (1 is about the least the eye sees)"),
                      OptionSpec("antialiasing", value: "ignore|count", .choice(["ignore", "count"]), "with --threshold: anti-aliased pixels (default ignore)"),
                      OptionSpec("ignore", value: "X,Y,W,H", .rect, "leave this rect out of the comparison (repeatable)", repeatable: true),
                      OptionSpec("mask", value: "PATH", "an image the size of both: its black or transparent pixels are not compared"),
                      OptionSpec("min-psnr", value: "dB", .number, "match when PSNR >= DB, instead of the pixel count"),
                      OptionSpec("metric", value: "ssim|phash", .choice(["ssim", "phash"]), "also report SSIM (Wang et al., scikit-image's, on BT.601 luma) and where it fell below 0.95, or the pHash distance (bits of imagehash's 64 that differ)"),
                      OptionSpec("min-ssim", value: "S", .number, "match when SSIM >= S (above 0, at most 1), instead of the pixel count; with --min-psnr both must hold"),
                      OptionSpec("max-pixels-differ", value: "N|P%", "differing pixels allowed (default 0)"),
                      OptionSpec("diff", value: "PATH", "write a PNG showing where they differ (a directory for directories)"),
                      OptionSpec("keep-near-miss", value: "F", .number, "also write the diff of a pair that passed using more than fraction F (0-1) of its allowance"),
                      OptionSpec("diff-style", value: "overlay|mask|side-by-side", .choice(DiffImage.Style.allCases.map(\.rawValue)),
                                 "overlay (default), mask (the differences alone) or expected | actual | diff"),
                      OptionSpec("json", "print each result as one JSON object"),
                      OptionSpec("server", "read {\"expected\", \"actual\", \"diff\"?, \"options\"?} requests a line from stdin, answer each with its JSON line, in order, until EOF"),
                      OptionSpec("goldens-template", value: "T", "each golden is the platform's own through T, like '{dir}/{platform}/{path}' ({dir}: the goldens' directory, {path}: the golden's name or path under it)"),
                      OptionSpec("platform", value: "NAME", "the {platform} of --goldens-template (default: this system's, \(GoldenTemplate.systemPlatform))"),
                      OptionSpec("fallback", "where the platform's golden is missing, compare with the plain one (the JSON says \"golden\": \"fallback\")"),
                      OptionSpec("cache", value: "FILE", "directories: skip pairs that passed before with the same images (by SHA-256, trusting inode, size and times first) and limits, as unchanged; FILE is written atomically"),
                      OptionSpec("junit", value: "PATH", "write JUnit XML, a test case per image"),
                      OptionSpec("html", value: "DIR", "write DIR/index.html, a page for review: failures first, a filter by status, and each failure side by side, as a slider, an onion skin, blinking and its diff"),
                      OptionSpec("update", value: "missing|failed|all|prune", .choice(["missing", "failed", "all", "prune"]),
                                 "copy ACTUAL over EXPECTED: new images, failing ones too, or all; prune: remove goldens with no actual image"),
                      OptionSpec("jobs", short: "j", value: "N", .int(1...1024), "pairs compared at once (default: number of cores)"),
                      OptionSpec("no-auto-orient", "compare stored pixel order, ignoring EXIF orientation"),
                      OptionSpec("max-memory", value: "SIZE", .bytes, "memory each image may use (default 512M; 0 = no limit)")],
            run: CompareCommand.run),
        CommandSpec(
            name: "info", summary: "Print format, size, channels, bit depth and EXIF orientation of each input.",
            usage: "imgscale info [--json] [--hash ahash,dhash,phash] INPUT...",
            examples: ["imgscale info photo.jpg", "imgscale info --json *.png", "imgscale info --hash phash photos/*.jpg"],
            details: """
            --hash decodes each picture whole, turns it upright and prints its 64-bit
            perceptual hashes in hex, equal to Python imagehash's average_hash, dhash and
            phash of the upright image: near-duplicates differ in few bits (compare
            --metric phash counts them).
            """,
            options: [OptionSpec("json", "print one JSON object per line"),
                      OptionSpec("hash", value: "LIST", "also print perceptual hashes: ahash, dhash, phash, comma-separated (imagehash's, of the upright picture)"),
                      OptionSpec("max-pixels", value: "N", .int(0...Int.max), "accepted for symmetry; info reads headers only"),
                      OptionSpec("max-memory", value: "SIZE", .bytes, "largest file read (default 512M; 0 = no limit)"),
                      densityOption, pageOption],
            run: InfoCommand.run),
        CommandSpec(
            name: "merge-reports", summary: "Add up the --report files of a sharded run: outputs ok, skipped and failed, each failure, and inputs done twice.",
            usage: "imgscale merge-reports [--json] [--merged PATH] REPORT...",
            examples: ["imgscale merge-reports reports/shard-*.jsonl",
                       "imgscale merge-reports --merged all.jsonl reports/shard-*.jsonl",
                       "imgscale merge-reports --json host1.jsonl host2.jsonl > summary.json"],
            details: """
            Each line is read alone: a line a killed shard cut short is counted as damaged and
            named on stderr, and the rest still count. An input done by more than one shard
            means the shards were given different lists. A report a retried shard took up
            again holds each attempt's lines: each output counts once, by its last attempt,
            and the summary says how many a retry made. Reports are streamed: a million
            lines merge in seconds and a few MiB.
            Exit status 1 when an output failed, an input was done twice or a line was damaged.
            """,
            options: [OptionSpec("json", "print the summary as one JSON object"),
                      OptionSpec("merged", value: "PATH", "also write one report line per output ('-' = stdout): the last attempt's, in input order, as one run over the whole list writes them")],
            run: MergeReportsCommand.run),
    ]

    static func origin(_ args: ParsedArguments) -> CoordinateOrigin {
        args.choice("origin", as: CoordinateOrigin.self) ?? .topLeft
    }

    static func background(_ args: ParsedArguments) -> RGBColor {
        args.color("background") ?? .white
    }

    /// fill and fit --pad make exactly --size: the limits it breaks follow from the
    /// arguments alone, so they are usage errors, found before any file is read.
    static func checkExactSize(_ operation: ImageOperation, formats: Set<ImageFormat>, maxPixels: Int) throws {
        let size: Size
        switch operation {
        case .fill(let s, _, _, _, _), .fit(let s, .some, _): size = s
        default: return
        }
        if maxPixels > 0 && size.width * size.height > maxPixels {
            throw UsageError(message: "--size \(size) is \(size.width * size.height) pixels, over the limit of \(maxPixels) (raise it with --max-pixels)")
        }
        for format in formats where size.width > format.maxSide || size.height > format.maxSide {
            throw UsageError(message: "--size \(size) is too large for \(format.displayName), which allows at most \(format.maxSide) pixels per side")
        }
    }

    /// An encoder option for a format no output has does nothing: one line says so, as
    /// a typo'd extension would otherwise go unnoticed. Outputs that take their input's
    /// format are not known yet, so they silence it.
    static func warnAboutUnusedOptions(_ args: ParsedArguments, outputs: [Job.Output]) {
        guard outputs.allSatisfy({ $0.format != nil }) else { return }
        let formats = Set(outputs.compactMap(\.format))
        for option in EncoderOption.allCases where args.has(option.rawValue) {
            let users = ImageFormat.taking(option)
            guard formats.isDisjoint(with: users) else { continue }
            let others = ImageFormat.names(formats.sorted { $0.rawValue < $1.rawValue })
            Console.err("imgscale: warning: --\(option.rawValue) applies to \(ImageFormat.names(users, or: true)) output only; it has no effect on \(others) output")
        }
    }

    /// `--target-ssim` and `--max-bytes`: a quality searched for, so not given, nor lossless.
    static func qualitySearch(_ args: ParsedArguments, into encode: inout EncodeOptions) throws {
        if let s = args.number("target-ssim") {
            guard s > 0 && s <= 1 else { throw UsageError(message: "--target-ssim must be above 0 and at most 1, not '\(args.value("target-ssim") ?? "")'") }
            encode.targetSSIM = s
        }
        if let n = args.bytes("max-bytes") {
            guard n > 0 else { throw UsageError(message: "--max-bytes must be above 0") }
            encode.maxBytes = n
        }
        guard encode.targetSSIM != nil || encode.maxBytes != nil else { return }
        let searching = args.has("target-ssim") ? "--target-ssim" : "--max-bytes"
        if args.has("quality") { throw UsageError(message: "\(searching) chooses the quality; drop --quality") }
        if args.has("lossless") { throw UsageError(message: "\(searching) chooses a lossy quality; drop --lossless") }
    }

    /// `--max-memory`: 0 means no budget.
    static func maxMemory(_ args: ParsedArguments) -> Int {
        guard let bytes = args.bytes("max-memory") else { return MemoryBudget.defaultBytes }
        return bytes == 0 ? Int.max : bytes
    }

    /// One fill per `--size`, in the order given.
    static func fillOperations(_ args: ParsedArguments) throws -> [ImageOperation] {
        let sizes = args.sizes("size")
        guard !sizes.isEmpty else { throw UsageError(message: "fill needs --size WxH") }
        let gravity = args.choice("gravity", as: Gravity.self) ?? .centre
        let focus = try args.value("focus").map(focusPoint)
        if focus != nil && args.has("gravity") {
            throw UsageError(message: "--focus centres the crop on a point, and --gravity places it too; give one")
        }
        return sizes.map { .fill($0, from: args.rect("from"), origin: origin(args), gravity: gravity, focus: focus) }
    }

    /// `--focus X,Y`: each a pixel (0 or more) or a percentage of the upright side with
    /// at most two decimals ("50%", "33.25%").
    static func focusPoint(_ text: String) throws -> FocusPoint {
        func coordinate(_ part: Substring) -> FocusPoint.Coordinate? {
            if part.hasSuffix("%") {
                let number = part.dropLast().split(separator: ".", omittingEmptySubsequences: false)
                guard (1...2).contains(number.count), let whole = Int(number[0]), number[0].allSatisfy(\.isASCII), (0...100).contains(whole) else { return nil }
                var frac = 0
                if number.count == 2 {
                    guard (1...2).contains(number[1].count), number[1].allSatisfy({ $0.isASCII && $0.isNumber }), let f = Int(number[1]) else { return nil }
                    frac = number[1].count == 1 ? f * 10 : f
                }
                let bp = whole * 100 + frac
                return bp <= 10_000 ? .basisPoints(bp) : nil
            }
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), let p = Int(part), p <= ValueParser.maxDimension else { return nil }
            return .pixel(p)
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = coordinate(parts[0]), let y = coordinate(parts[1]) else {
            throw UsageError(message: "--focus must be X,Y in pixels of the upright image or percentages of its sides (like 1200,800 or 50%,30%), not '\(text)'")
        }
        return FocusPoint(x: x, y: y)
    }

    /// `operation` for a density set's `scale`: its size multiplied, rounded to nearest.
    static func scaled(_ operation: ImageOperation, by scale: Double) -> ImageOperation {
        func times(_ size: Size) -> Size {
            func side(_ v: Int) -> Int { v == Size.unbounded ? v : max(1, Int((Double(v) * scale).rounded())) }
            return Size(width: side(size.width), height: side(size.height))
        }
        switch operation {
        case .fill(let size, let from, let origin, let gravity, let focus): return .fill(times(size), from: from, origin: origin, gravity: gravity, focus: focus)
        case .fit(let size, let pad, let from): return .fit(times(size), pad: pad, from: from)
        case .crop, .convert: return operation
        }
    }

    static func runImages(_ args: ParsedArguments, operations given: [ImageOperation]) throws -> Int32 {
        let scales = args.numbers("scale")
        if let bad = scales.first(where: { !($0 > 0 && $0 <= 16) }) {
            throw UsageError(message: "--scale must be above 0 and at most 16, not '\(BatchPlanner.scaleText(bad))'")
        }
        if !scales.isEmpty && given.contains(where: { $0.requestedSize == nil }) {
            throw UsageError(message: "--scale multiplies --size, which this command was not given")
        }
        // Each scale of each size, scale by scale ("icon", "icon@2x", ...).
        let operations = scales.isEmpty ? given : scales.flatMap { s in given.map { scaled($0, by: s) } }
        var settings = JobSettings()
        if let q = args.int("quality") { settings.encode.quality = q }
        try qualitySearch(args, into: &settings.encode)
        if let c = args.int("compression") { settings.encode.compression = c }
        settings.encode.lossless = args.has("lossless")
        if let e = args.int("effort") { settings.encode.effort = e }
        settings.encode.background = background(args)
        settings.encode.palette = args.has("palette") || args.has("colors")
        if let n = args.int("colors") {
            settings.encode.colors = n
            // A quantised image is small and compresses well: zlib's best, as pngquant.
            if !args.has("compression") { settings.encode.compression = 9 }
        }
        if let d = args.number("dither") {
            guard args.has("colors") else { throw UsageError(message: "--dither sets how --colors dithers; give --colors N") }
            guard d >= 0 && d <= 1 else { throw UsageError(message: "--dither must be from 0 to 1, not '\(args.value("dither") ?? "")'") }
            settings.encode.dither = d
        }
        settings.encode.flatten = args.has("flatten")
        if let asked = args.value("depth"), let refused = ImageFormat.refusedDepths.first(where: { String($0.bits) == asked }) {
            throw UsageError(message: "--depth \(asked): \(refused.why); 16 bits can be written as "
                             + ImageFormat.names(ImageFormat.sixteenBitFormats, or: true))
        }
        if let d = args.choice("depth", as: OutputDepth.self) {
            settings.encode.depth = d
        } else if args.has("lossless") {
            // Lossless keeps every bit a format can hold: a 16-bit source stays 16-bit in
            // PNG and JPEG XL (and is said to be narrowed where the format holds 8).
            settings.encode.depth = .auto
        }
        settings.render.upscale = !args.has("no-upscale")
        if let f = args.choice("filter", as: ResampleFilter.self) { settings.render.filter = f }
        settings.render.sharpen = args.sharpen("sharpen")?.mask
        settings.render.linear = args.has("linear")
        if args.has("trim") {
            settings.render.trim = TrimFinder.Options(threshold: args.number("trim") ?? 10, color: args.color("trim-color"))
            if args.has("animated") { throw UsageError(message: "--trim finds one border, and --animated keeps many frames; trim the frames first") }
        } else if args.has("trim-color") {
            throw UsageError(message: "--trim-color is the border colour of --trim, which is not given")
        }
        if settings.render.sharpen != nil && settings.encode.depth == .sixteen {
            throw UsageError(message: EncodeError.sharpenedSixteenBits.description)
        }
        settings.encode.progressive = args.has("progressive")
        settings.encode.optimize = args.has("optimize")
        if let s = args.choice("subsampling", as: ChromaSubsampling.self) { settings.encode.subsampling = s }
        if let m = args.int("max-pixels") { settings.decode.maxPixels = m }
        settings.decode.maxMemory = maxMemory(args)
        if let f = args.choice("fail-on", as: FailOn.self) { settings.decode.failOn = f }
        settings.render.autoOrient = !args.has("no-auto-orient")
        settings.render.carryProfile = !args.has("strip-profile")
        settings.render.keepMetadata = args.has("keep-metadata")
        settings.render.keepGainMap = args.value("gain-map") != "drop"
        settings.decode.toSRGB = args.has("to-srgb")
        settings.decode.export = try exportTarget(args)
        settings.decode.density = try density(args)
        settings.decode.page = args.int("page") ?? 0
        settings.render.animated = args.has("animated")
        settings.decode.maxFrames = args.int("max-frames") ?? 1000
        settings.fileFacts = args.has("report") || args.has("if-changed")
        (settings.placeholders, settings.blurhashComponents) = try placeholders(args)
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let workers = args.int("jobs") ?? max(1, cores)
        let progressMode = args.value("progress") ?? "auto"
        let planning = settings
        let balance = args.choice("balance", as: ShardSpec.Balance.self)
        if balance != nil && !args.has("shard") { throw UsageError(message: "--balance deals the inputs of --shard, which is not given") }
        let shard = try args.value("shard").map { try ShardSpec.parse($0, balance: balance ?? .count, environment: ShardEngine.environment()) }
        let jobs = try BatchPlanner(args: args, operations: operations, limit: settings.decode.maxMemory,
                                    scales: scales.isEmpty ? nil : scales.flatMap { s in given.map { _ in s } },
                                    produced: { input, operations, format in
                                        Result {
                                            // Named before its job runs, so the input is read twice: a FIFO or
                                            // device would give its bytes to the naming alone, and hang the job.
                                            var st = stat()
                                            if FileName.withCString(input, { stat($0, &st) }) == 0, (st.st_mode & S_IFMT) != S_IFREG {
                                                throw FileError.read("is \(ImageFile.kind(st.st_mode)), which --name {width} or {height} would read twice (to name its output, then to render it); name it by {w} or {h}, or copy it to a file")
                                            }
                                            let data = try ImageFile.readImage(input, limit: planning.decode.maxMemory)
                                            let outputs = operations.map { RenderOutput($0, as: format) }
                                            // A fill makes the size it is asked for whatever --trim finds, and
                                            // finding it decodes the whole picture: naming a batch's fills
                                            // that way took a full decode of each input, one after another,
                                            // before the first job started.
                                            var render = planning.render
                                            if render.upscale && operations.allSatisfy(\.makesItsSize) { render.trim = nil }
                                            return try ImageOperation.plan(data, outputs: outputs, decode: planning.decode, encode: planning.encode,
                                                                           settings: render).outputs.map(\.size)
                                        }
                                    }, shardSpec: shard, cost: { InputCost.predict($0, settings: planning) }).jobs()
        let outputs = jobs.flatMap(\.outputs)
        for operation in operations {
            try checkExactSize(operation, formats: Set(outputs.compactMap(\.format)), maxPixels: settings.decode.maxPixels)
        }
        if !settings.encode.background.isOpaque {
            let given = args.value("background") ?? ""
            if settings.encode.flatten {
                throw UsageError(message: "--flatten needs an opaque --background, not '\(given)': a flattened image has no alpha to be transparent with")
            }
            if let format = outputs.compactMap(\.format).first(where: { !$0.holdsAlpha }) {
                throw UsageError(message: "--background '\(given)' has alpha, which \(format.displayName) cannot hold; give an opaque colour, or write "
                                 + ImageFormat.names(ImageFormat.writable.filter(\.holdsAlpha), or: true))
            }
        }
        if settings.encode.depth == .sixteen {
            if let format = outputs.compactMap(\.format).first(where: { !$0.holdsSixteenBits }) {
                throw UsageError(message: "--depth 16: \(format.displayName) holds 8-bit samples only; write "
                                 + ImageFormat.names(ImageFormat.sixteenBitFormats, or: true) + " for 16 bits")
            }
            if settings.encode.palette {
                throw UsageError(message: "--depth 16 and --\(args.has("colors") ? "colors" : "palette") cannot be combined: a palette's colours are 8-bit")
            }
        }
        warnAboutUnusedOptions(args, outputs: outputs)
        if settings.encode.targetSSIM != nil || settings.encode.maxBytes != nil,
           let format = outputs.compactMap(\.format).first(where: { !ImageFormat.taking(.quality).contains($0) }) {
            let searching = args.has("target-ssim") ? "--target-ssim" : "--max-bytes"
            throw UsageError(message: "\(searching) searches a quality, which \(format.displayName) has none of; write "
                             + ImageFormat.names(ImageFormat.taking(.quality), or: true))
        }
        // The cores no worker uses go to the single images: decode-ahead, split JPEG
        // regions, the encoders' own threads.
        settings.render.threads = args.int("threads") ?? max(1, cores / max(1, min(workers, jobs.count)))
        if let command = args.value(planMarker) {
            return PlanPrinter.run(jobs, settings: settings, json: args.has("json"), args: args, command: command)
        }
        if let recorded = args.value(PlanReplay.marker) { try PlanReplay.check(recorded: recorded, jobs: jobs, settings: settings, args: args) }
        var reportFD: Int32? = nil
        var attempt = 1
        if let report = args.value("report") {
            try BatchPlanner.checkSideOutput(report, option: "report", inputs: jobs.map(\.input), outputs: outputs.map(\.path))
            if report == "-" {
                reportFD = 1
            } else {
                // Emptied (or taken up again, `ReportAttempt`) only once no other run holds it.
                var fd = FileName.withCString(report) { open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o666) }
                // A file this user may write but not read is still a report (emptied, as always).
                if fd < 0 && errno == EACCES { fd = FileName.withCString(report) { open($0, O_WRONLY | O_TRUNC | O_CLOEXEC) } }
                guard fd >= 0 else { throw UsageError(message: "--report \(FileName.display(report)): \(String(cString: strerror(errno)))") }
                if flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK {
                    close(fd)
                    throw UsageError(message: "--report \(FileName.display(report)) is being written by another imgscale (an earlier attempt of this shard still running?)")
                }
                attempt = ReportAttempt.prepare(fd, shard: shard)
                reportFD = fd
            }
        }
        // The focus each line's crop was centred on, as given (percentages stay shares).
        if let focus = operations.lazy.compactMap({ if case .fill(_, _, _, _, let f?) = $0 { f } else { nil } }).first {
            BatchReporter.runFields.append(("focus", JSON.quote(focus.text)))
        }
        if let shard {
            BatchReporter.runFields += [("shard", JSON.quote(shard.text))]
                + (shard.engine.map { [("engine", JSON.quote($0))] } ?? []) + (shard.engineIndex.map { [("index", String($0))] } ?? [])
                + (attempt > 1 ? [("attempt", String(attempt))] : [])
        }
        defer { if let fd = reportFD, fd != 1 { close(fd) } }
        let progress = progressMode == "always" || (progressMode == "auto" && Console.stderrIsTerminal)
        if args.has("verbose") { for note in LibraryVersions.notes { Console.err("imgscale: note: \(note)") } }
        let reporter = BatchReporter(total: outputs.count, progress: progress, quiet: args.has("quiet"), verbose: args.has("verbose"), report: reportFD,
                                     reportPath: args.value("report"))
        let cpu = args.int("max-cpu") ?? 120
        if let t = args.number("timeout"), !(t >= 0 && t <= 10_000_000) {
            throw UsageError(message: "--timeout must be seconds from 0 (no limit) to 10000000, not '\(args.value("timeout") ?? "")'")
        }
        let wall: WallClockLimit = args.number("timeout").map { $0 > 0 ? .fixed($0) : .none } ?? .scaled
        // IMGSCALE_IN_PROCESS=1 runs inputs on threads of this process, unprotected: for
        // measuring what the worker processes cost.
        let isolated = getenv("IMGSCALE_IN_PROCESS").map { String(cString: $0) != "1" } ?? true
        var manifest: BuildManifest? = nil
        if args.has("if-changed") {
            let (loaded, warnings) = BuildManifest.load(outputs: outputs.map(\.path))
            for warning in warnings { Console.err("imgscale: warning: \(warning)") }
            manifest = loaded
        }
        let status = BatchRunner(jobs: jobs, settings: settings, workers: workers, ifNewer: args.has("if-newer"), manifest: manifest,
                                 reporter: reporter, cpuSeconds: cpu > 0 ? cpu : nil, wall: wall, isolated: isolated).run()
        if let manifest, status < 128 {
            for warning in BuildManifest.write(reporter.made, over: manifest) { Console.err("imgscale: warning: \(warning)") }
        }
        return status
    }

    /// The commands `plan` can show the plan of, and the options it adds to theirs: the
    /// marker `main` appends (no user can type it: no command's table has it) and --json.
    static let plannable: Set<String> = ["fill", "fit", "crop", "convert"]
    static let planMarker = "plan-instead-of-running"
    static let planOptions = [OptionSpec(planMarker, value: "COMMAND", "(internal)"), OptionSpec("json", "print each input's plan as one JSON object")]

    static func runPlan(_ args: ParsedArguments) throws -> Int32 {
        guard var source = args.size("source") else { throw UsageError(message: "plan needs --source WxH") }
        guard args.positionals.isEmpty else { throw UsageError(message: "plan reads no files; unexpected '\(args.positionals[0])'") }
        if let o = args.int("orientation") {
            // Invariant: the option table accepts 1...8 only, every one an Orientation.
            let orientation = Orientation(rawValue: o)!
            if orientation.swapsAxes { source = Size(width: source.height, height: source.width) }
        }
        guard args.sizes("size").count <= 1 else { throw UsageError(message: "plan takes one --size") }
        guard case .fill(let size, let from, let origin, let gravity, let focus) = try fillOperations(args)[0] else { return 2 }
        if gravity == .entropy {
            throw UsageError(message: "--gravity entropy needs the image's pixels, and plan reads none; run fill on the image")
        }
        do {
            let rect = try Scaling.plan(source: source, target: size, from: from, origin: origin, gravity: gravity, focus: focus)
            let scale = Double(rect.width) / Double(size.width)
            Console.out("source \(source), target \(size), scale \(format(scale, digits: 4))")
            Console.out(rect.description)
            return 0
        } catch {
            Console.err("imgscale: plan: \(error)")
            return 1
        }
    }
}
