// swift-tools-version:6.0
// A program outside the project that uses only ImageScaler's public API, as a server or
// build tool would: `swift run thumbnail SIZE FILE...` writes FILE-thumb.jpg beside each.
import PackageDescription

let package = Package(
    name: "thumbnail",
    dependencies: [.package(name: "imgscale", path: "../..")],
    targets: [
        .executableTarget(name: "thumbnail", dependencies: [.product(name: "ImageScaler", package: "imgscale")]),
    ]
)
