import Foundation
import Testing

/// Shell completion of the store's people, shift types and rotations, through the bash script
/// `--generate-completion-script bash` writes, set up as docs/cli.md says.
@Suite struct CompletionTests {
    /// What bash offers for a command line that ends where the cursor is: the completion
    /// function called as bash calls it (command, current word, previous word).
    private func complete(_ line: String, in sandbox: Sandbox) throws -> [String] {
        var words = line.split(separator: " ").map(String.init)
        if line.hasSuffix(" ") { words.append("") }
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let script = """
            source ./shiftctl.bash
            COMP_LINE=\("'" + line + "'"); COMP_POINT=${#COMP_LINE}
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMPREPLY=()
            _shiftctl shiftctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let folder = CLI.executable.deletingLastPathComponent().path
        // bash runs the script; the shiftctl path the sandbox appends is only its $1.
        let result = try sandbox.run(arguments: [], environment: ["PATH": folder + ":/usr/bin:/bin"],
                                     launcher: ["/bin/bash", "--norc", "-c", script, "bash"])
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    @Test func bashCompletesPeopleShiftTypesAndRotationsFromTheStore() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(try sandbox.run("person", "add", "Ann Lee").status == 0)
        let generated = try sandbox.run("--generate-completion-script", "bash")
        #expect(generated.status == 0)
        try sandbox.write(generated.stdout, to: "shiftctl.bash")

        #expect(try complete("shiftctl person show ", in: sandbox) == ["Alice", "Ann Lee", "Bob", "Bobby"])
        #expect(try complete("shiftctl schedule add --person A", in: sandbox) == ["Alice", "Ann Lee"])
        #expect(try complete("shiftctl schedule assign 1234 --to Bo", in: sandbox) == ["Bob", "Bobby"])
        #expect(try complete("shiftctl schedule add --type ", in: sandbox) == ["D", "N"])
        #expect(try complete("shiftctl switch 1234 --to N", in: sandbox) == ["N"])
        #expect(try complete("shiftctl rotate pit", in: sandbox) == ["pitman"])
        #expect(try complete("shiftctl --store elsewhere.json person show ", in: sandbox).isEmpty, "no store there: nothing")
    }
}
