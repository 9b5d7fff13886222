import Foundation
import ShiftCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a command needs from the process it runs in: environment variables, the working
/// folder, the clock and the terminal. Tests pass fixed values.
public struct AppEnvironment: Sendable {
    public var variables: [String: String]
    public var currentDirectory: String
    /// The running executable, to find the stock rules beside a build.
    public var executablePath: String
    public var now: @Sendable () -> Date
    /// Whether stdout is a terminal (colour and width only apply then).
    public var stdoutIsTerminal: Bool
    /// The terminal's columns when stdout is one (`TIOCGWINSZ`).
    public var terminalColumns: Int?
    /// Where notes and the rules' `print` output go while a command runs (stderr).
    public var diagnostics: @Sendable (String) -> Void

    public init(
        variables: [String: String], currentDirectory: String, executablePath: String = "",
        now: @escaping @Sendable () -> Date = { Date() }, stdoutIsTerminal: Bool = false, terminalColumns: Int? = nil,
        diagnostics: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        self.variables = variables
        self.currentDirectory = currentDirectory
        self.executablePath = executablePath
        self.now = now
        self.stdoutIsTerminal = stdoutIsTerminal
        self.terminalColumns = terminalColumns
        self.diagnostics = diagnostics
    }

    /// The running process.
    public static var live: AppEnvironment {
        let isTerminal = isatty(STDOUT_FILENO) == 1
        var columns: Int?
        if isTerminal {
            var size = winsize()
            if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { columns = Int(size.ws_col) }
        }
        return AppEnvironment(
            variables: ProcessInfo.processInfo.environment,
            currentDirectory: FileManager.default.currentDirectoryPath,
            executablePath: CommandLine.arguments.first.map(Self.resolveExecutable) ?? "",
            stdoutIsTerminal: isTerminal, terminalColumns: columns)
    }

    /// Output width: `COLUMNS`, else the terminal's width, else 80.
    public var width: Int {
        if let text = variables["COLUMNS"], let value = Int(text), value > 0 { return value }
        return terminalColumns ?? 80
    }

    /// Colour only on a terminal, never with `NO_COLOR` set (https://no-color.org) or `TERM=dumb`.
    public var usesColour: Bool {
        guard stdoutIsTerminal else { return false }
        if let noColour = variables["NO_COLOR"], !noColour.isEmpty { return false }
        return variables["TERM"] != "dumb"
    }

    /// A path made absolute against the working folder.
    public func absolute(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        let joined = expanded.hasPrefix("/") ? expanded : currentDirectory + "/" + expanded
        return (joined as NSString).standardizingPath
    }

    private static func resolveExecutable(_ argument0: String) -> String {
        if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return link }
        return (argument0 as NSString).standardizingPath
    }
}
