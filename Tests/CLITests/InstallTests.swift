import XCTest
import TestReferences
import Foundation

/// What `scripts/install` put under the prefix `scripts/test` gave it (.build/install-test;
/// a test cannot run it itself, since SwiftPM's build lock is held while tests run): the
/// binary and its --version, the man page (linted, and listing every option --help
/// lists, shared options once), the completions (bash driven for real, zsh and fish
/// parsed), the runtime packages the .deb depends on against ldd, a run without /proc,
/// and --uninstall.
final class InstallTests: XCTestCase {
    static let prefix = CLI.root + "/.build/install-test"

    private func installed() throws -> String {
        guard FileManager.default.isExecutableFile(atPath: Self.prefix + "/bin/imgscale") else {
            throw missingReference("nothing installed in \(Self.prefix); scripts/test runs scripts/install --prefix there first")
        }
        return Self.prefix
    }

    func testBinaryAndVersion() throws {
        let prefix = try installed()
        let r = CLI.sh("'\(prefix)/bin/imgscale' --version")
        XCTAssertEqual(r.status, 0)
        for library in ["libpng", "libjpeg-turbo", "lcms2", "libwebp", "libheif", "giflib"] {
            XCTAssertTrue(r.stdout.contains(library + " "), "\(library) in: \(r.stdout)")
        }
    }

    /// A chroot or minimal container may not mount /proc, where the Swift runtime reads
    /// argv and where an unnamed output is given its name: the installed binary still
    /// reads its arguments and writes its output there. /proc is hidden under a tmpfs
    /// in a mount namespace of its own (root only; skipped, and said so, without it).
    func testRunsWithoutProc() throws {
        let prefix = try installed()
        let dir = CLI.tempDir()
        let probe = CLI.sh("unshare -m sh -c 'mount -t tmpfs none /proc && test ! -e /proc/self'")
        guard probe.status == 0 else { throw XCTSkip("cannot hide /proc here (needs root for unshare -m): \(probe.stderr)") }
        let r = CLI.sh("""
            unshare -m sh -c 'mount -t tmpfs none /proc && "$0" --version && "$0" fill --size 32x32 "$1" -o "$2"' \
              '\(prefix)/bin/imgscale' '\(CLI.testImages)/scene-640x427.jpg' '\(dir)/thumb.png'
            """)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("imgscale "), r.stdout)
        XCTAssertEqual(CLI.size(dir + "/thumb.png"), "32x32")
        XCTAssertEqual(CLI.files(dir), ["thumb.png"], "no temporary left behind")
    }

    func testManPageIsCleanAndListsEveryOption() throws {
        let prefix = try installed()
        let page = prefix + "/share/man/man1/imgscale.1"
        let rendered = CLI.sh("MANWIDTH=100 man -l '\(page)' 2>&1")
        XCTAssertEqual(rendered.status, 0, rendered.stdout)
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"] {
            XCTAssertTrue(rendered.stdout.contains("\n" + section + "\n"), "section \(section)")
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/mandoc") {
            let lint = CLI.sh("mandoc -Tlint -W warning '\(page)'")
            XCTAssertEqual(lint.status, 0, lint.stdout + lint.stderr)
        }
        let groff = CLI.sh("groff -ww -man -Tutf8 '\(page)' > /dev/null")
        XCTAssertEqual(groff.stderr, "", "groff -ww warns")
        let source = try String(contentsOfFile: page, encoding: .utf8)
        // Shared options are described once, naming their commands.
        XCTAssertEqual(source.components(separatedBy: "\\fB\\-\\-quality\\fR").count - 1, 1, "--quality once")
        XCTAssertTrue(source.contains("(fill, fit, convert)"), "the commands taking --filter")
        for command in ["fill", "crop", "fit", "plan", "convert", "compare", "info", "merge-reports"] {
            let help = CLI.run([command, "--help"]).stdout
            // The table in --help: the lines between "options:" and "examples:".
            let table = help.components(separatedBy: "\noptions:\n").last!.components(separatedBy: "\nexamples:").first!
            let options = table.split(separator: "\n").compactMap { line -> String? in
                guard let range = line.range(of: "--") else { return nil }
                return String(line[range.lowerBound...].prefix { !$0.isWhitespace })
            }
            XCTAssertFalse(options.isEmpty)
            for option in Set(options) {
                XCTAssertTrue(source.contains("\\fB\\-\\-" + option.dropFirst(2) + "\\fR"),
                              "\(command) \(option) is in --help but not in the man page")
            }
        }
    }

    func testBashCompletionCompletesCommandsOptionsAndValues() throws {
        let prefix = try installed()
        let script = prefix + "/share/bash-completion/completions/imgscale"
        func complete(_ words: [String]) -> String {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            return CLI.sh("source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _imgscale; echo \"${COMPREPLY[*]}\"")
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        XCTAssertEqual(complete(["imgscale", "fi"]), "fill fit")
        XCTAssertEqual(complete(["imgscale", "fill", "--gra"]), "--gravity")
        XCTAssertEqual(complete(["imgscale", "fill", "--gravity", "south"]), "south southeast southwest")
        XCTAssertEqual(complete(["imgscale", "fit", "--filter", "l"]), "lanczos")
        XCTAssertEqual(complete(["imgscale", "convert", "--format", "w"]), "webp")
        XCTAssertEqual(complete(["imgscale", "compare", "--diff-st"]), "--diff-style")
        // File names where an input goes.
        let dir = CLI.tempDir()
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/photo-1.jpg", contents: Data()))
        XCTAssertEqual(complete(["imgscale", "fill", dir + "/pho"]), dir + "/photo-1.jpg")
        for (shell, file) in [("zsh", "/share/zsh/site-functions/_imgscale"), ("fish", "/share/fish/vendor_completions.d/imgscale.fish")]
        where FileManager.default.isExecutableFile(atPath: "/usr/bin/\(shell)") {
            let r = CLI.sh("\(shell) -n '\(prefix + file)'")
            XCTAssertEqual(r.status, 0, "\(shell): \(r.stderr)")
        }
    }

    /// The container's runtime packages are exactly the packages of the libraries the
    /// binary loads (ldd, and what the dynamic loader initialises while an AVIF is
    /// written, a TIFF read and a JPEG XL written and read, which open libheif, libtiff and
    /// libjxl, not linked; then dpkg -S),
    /// so the image neither misses nor carries one.
    func testRuntimePackagesMatchLddAndTheDockerfileInstallsTheDeb() throws {
        let prefix = try installed()
        let tmp = CLI.tempDir()
        let r = CLI.sh("""
            tmp='\(tmp)'
            # The loader's log goes to its own file: imgscale keeps what is printed on
            # stderr during a job, to attach it to the input's line.
            { ldd '\(prefix)/bin/imgscale' | awk '/=>/ {print $3}'
              LD_DEBUG=libs LD_DEBUG_OUTPUT="$tmp/ld" '\(prefix)/bin/imgscale' convert '\(CLI.testImages)/scene-640x427.jpg' -o "$tmp/x.avif" >/dev/null
              # libtiff and libjxl are opened on first use too: a TIFF read and a JPEG XL
              # written and read bring them in.
              python3 -c "from PIL import Image; Image.new('RGB', (4, 4)).save('$tmp/x.tif', compression='tiff_adobe_deflate')"
              LD_DEBUG=libs LD_DEBUG_OUTPUT="$tmp/ld" '\(prefix)/bin/imgscale' convert "$tmp/x.tif" -o "$tmp/y.png" >/dev/null
              LD_DEBUG=libs LD_DEBUG_OUTPUT="$tmp/ld" '\(prefix)/bin/imgscale' convert "$tmp/x.tif" -o "$tmp/y.jxl" >/dev/null
              LD_DEBUG=libs LD_DEBUG_OUTPUT="$tmp/ld" '\(prefix)/bin/imgscale' convert "$tmp/y.jxl" -o "$tmp/z.png" >/dev/null
              cat "$tmp"/ld.* | awk '/calling init:/ {print $NF}'
            } | sort -u | while read -r lib; do
              readlink -f "$lib"; echo "$lib"
            done | xargs dpkg -S 2>/dev/null | cut -d: -f1 | sort -u
            """)
        XCTAssertEqual(r.status, 0, r.stderr)
        let fromLdd = Set(r.stdout.split(separator: "\n").map(String.init))
        // scripts/package-deb writes its Depends from scripts/runtime-packages: the same
        // set, so the package cannot drift from what the binary loads.
        let traced = CLI.sh("'\(CLI.root)/scripts/runtime-packages' '\(prefix)/bin/imgscale'")
        XCTAssertEqual(traced.status, 0, traced.stderr)
        XCTAssertEqual(Set(traced.stdout.split(separator: "\n").map { String($0.split(separator: " ")[0]) }), fromLdd,
                       "scripts/runtime-packages vs ldd and the loader's trace")
        // The Dockerfile installs that package, not a list of its own.
        let dockerfile = try String(contentsOfFile: CLI.root + "/Dockerfile", encoding: .utf8)
        XCTAssertTrue(dockerfile.contains("RUN scripts/package-deb --out /out"), "the build stage makes the .deb")
        XCTAssertTrue(dockerfile.contains("apt-get install -y /tmp/imgscale-deb/imgscale_*.deb"), "the runtime stage installs it")
        XCTAssertFalse(dockerfile.contains("libjpeg62-turbo"), "no package list kept by hand")
        XCTAssertFalse(fromLdd.contains { $0.hasPrefix("libswift") }, "the Swift runtime is linked statically")
    }

    func testUninstallRemovesExactlyWhatWasInstalled() throws {
        let prefix = try installed()
        let copy = CLI.tempDir() + "/prefix"
        XCTAssertEqual(CLI.sh("cp -a '\(prefix)' '\(copy)' && touch '\(copy)/bin/other-tool'").status, 0)
        let r = CLI.sh("'\(CLI.root)/scripts/install' --prefix '\(copy)' --uninstall")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 5, r.stdout)
        let left = CLI.sh("cd '\(copy)' && find . -type f | sort").stdout
        XCTAssertEqual(left, "./bin/other-tool\n")
        // Into a prefix of its own, then out again: no folder it made is left, the
        // prefix included; a folder that was there before stays.
        let fresh = CLI.tempDir() + "/fresh"
        XCTAssertEqual(CLI.sh("cp -a '\(prefix)' '\(fresh)' && '\(CLI.root)/scripts/install' --prefix '\(fresh)' --uninstall").status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fresh), "the prefix the install made is removed once empty")
    }
}
