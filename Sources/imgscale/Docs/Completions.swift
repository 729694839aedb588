/// Shell completion scripts for bash, zsh and fish, written from the command table:
/// commands, each command's options, the words a choice option takes (`--gravity`,
/// `--filter`, `--format`...), directories for `DIR` values and file names elsewhere.
/// `imgscale help --completion SHELL` prints one; `scripts/install` installs all three.
enum Completions {
    enum Shell: String, CaseIterable { case bash, zsh, fish }

    static func render(_ shell: Shell) -> String {
        switch shell {
        case .bash: return bash()
        case .zsh: return zsh()
        case .fish: return fish()
        }
    }

    private static func options(_ c: CommandSpec) -> [OptionSpec] {
        c.options + [OptionSpec("help", short: "h", "show this help")]
    }

    private static func words(_ o: OptionSpec) -> [String]? {
        if case .choice(let words, _) = o.kind { return words }
        return nil
    }

    /// What a value is, for the shells: a word list, a directory, a file, or free text.
    private enum Value { case none, words([String]), directory, file, text }

    private static func value(_ o: OptionSpec) -> Value {
        guard let name = o.value else { return .none }
        if let w = words(o) { return .words(w) }
        if name == "DIR" { return .directory }
        if ["PATH", "OUTPUT"].contains(name) { return .file }
        return .text
    }

    private static func bash() -> String {
        var s = """
        # bash completion for imgscale, generated from its command table (imgscale help --completion bash)
        _imgscale() {
            local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
            if [ "$COMP_CWORD" -eq 1 ]; then
                COMPREPLY=($(compgen -W "\(Commands.all.map(\.name).joined(separator: " ")) --help --version" -- "$cur"))
                return
            fi
            local opts=""
            case "${COMP_WORDS[1]}" in

        """
        for c in Commands.all {
            let opts = options(c)
            s += "        \(c.name))\n"
            s += "            opts=\"\(opts.map { "--" + $0.long }.joined(separator: " ")) \(opts.compactMap { $0.short.map { "-\($0)" } }.joined(separator: " "))\"\n"
            s += "            case \"$prev\" in\n"
            for o in opts {
                let flags = (["--" + o.long] + (o.short.map { ["-\($0)"] } ?? [])).joined(separator: "|")
                switch value(o) {
                case .none: continue
                case .words(let w): s += "                \(flags)) COMPREPLY=($(compgen -W \"\(w.joined(separator: " "))\" -- \"$cur\")); return ;;\n"
                case .directory: s += "                \(flags)) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
                case .file: s += "                \(flags)) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
                case .text: s += "                \(flags)) return ;;\n"
                }
            }
            s += "            esac ;;\n"
        }
        s += """
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W "$opts" -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
        }
        complete -o filenames -o bashdefault -F _imgscale imgscale

        """
        return s
    }

    /// zsh's `_arguments` specs treat brackets and colons specially.
    private static func zshText(_ s: String) -> String {
        String(s.filter { !"[]:'\\".contains($0) })
    }

    private static func zsh() -> String {
        var s = "#compdef imgscale\n# zsh completion for imgscale, generated from its command table (imgscale help --completion zsh)\n"
        s += "_imgscale() {\n    local -a commands\n    commands=(\n"
        for c in Commands.all { s += "        '\(c.name):\(zshText(c.summary))'\n" }
        s += "    )\n    if (( CURRENT == 2 )); then\n        _describe 'command' commands\n        return\n    fi\n"
        s += "    local cmd=$words[2]\n    shift words\n    (( CURRENT-- ))\n    case $cmd in\n"
        for c in Commands.all {
            s += "        \(c.name))\n            _arguments -s \\\n"
            for o in options(c) {
                let help = zshText(o.help)
                let action: String
                switch value(o) {
                case .none: action = ""
                case .words(let w): action = ":\(zshText(o.value ?? "value")):(\(w.joined(separator: " ")))"
                case .directory: action = ":directory:_files -/"
                case .file: action = ":file:_files"
                case .text: action = ":\(zshText(o.value ?? "value")): "
                }
                s += "                '--\(o.long)[\(help)]\(action)' \\\n"
                if let short = o.short { s += "                '-\(short)[\(help)]\(action)' \\\n" }
            }
            s += "                '*:file:_files' ;;\n"
        }
        s += "    esac\n}\n_imgscale \"$@\"\n"
        return s
    }

    private static func fish() -> String {
        var s = "# fish completion for imgscale, generated from its command table (imgscale help --completion fish)\n"
        s += "complete -c imgscale -f\n"
        for c in Commands.all {
            s += "complete -c imgscale -n '__fish_use_subcommand' -a \(c.name) -d '\(fishText(c.summary))'\n"
        }
        for c in Commands.all {
            for o in options(c) {
                var line = "complete -c imgscale -n '__fish_seen_subcommand_from \(c.name)' -l \(o.long)"
                if let short = o.short { line += " -s \(short)" }
                switch value(o) {
                case .none: break
                case .words(let w): line += " -x -a '\(w.joined(separator: " "))'"
                case .directory: line += " -r -a '(__fish_complete_directories)'"
                case .file: line += " -r -F"
                case .text: line += " -x"
                }
                s += line + " -d '\(fishText(o.help))'\n"
            }
            s += "complete -c imgscale -n '__fish_seen_subcommand_from \(c.name)' -F\n"
        }
        return s
    }

    private static func fishText(_ s: String) -> String {
        String(s.filter { $0 != "'" && $0 != "\\" })
    }
}
