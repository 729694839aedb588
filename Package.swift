// swift-tools-version:6.0
import Foundation
import PackageDescription

// The sanitized test builds (scripts/build-asan) compile the Swift that does the pixel
// arithmetic optimised: under -Onone and ASan it ran ten times slower than the C it
// drives, and the sanitizers check the memory either way. -Osize: as fast there as -O,
// for 24 CPU-s less of build.
let optimisedArithmetic: [SwiftSetting] = Context.environment["IMGSCALE_OPTIMISE_ARITHMETIC"] == "1" ? [.unsafeFlags(["-Osize"])] : []

// scripts/test builds the tests in release, beside the optimised library (one compile
// of it for the binary users get and the tests both): the test code itself at -Onone
// (optimised, it doubled the build for nothing the tests need), and imgscale linked
// against the shared Swift runtime, as XCTest is. scripts/install then relinks imgscale
// statically in the same folder, without compiling anything again.
let releaseTests = Context.environment["IMGSCALE_RELEASE_TESTS"] == "1"

// The C++ library the Swift runtime calls (25 functions: strings, hash tables, new and
// delete) linked statically too, where gcc's libstdc++.a is installed: loading and
// starting the shared libstdc++ was 0.8 ms of every run, a quarter of `imgscale --version`
// and more than the whole gap to `djpeg` on a thumbnail. scripts/static-libstdc++ holds
// a linker script that the -lstdc++ of -static-stdlib finds first.
let staticCXX: [String] = {
    let gcc = "/usr/lib/gcc"
    let found = ((try? FileManager.default.contentsOfDirectory(atPath: gcc)) ?? []).contains { target in
        ((try? FileManager.default.contentsOfDirectory(atPath: "\(gcc)/\(target)")) ?? []).contains {
            FileManager.default.fileExists(atPath: "\(gcc)/\(target)/\($0)/libstdc++.a")
        }
    }
    return found ? ["-L", Context.packageDirectory + "/scripts/static-libstdc++"] : []
}()
let testCode: [SwiftSetting] = releaseTests ? [.unsafeFlags(["-Onone"])] : []

let package = Package(
    name: "imgscale",
    products: [
        .library(name: "ImageScaler", targets: ["ImageScaler"]),
        .library(name: "ImageCompare", targets: ["ImageCompare"]),
        .library(name: "ImageScalerTesting", targets: ["ImageScalerTesting"]),
        .executable(name: "imgscale", targets: ["imgscale"]),
    ],
    targets: [
        .target(name: "CPNGShim", linkerSettings: [.linkedLibrary("png"), .linkedLibrary("z"), .linkedLibrary("isal")]),
        // imgscale's own JPEG entropy decoders, written against libjpeg-turbo 2.x's private
        // decoder interface: built only for those versions (jpeg_reader.h), and off at
        // run time with IMGSCALE_JPEG_DECODER=libjpeg.
        .target(name: "CJPEGOwnDecoders", linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "CJPEGShim", dependencies: ["CJPEGOwnDecoders"], linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "CLCMSShim", linkerSettings: [.linkedLibrary("lcms2")]),
        // libheif is opened on first use (heif_api.c), not linked: see why there.
        .target(name: "CHEIFShim"),
        // librsvg is opened on first use too (svg_shim.h says why), so building needs no
        // librsvg or cairo headers.
        .target(name: "CSVGShim", linkerSettings: [.linkedLibrary("z")]),
        .target(name: "CAVIFShim"),
        .target(name: "CGIFShim", linkerSettings: [.linkedLibrary("gif"), .linkedLibrary("cgif")]),
        // libtiff is opened on first use (tiff_api.c), as libheif is.
        .target(name: "CTIFFShim"),
        // libjxl too (jxl_api.c).
        .target(name: "CJXLShim"),
        .target(name: "CWebPShim", linkerSettings: [.linkedLibrary("webp"), .linkedLibrary("webpdemux"), .linkedLibrary("webpmux")]),
        .target(name: "CResample"),
        // SHA-256 for --report's manifest and --if-changed: libcrypto's where it is
        // installed (opened on first use), a portable one otherwise.
        .target(name: "CHashShim"),
        // main's argc and argv, which the Swift runtime cannot read without /proc.
        .target(name: "CArgumentsShim"),
        .target(name: "ImageScaler", dependencies: ["CPNGShim", "CJPEGShim", "CJPEGOwnDecoders", "CLCMSShim", "CWebPShim", "CGIFShim", "CTIFFShim", "CJXLShim", "CHEIFShim", "CAVIFShim", "CSVGShim", "CResample"],
                swiftSettings: optimisedArithmetic),
        // Linking the Swift runtime statically saves ~3 ms of dynamic loading per run,
        // which is most of `imgscale --version` and a tenth of a one-photo thumbnail.
        // Release only: the debug test bundle links Foundation, which cannot link statically.
        // Comparing two images (tolerance, pixelmatch's perceptual rule, PSNR) and
        // picturing their difference: the golden-test toolkit, apart from the resizer.
        .target(name: "ImageCompare", dependencies: ["ImageScaler"], swiftSettings: optimisedArithmetic),
        // Golden-image assertions for XCTest and Swift Testing suites.
        .target(name: "ImageScalerTesting", dependencies: ["ImageScaler", "ImageCompare"]),
        .executableTarget(name: "imgscale", dependencies: ["ImageScaler", "ImageCompare", "CHashShim", "CArgumentsShim"],
                          linkerSettings: releaseTests ? [] : [.unsafeFlags(["-static-stdlib"] + staticCXX, .when(configuration: .release))]),
        // The library example, built with the package so it costs no second compile of
        // ImageScaler; another package name keeps `package` declarations out of its reach,
        // so it sees the public API alone, as Examples/*/Package.swift's users do.
        .executableTarget(name: "thumbnail", dependencies: ["ImageScaler"], path: "Examples/thumbnail/Sources/thumbnail"),
        .executableTarget(name: "srcset", dependencies: ["ImageScaler"], path: "Examples/srcset/Sources/srcset"),
        // The resampler timed in process, without decode or encode (scripts/bench --job resample).
        .executableTarget(name: "resample-kernel", dependencies: ["ImageScaler"], path: "Benchmarks/resample-kernel"),
        // What the test targets share to reach their outside references (python3 and Pillow).
        .target(name: "TestReferences", path: "Tests/TestReferences", swiftSettings: testCode),
        .testTarget(name: "ImageScalerTests", dependencies: ["ImageScaler", "ImageCompare", "CResample", "CJPEGShim", "CJPEGOwnDecoders", "CHashShim", "TestReferences"], swiftSettings: testCode),
        .testTarget(name: "CLITests", dependencies: ["imgscale", "ImageScaler", "ImageCompare", "ImageScalerTesting", "TestReferences"], swiftSettings: testCode),
    ],
    swiftLanguageModes: [.v6]
)
