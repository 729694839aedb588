// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "imgscale",
    products: [
        .library(name: "ImageScaler", targets: ["ImageScaler"]),
        .executable(name: "imgscale", targets: ["imgscale"]),
    ],
    targets: [
        .target(name: "CPNGShim", linkerSettings: [.linkedLibrary("png")]),
        .target(name: "CJPEGShim", linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "ImageScaler", dependencies: ["CPNGShim", "CJPEGShim"]),
        .executableTarget(name: "imgscale", dependencies: ["ImageScaler"]),
        .testTarget(name: "ImageScalerTests", dependencies: ["ImageScaler"]),
        .testTarget(name: "CLITests", dependencies: ["imgscale"]),
    ],
    swiftLanguageModes: [.v5]
)
