/// "Did you mean ...?" for a mistyped command or option: the known name closest by
/// edit distance (insertions, deletions, substitutions and swaps of neighbours), if it
/// is close enough to be the one meant - at most 2 edits, and fewer than half the word.
enum Suggestion {
    static func closest(to word: String, among names: [String]) -> String? {
        let limit = min(2, max(1, word.count / 2))
        var best: (String, Int)? = nil
        for name in names {
            let d = distance(Array(word), Array(name))
            if d <= limit, d < (best?.1 ?? Int.max) { best = (name, d) }
        }
        return best?.0
    }

    /// ", did you mean 'X'?" or nothing.
    static func hint(_ word: String, among names: [String], prefix: String = "") -> String {
        closest(to: word, among: names).map { "; did you mean '\(prefix)\($0)'?" } ?? ""
    }

    /// Options of vipsthumbnail, sharp and ImageMagick that imgscale spells otherwise,
    /// answered before the nearest spelling (`--smart` is nearest to `--shard`).
    static let peerOptions: [String: String] = [
        "smartcrop": "--gravity entropy", "smart": "--gravity entropy", "attention": "--gravity entropy",
        "crop": "the fill command, which crops to --size (or crop --rect X,Y,W,H)",
        "resize": "fit --size WxH, or fill to crop", "thumbnail": "fill --size WxH, or fit",
        "strip": "nothing: metadata is dropped unless --keep-metadata",
        "auto-orient": "nothing: the EXIF orientation is applied unless --no-auto-orient",
        "rotate": "nothing: the EXIF orientation is applied unless --no-auto-orient",
        "eprofile": "--export-profile", "delete": "nothing: inputs are never changed",
    ]

    /// "unknown option" words: a peer's option's equivalent, else the nearest spelling.
    static func option(_ name: String, among names: [String]) -> String {
        if let meant = peerOptions[name] { return "; imgscale says \(meant)" }
        return hint(name, among: names, prefix: "--")
    }

    /// Optimal string alignment distance.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
