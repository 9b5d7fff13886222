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
    /// The login name of the user the process runs as, for the change log when `$USER` is not
    /// set (a cron job, a container); nil when the system knows no name for the user id.
    public var loginName: String?

    public init(
        variables: [String: String], currentDirectory: String, executablePath: String = "",
        now: @escaping @Sendable () -> Date = { Date() }, stdoutIsTerminal: Bool = false, terminalColumns: Int? = nil,
        diagnostics: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) },
        loginName: String? = nil
    ) {
        self.variables = variables
        self.currentDirectory = currentDirectory
        self.executablePath = executablePath
        self.now = now
        self.stdoutIsTerminal = stdoutIsTerminal
        self.terminalColumns = terminalColumns
        self.diagnostics = diagnostics
        self.loginName = loginName
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
            stdoutIsTerminal: isTerminal, terminalColumns: columns, loginName: processLoginName())
    }

    /// The name of the process's effective user in the user database (`getpwuid(geteuid())`).
    static func processLoginName() -> String? {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return nil }
        let text = String(cString: name)
        return text.isEmpty ? nil : text
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
