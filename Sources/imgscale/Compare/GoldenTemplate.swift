#if canImport(Glibc)
import Glibc
#endif
import ImageScaler

/// `--goldens-template '{dir}/{platform}/{path}'`: where a platform's own golden lives, for
/// suites whose renders differ by platform (fonts, antialiasing). `{dir}` is the goldens'
/// directory (a pair's golden's own, or the directory compared), `{path}` the golden's
/// name (its path under that directory), `{platform}` `--platform` or this system's
/// (`linux`, `darwin`: what Python's `sys.platform` and Node's `process.platform` say). A
/// platform golden that is not there falls back to the plain one only with `--fallback`,
/// and the JSON says which was compared.
struct GoldenTemplate {
    let template: String
    let platform: String
    let fallback: Bool

    static var systemPlatform: String {
        var u = utsname()
        uname(&u)
        let name = withUnsafeBytes(of: u.sysname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }.lowercased()
        return name == "darwin" ? "darwin" : name
    }

    /// The options, checked; nil without a template.
    static func parse(_ args: ParsedArguments) throws -> GoldenTemplate? {
        guard let template = args.value("goldens-template") else {
            for option in ["platform", "fallback"] where args.has(option) {
                throw UsageError(message: "--\(option) applies to --goldens-template, which is not given")
            }
            return nil
        }
        var rest = template
        for field in ["{dir}", "{platform}", "{path}"] { rest = rest.replacing(field, with: "") }
        guard template.contains("{path}"), !rest.contains("{"), !rest.contains("}") else {
            throw UsageError(message: "--goldens-template takes {dir}, {platform} and {path} (which it must name), like '{dir}/{platform}/{path}', not '\(template)'")
        }
        let platform = args.value("platform") ?? systemPlatform
        guard !platform.isEmpty, !platform.contains("/"), platform != ".", platform != ".." else {
            throw UsageError(message: "--platform is a name like linux or darwin, not '\(platform)'")
        }
        return GoldenTemplate(template: template, platform: platform, fallback: args.has("fallback"))
    }

    /// The golden to compare for the plain golden `path` under `dir`, and which it is:
    /// "platform", or "fallback" (the plain one, the platform's missing), or "missing"
    /// (the platform's, which is not there).
    func resolve(dir: String, path: String) -> (golden: String, kind: String) {
        let own = template.replacing("{dir}", with: dir.isEmpty ? "." : dir)
            .replacing("{platform}", with: platform).replacing("{path}", with: path)
        var st = stat()
        if FileName.withCString(own, { stat($0, &st) }) == 0 { return (own, "platform") }
        let plain = (dir.isEmpty ? "" : dir.hasSuffix("/") ? dir : dir + "/") + path
        if fallback, FileName.withCString(plain, { stat($0, &st) }) == 0 { return (plain, "fallback") }
        return (own, "missing")
    }

    /// A pair's golden path split as the template sees it.
    func resolve(pair expected: String) -> (golden: String, kind: String) {
        let (dir, name) = ImageFile.split(expected)
        return resolve(dir: dir.hasSuffix("/") ? String(dir.dropLast()) : dir, path: name)
    }

    /// `json` (an object) with which golden was compared, first.
    func annotate(_ json: String, kind: String) -> String {
        guard json.hasPrefix("{") else { return json }
        return "{\"golden\":\(JSON.quote(kind)),\"platform\":\(JSON.quote(platform))," + json.dropFirst()
    }
}
