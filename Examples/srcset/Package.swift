// swift-tools-version:6.0
// A build step outside the project, using only ImageScaler's public API:
// `swift run srcset FILE BYTES` writes a srcset of WebP files, each within BYTES.
import PackageDescription

let package = Package(
    name: "srcset",
    dependencies: [.package(name: "imgscale", path: "../..")],
    targets: [
        .executableTarget(name: "srcset", dependencies: [.product(name: "ImageScaler", package: "imgscale")]),
    ]
)
