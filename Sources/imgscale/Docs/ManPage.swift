import ImageScaler

/// `imgscale.1`, written from the command table that `--help` is written from, so the
/// two cannot drift: every command, its usage, options and examples. roff, in the
/// conventional sections (NAME, SYNOPSIS, DESCRIPTION, COMMANDS, OPTIONS, EXIT STATUS,
/// EXAMPLES, SEE ALSO); `imgscale help --man` prints it and `scripts/install` installs it.
enum ManPage {
    static func render(date: String = "2026-11-30") -> String {
        var out: [String] = [
            ".TH IMGSCALE 1 \(date) \"imgscale \(Commands.version)\" \"User Commands\"",
            ".SH NAME",
            "imgscale \\- resize, crop, convert and compare images, deterministically",
            ".SH SYNOPSIS",
            ".B imgscale",
            ".I command",
            ".RI [ options ]",
            ".RI [ input ...]",
            ".br",
            ".B imgscale",
            ".BR \\-\\-version | \\-\\-help",
            ".SH DESCRIPTION",
            text("imgscale resizes, crops and converts images and compares them with goldens. It reads "
                 + "\(ImageFormat.names(ImageFormat.allCases)) and writes \(ImageFormat.names(ImageFormat.writable)). Outputs are byte-identical on every run, "
                 + "machine and thread count; they appear atomically and complete; every input is checked against the pixel "
                 + "limit and the memory budget from its header before any pixel is decoded."),
            ".PP",
            text("Options may stand before or after the inputs (--size 64x64, --size=64x64, -j2); -- ends the options, "
                 + "and - means standard input (or standard output for -o)."),
            ".SH COMMANDS",
        ]
        for c in Commands.all {
            out += [".SS \(c.name)", text(c.summary), ".PP", ".nf", text(c.usage), ".fi"]
            if !c.details.isEmpty {
                out += [".PP"]
                for paragraph in c.details.split(separator: "\n\n", omittingEmptySubsequences: true) {
                    out += [text(paragraph.split(separator: "\n").joined(separator: " ")), ".PP"]
                }
                out.removeLast()
            }
        }
        out += [".SH OPTIONS", text("Each option is described once, with the commands that take it.")]
        for (o, commands) in sharedOptions() + [(OptionSpec("help", short: "h", "show the command's help"), ["every command"])] {
            var tag = o.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
            tag += "\\fB" + dashes("--" + o.long) + "\\fR"
            if let v = o.value { tag += " \\fI" + escape(v) + "\\fR" }
            out += [".TP", tag, text(o.help), ".br", text("(" + commands.joined(separator: ", ") + ")")]
        }
        out += [".SH EXIT STATUS",
                ".TP", "0", text("Success: every input was done (or skipped by --if-newer); compare: the images match."),
                ".TP", "1", text("An input failed (the others were still done, and it has no output); compare: the images differ, or a file is missing or extra."),
                ".TP", "2", text("A usage error, reported before any file is read or written; compare: an image cannot be read."),
                ".SH ENVIRONMENT",
                ".TP", "IMGSCALE_JPEG_DECODER=libjpeg",
                text("Decode JPEG entropy data with libjpeg alone, not imgscale's own faster decoders: libjpeg's pixels "
                     + "(which the own decoders are tested to equal) and libjpeg's messages only, for a doubt or a bug "
                     + "report. imgscale --version says when it is in effect."),
                ".SH EXAMPLES"]
        for (i, e) in Commands.all.flatMap(\.examples).enumerated() {
            // The first follows the heading itself: a paragraph break there is an error.
            out += (i == 0 ? [] : [".PP"]) + [".nf", text(e), ".fi"]
        }
        out += [".SH SEE ALSO",
                ".BR vipsthumbnail (1),",
                ".BR convert (1),",
                ".BR cwebp (1),",
                ".BR heif\\-convert (1)"]
        return out.joined(separator: "\n") + "\n"
    }

    /// Every option of every command once, in the order first met, with the commands
    /// that take it. An option whose meaning differs between commands (the same name,
    /// another value or help) is listed once per meaning.
    static func sharedOptions() -> [(OptionSpec, [String])] {
        var found: [(OptionSpec, [String])] = []
        for c in Commands.all {
            for o in c.options {
                if let i = found.firstIndex(where: { $0.0.long == o.long && $0.0.short == o.short && $0.0.value == o.value && $0.0.help == o.help }) {
                    found[i].1.append(c.name)
                } else {
                    found.append((o, [c.name]))
                }
            }
        }
        return found
    }

    /// Running text as roff lines of at most 78 bytes (roff joins them again when it
    /// fills): its escape character escaped, hyphens of options made minus signs, and
    /// a line's leading dot or quote kept from reading as a request.
    static func text<S: StringProtocol>(_ s: S) -> String {
        var lines: [String] = []
        var current = ""
        for word in String(s).split(separator: " ", omittingEmptySubsequences: true) {
            let piece = dashes(escape(String(word)))
            if !current.isEmpty && current.utf8.count + 1 + piece.utf8.count > 78 {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + piece
        }
        lines.append(current)
        return lines.map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : $0 }.joined(separator: "\n")
    }

    private static func escape(_ s: String) -> String {
        s.replacingBackslashes()
    }

    /// `--size` as roff minus signs, so it can be searched for and copied.
    private static func dashes(_ s: String) -> String {
        var out = ""
        var previous: Character = " "
        for c in s {
            // A hyphen that starts an option (after a space, a dash or an opening
            // bracket) is a minus sign; one inside a word stays a hyphen.
            if c == "-" && (previous == " " || previous == "-" || previous == "(" || previous == "[" || previous == "|") {
                out += "\\-"
            } else {
                out.append(c)
            }
            previous = c
        }
        return out
    }
}

private extension String {
    func replacingBackslashes() -> String {
        var out = ""
        for c in self { out += c == "\\" ? "\\e" : String(c) }
        return out
    }
}
