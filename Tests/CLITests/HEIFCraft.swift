import Foundation

/// The tests that craft hostile HEIC and AVIF files use scripts/heifcraft.py, a small
/// HEIF writer: any items, properties, associations and references around a real coded
/// image taken from a file heif-enc made, so each test states the structure it attacks.
enum HEIFCraft {
    /// Copies `heifcraft.py` into `dir` (a test's script does `from heifcraft import *`).
    static func install(in dir: String) throws {
        try FileManager.default.copyItem(atPath: CLI.root + "/scripts/heifcraft.py", toPath: dir + "/heifcraft.py")
    }
}
