import CLCMSShim

/// The libraries imgscale is linked with and their versions, as bug reports need them:
/// each codec's (`CodecDescriptor.libraries`, asked of the library at run time where it
/// can say, from its headers where it cannot or where asking would load a library opened
/// only on first use), then lcms2 for colour.
package enum LibraryVersions {
    public static var all: [(name: String, version: String)] {
        var seen = Set<String>(), list: [(name: String, version: String)] = []
        for library in Registry.codecs.flatMap({ $0.libraries() }) where seen.insert(library.name).inserted {
            list.append(library)
        }
        let lcms = Int(clcms_version())
        return list + [("lcms2", "\(lcms / 1000).\(lcms / 10 % 100)")]
    }

    /// What `--verbose` says once of how the codecs read, when not as usual.
    public static var notes: [String] { Registry.codecs.flatMap { $0.notes() } }
}
