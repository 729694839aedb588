#if canImport(Glibc)
import Glibc
#endif
import CArgumentsShim
import ImageScaler

/// Exit statuses: 0 success, 1 an input failed (the rest still done), 2 usage error.
func main(_ argv: [String]) -> Int32 {
    // A full disk or `ulimit -f` must fail one write with an error, not kill the
    // batch; a closed stdout pipe likewise.
    signal(SIGXFSZ, SIG_IGN)
    signal(SIGPIPE, SIG_IGN)
    GlibcMalloc.keepBuffersInTheHeap()

    let topUsage = "usage: imgscale COMMAND [OPTIONS] INPUT...   (imgscale --help for commands)"
    guard let first = argv.first else {
        Console.err("imgscale: no command given")
        Console.err(topUsage)
        return 2
    }
    switch first {
    case "--version", "-V", "version":
        Console.out("imgscale \(Commands.version)")
        Console.out(LibraryVersions.all.map { "\($0.name) \($0.version)" }.joined(separator: ", "))
        return 0
    case "--help", "-h", "help":
        // Generated documentation, for scripts/install: the man page and completions.
        if argv.count == 2 && argv[1] == "--man" {
            Console.write(1, ManPage.render())
            return 0
        }
        if argv.count == 3 && argv[1] == "--completion" {
            guard let shell = Completions.Shell(rawValue: argv[2]) else {
                Console.err("imgscale: --completion takes bash, zsh or fish, not '\(FileName.display(argv[2]))'")
                return 2
            }
            Console.write(1, Completions.render(shell))
            return 0
        }
        if argv.count > 1, let c = Commands.all.first(where: { $0.name == argv[1] }) {
            Console.out(c.help)
        } else {
            Console.out(topHelp())
        }
        return 0
    default:
        break
    }
    guard let found = Commands.all.first(where: { $0.name == first }) else {
        Console.err("imgscale: unknown command '\(FileName.display(first))'" + Suggestion.hint(first, among: Commands.all.map(\.name)))
        Console.err(topUsage)
        return 2
    }
    var rest = Array(argv.dropFirst())
    var command = found
    var extra: [OptionSpec] = []
    // `plan fill ...`: the fill command line, parsed as fill parses it, planned instead of run.
    if command.name == "plan", let sub = rest.first, Commands.plannable.contains(sub),
       let inner = Commands.all.first(where: { $0.name == sub }) {
        command = inner
        rest = ["--" + Commands.planMarker + "=" + sub] + rest.dropFirst()
        extra = Commands.planOptions
    }
    do {
        let parser = ArgumentParser(options: command.options + extra + [OptionSpec("help", short: "h", "show this help")])
        let args = try parser.parse(rest)
        if args.has("help") {
            Console.out(command.help)
            return 0
        }
        return try command.run(args)
    } catch let error as UsageError {
        Console.err("imgscale \(command.name): \(error.message)")
        Console.err("usage: \(command.usage)")
        return 2
    } catch {
        Console.err("imgscale \(command.name): \(error)")
        return 1
    }
}

func topHelp() -> String {
    var lines = [
        "imgscale \(Commands.version): resize and crop \(ImageFormat.names(ImageFormat.allCases)) images, deterministically.",
        "",
        "usage: imgscale COMMAND [OPTIONS] INPUT...",
        "",
        "commands:",
    ]
    let width = Commands.all.map(\.name.count).max()! + 2
    for c in Commands.all {
        lines.append("  " + c.name + String(repeating: " ", count: width - c.name.count) + c.summary)
        lines.append(String(repeating: " ", count: width + 2) + "e.g. " + c.examples[0])
    }
    lines += ["",
              "Run 'imgscale COMMAND --help' for a command's options.",
              "'imgscale help --man' prints the man page (man -l); 'imgscale help --completion bash|zsh|fish' a completion script.",
              "Exit status: 0 success, 1 an input failed (others still done), 2 usage error."]
    return lines.joined(separator: "\n")
}

// argv as bytes: CommandLine.arguments would replace a name's non-UTF-8 bytes with
// U+FFFD, and then open a different file. The C runtime's own argv, where it was
// captured: Swift's comes from /proc/self/cmdline, empty in a chroot without /proc.
let (argc, rawArgv) = imgscale_argc() > 0 ? (Int(imgscale_argc()), imgscale_argv()!) : (Int(CommandLine.argc), CommandLine.unsafeArgv)
let argv = (1..<max(argc, 1)).map { i -> String in
    // Invariant: argv[1 ..< argc] are never NULL.
    let p = rawArgv[i]!
    return FileName.decode(UnsafeRawBufferPointer(start: p, count: strlen(p)))
}
exit(main(argv))
