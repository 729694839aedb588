import XCTest
import Foundation
import ImageScaler
import ImageScalerTesting

/// Every case of TestImages/goldens/cases.tsv, through the library and through the
/// CLI, compared with the stored golden at tolerance 0 through `ImageScalerTesting`.
/// The resampler is fixed point, so goldens match exactly on any machine.
final class GoldenTests: XCTestCase {
    struct Case {
        let name: String
        let input: String
        let args: [String]
    }

    static let dir = CLI.testImages + "/goldens"

    static func cases() -> [Case] {
        let text = String(decoding: CLI.bytes(dir + "/cases.tsv")!, as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let cols = line.split(separator: "\t").map(String.init)
            guard cols.count == 3 else { return nil }
            return Case(name: cols[0], input: cols[1], args: cols[2].split(separator: " ").map(String.init))
        }
    }

    /// `imgscale plan` prints each case's whole plan (decode, stages, encoder, threads,
    /// memory) as TestImages/goldens/plans.txt holds it (scripts/regenerate-goldens
    /// writes it). The thread count, and with it the split, follows the cores: pinned
    /// on two or more.
    func testEveryCasesPlanIsAsPinned() throws {
        guard ProcessInfo.processInfo.activeProcessorCount >= 2 else {
            throw XCTSkip("SKIPPED: the pinned plans are those of a machine with two or more cores")
        }
        let pinned = String(decoding: try XCTUnwrap(CLI.bytes(Self.dir + "/plans.txt")), as: UTF8.self)
        var printed = ""
        for c in Self.cases() {
            let r = CLI.run(["plan"] + c.args + [c.input, "-o", "planned/\(c.name).png"], cwd: CLI.testImages)
            XCTAssertEqual(r.status, 0, "\(c.name): \(r.stderr)")
            printed += r.stdout
        }
        let (a, b) = (pinned.split(separator: "\n", omittingEmptySubsequences: false), printed.split(separator: "\n", omittingEmptySubsequences: false))
        for (i, (x, y)) in zip(a, b).enumerated() where x != y {
            XCTFail("plans.txt line \(i + 1): pinned '\(x)', printed '\(y)'")
            break
        }
        XCTAssertEqual(a.count, b.count, "lines")
    }

    /// Every golden is tied to an outside reference: each case's PNG is Pillow's resize of
    /// the same input, with the source rect `imgscale plan` prints (after Pillow's `draft`
    /// for a JPEG decoded at 1/N, and 16-bit samples rounded to 8 as v·255/65535), pixel
    /// for pixel; a file in the folder that is no case is in `own`, with why no outside
    /// tool makes it. A golden regenerated wrong, or added without a reference, fails here.
    func testEveryGoldenIsPillowsOutputOrListedAsOurOwn() throws {
        let own = ["cases.tsv": "the cases' list, not an image",
                   "plans.txt": "imgscale plan's own text (paths, stages, memory): no other tool prints a plan"]
        let files = CLI.files(Self.dir).filter { !$0.hasPrefix(".") && !$0.hasPrefix("__") }
        let cases = Self.cases().map(\.name)
        for f in files where own[f] == nil {
            XCTAssertTrue(cases.contains(String(f.dropLast(4))) && f.hasSuffix(".png"), "\(f) is neither a case nor listed as imgscale's own")
        }
        try python("""
            import os, re, subprocess, math
            import numpy as np
            from PIL import Image
            exe, root = os.environ['IMGSCALE'], '\(CLI.testImages)'
            rows = [l.rstrip('\\n').split('\\t') for l in open(root + '/goldens/cases.tsv') if l.strip() and not l.startswith('#')]
            assert len(rows) == \(cases.count), len(rows)
            bad = []
            for name, src, args in rows:
                plan = subprocess.run([exe, 'plan'] + args.split() + [root + '/' + src, '-o', 'x.png'], capture_output=True, text=True, check=True).stdout
                im = Image.open(root + '/' + src)
                n = int(re.search(r'decode: 1/(\\d+)', plan).group(1))
                if n > 1:
                    assert im.format == 'JPEG', (name, plan)
                    im.draft(im.mode, (math.ceil(im.size[0] / n), 1))
                    assert im.size[0] == math.ceil(Image.open(root + '/' + src).size[0] / n), (name, im.size)
                if im.mode == 'P':
                    im = im.convert('RGBA' if 'transparency' in im.info else 'RGB')
                if im.mode == 'I;16':
                    a = np.asarray(im).astype(np.int64)
                    im = Image.fromarray(((a * 255 + 32767) // 65535).astype(np.uint8), 'L')
                golden = Image.open(root + '/goldens/' + name + '.png')
                m = re.search(r'resample (\\w+) from ([0-9.]+),([0-9.]+),([0-9.]+),([0-9.]+) to (\\d+)x(\\d+)', plan)
                c = re.search(r'cut (\\d+),(\\d+),(\\d+),(\\d+)', plan)
                if m:
                    x, y, w, h = map(float, m.group(2, 3, 4, 5))
                    out = im.resize((int(m.group(6)), int(m.group(7))), getattr(Image.Resampling, m.group(1).upper()), box=(x, y, x + w, y + h))
                elif c:
                    x, y, w, h = map(int, c.groups())
                    out = im.crop((x, y, x + w, y + h))
                else:
                    out = im
                if out.mode != golden.mode:
                    out = out.convert(golden.mode)
                a, b = np.asarray(out), np.asarray(golden)
                if a.shape != b.shape or (a != b).any():
                    bad.append((name, a.shape, b.shape))
            assert not bad, bad
            """, in: CLI.tempDir())
    }

    func testCasesAreListed() {
        XCTAssertGreaterThanOrEqual(Self.cases().count, 28)
    }

    func testGoldensThroughTheCLI() throws {
        let tmp = CLI.tempDir()
        for c in Self.cases() {
            let out = tmp + "/" + c.name + ".png"
            let r = CLI.run(c.args + [CLI.testImages + "/" + c.input, "-o", out])
            XCTAssertEqual(r.status, 0, "\(c.name): \(r.stderr)")
            try check(c.name, actual: try ImageCodec.decode(try ImageFile.read(out)).0, via: "cli")
        }
    }

    /// The library's `render`, the entry point the CLI runs, with one thread, with two
    /// (decode ahead, split JPEG regions) and with two but no split: the same bytes
    /// every way, whatever the machine's core count.
    func testGoldensThroughTheLibrary() throws {
        for c in Self.cases() {
            let data = try ImageFile.read(CLI.testImages + "/" + c.input)
            let filter = c.args.firstIndex(of: "--filter").flatMap { ResampleFilter(rawValue: c.args[$0 + 1]) } ?? .bilinear
            let outputs = try Self.threadings.map { threading -> [UInt8] in
                var settings = threading
                settings.filter = filter
                return try operation(c.args).render(data, as: .png, decode: DecodeOptions(), settings: settings).bytes
            }
            XCTAssertEqual(Set(outputs).count, 1, "\(c.name): the same bytes at any thread count")
            try check(c.name, actual: try ImageCodec.decode(outputs[0]).0, via: "library")
        }
    }

    /// The async variant, as a server would call it, gives the same bytes.
    func testAsyncRenderGivesTheSameBytes() async throws {
        let data = try ImageFile.read(CLI.testImages + "/scene-640x427.jpg")
        let fill = ImageOperation.fill(Size(width: 96, height: 64), from: nil, origin: .topLeft, gravity: .centre)
        let direct = try Self.renderNow(fill, data)
        let awaited: RenderResult = try await fill.render(data, as: .jpeg)
        XCTAssertEqual(direct.bytes, awaited.bytes)
        XCTAssertEqual(awaited.size, Size(width: 96, height: 64))
    }

    /// Cancelling the task that awaits an async render stops the decode between row
    /// chunks: it ends with `CancellationError` long before the render would have.
    func testCancellingTheAsyncRenderStopsIt() async throws {
        var pixels = [UInt8](repeating: 0, count: 2400 * 1600 * 3)
        var x: UInt32 = 12345
        for i in pixels.indices {
            x = x &* 1_103_515_245 &+ 12345
            pixels[i] = UInt8(truncatingIfNeeded: x >> 16)
        }
        var fast = EncodeOptions()
        fast.compression = 0
        let data = try ImageCodec.encode(try PixelBuffer(width: 2400, height: 1600, channels: 3, pixels: pixels), as: .png, options: fast)
        let convert = ImageOperation.convert
        // Midway, at a known chunk: a whole render looks at the flag many times; one whose
        // flag sets itself at the third look stops there, with CancellationError, and looks
        // no more (no timing decides it).
        let counting = CancellationFlag()
        var decode = DecodeOptions()
        decode.cancellation = counting
        _ = try convert.render(data, as: .png, decode: decode, encode: EncodeOptions(), settings: RenderSettings())
        XCTAssertGreaterThan(counting.checks, 6, "a whole render looks between its chunks")
        let third = CancellationFlag(setAtCheck: 3)
        decode.cancellation = third
        XCTAssertThrowsError(try convert.render(data, as: .png, decode: decode, encode: EncodeOptions(), settings: RenderSettings())) {
            XCTAssertTrue($0 is CancellationError, "\($0)")
        }
        XCTAssertEqual(third.checks, 3, "stopped at the look that saw the flag")
        // The task's cancellation reaches the flag: a task cancelled before its render
        // starts (it waits for the test to open a gate) stops at the first look.
        let (gate, open) = AsyncStream<Void>.makeStream()
        let task = Task {
            for await _ in gate { break }
            return try await convert.render(data, as: .png)
        }
        task.cancel()
        open.yield()
        do {
            _ = try await task.value
            XCTFail("a cancelled render finished")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
    }

    /// The synchronous overload, which an async context would not pick.
    static func renderNow(_ op: ImageOperation, _ data: [UInt8]) throws -> RenderResult {
        try op.render(data, as: .jpeg)
    }

    /// One thread; two; two without splitting JPEG regions.
    static let threadings: [RenderSettings] = [(1, true), (2, true), (2, false)].map { threads, split in
        var s = RenderSettings()
        s.threads = threads
        s.splitRegions = split
        return s
    }

    /// The restart-marker JPEGs, where two threads split the region in halves: JPEG and
    /// PNG outputs of several shapes are the same bytes with one thread or two.
    func testRestartJPEGsGiveTheSameBytesAtAnyThreadCount() throws {
        let operations: [ImageOperation] = [
            .fill(Size(width: 64, height: 64), from: nil, origin: .topLeft, gravity: .centre),
            .fill(Size(width: 300, height: 100), from: nil, origin: .topLeft, gravity: .north),
            .fit(Size(width: 200, height: 200)),
            .crop(Rect(x: 10, y: 100, width: 300, height: 200), origin: .topLeft),
        ]
        for name in ["restart-420-4mcu-630x427", "restart-422-row-640x427", "restart-444-wrap-640x427", "restart-gray-4mcu-640x427"] {
            let data = try ImageFile.read(CLI.testImages + "/\(name).jpg")
            for op in operations {
                for format in [ImageFormat.jpeg, .png] {
                    let outputs = try Self.threadings.map { try op.render(data, as: format, decode: DecodeOptions(), settings: $0).bytes }
                    XCTAssertEqual(Set(outputs).count, 1, "\(name) \(op) \(format)")
                }
            }
            // Each filter reaches across the split by its own window (nearest skips rows).
            for filter in ResampleFilter.allCases {
                for op in [ImageOperation.fit(Size(width: 97, height: 1000)), .fill(Size(width: 50, height: 300), from: nil, origin: .topLeft, gravity: .centre)] {
                    let outputs = try Self.threadings.map { settings -> [UInt8] in
                        var settings = settings
                        settings.filter = filter
                        return try op.render(data, as: .png, decode: DecodeOptions(), settings: settings).bytes
                    }
                    XCTAssertEqual(Set(outputs).count, 1, "\(name) \(op) \(filter)")
                }
            }
        }
    }

    /// Through `ImageScalerTesting`, the same check a user's suite runs (tolerance 0;
    /// a failure writes the actual image and an expected | actual | diff picture into
    /// TestImages/goldens/__Failures__/), plus the channel count.
    func check(_ name: String, actual: PixelBuffer, via: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = try ImageCodec.decode(try ImageFile.read(Self.dir + "/" + name + ".png")).0
        XCTAssertEqual(actual.channels, expected.channels, "golden \(name) (\(via)): channels", file: file, line: line)
        assertImageMatchesGolden(actual, named: name, directory: Self.dir, file: file, line: line)
    }

    /// The library call a case's arguments stand for.
    func operation(_ args: [String]) throws -> ImageOperation {
        func value(_ name: String) -> String? {
            args.firstIndex(of: "--" + name).map { args[$0 + 1] }
        }
        func size(_ text: String) -> Size {
            let p = text.split(separator: "x").map { Int($0)! }
            return Size(width: p[0], height: p[1])
        }
        func rect(_ text: String) -> Rect {
            let p = text.split(separator: ",").map { Int($0)! }
            return Rect(x: p[0], y: p[1], width: p[2], height: p[3])
        }
        let origin = value("origin").flatMap(CoordinateOrigin.init(rawValue:)) ?? .topLeft
        switch args[0] {
        case "fill":
            return .fill(size(value("size")!), from: value("from").map(rect), origin: origin,
                         gravity: value("gravity").flatMap(Gravity.init(rawValue:)) ?? .centre)
        case "fit": return .fit(size(value("size")!))
        case "crop": return .crop(rect(value("rect")!), origin: origin)
        default: return .convert
        }
    }
}
