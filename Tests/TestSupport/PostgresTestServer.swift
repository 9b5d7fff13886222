import Foundation

/// The PostgreSQL server the tests use: `SHIFT_TEST_POSTGRES` (a `postgres://` URL of a
/// database the tests may create schedules and databases in), set by
/// `scripts/with-postgres.sh` and `make test`.
///
/// Without it the PostgreSQL tests are skipped, each with `skipText`, except in CI
/// (`CI=true`): there they run and fail, so that a CI machine without a server cannot pass.
public enum PostgresTestServer {
    public static let url: String? = {
        let value = ProcessInfo.processInfo.environment["SHIFT_TEST_POSTGRES"] ?? ""
        return value.isEmpty ? nil : value
    }()

    public static let inCI = ["true", "1"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "")

    /// Whether the PostgreSQL tests run (and fail without a server in CI).
    public static let enabled = url != nil || inCI

    /// Why the PostgreSQL tests are skipped (a test target's `skipReason` comment says it).
    public static let skipText = "SHIFT_TEST_POSTGRES is not set: run `make test` or `scripts/with-postgres.sh swift test` for the PostgreSQL tests"

    /// The server's URL, or an error saying why there is none.
    public static func requireURL() throws -> String {
        guard let url else {
            throw PostgresTestError("CI=true but SHIFT_TEST_POSTGRES is not set: the PostgreSQL tests must run in CI (.ci/run starts a server)")
        }
        return url
    }

    /// The URL of a new, empty schedule in the test database (`?schedule=t_<random>`).
    public static func freshScheduleURL() throws -> String {
        let base = try requireURL()
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        return base + (base.contains("?") ? "&" : "?") + "schedule=\(name)"
    }

    /// The URL of the same server with another database.
    public static func url(database: String) throws -> String {
        let base = try requireURL()
        let parts = base.split(separator: "?", maxSplits: 1).map(String.init)
        let start = parts[0].range(of: "://")!.upperBound
        let authorityEnd = parts[0][start...].firstIndex(of: "/") ?? parts[0].endIndex
        return String(parts[0][..<authorityEnd]) + "/" + database + (parts.count > 1 ? "?" + parts[1] : "")
    }

    /// The URL of a schedule (`?schedule=NAME` of `scheduleURL`) as another role of the server:
    /// the tests' login roles, which the throwaway cluster lets in without a password.
    public static func url(_ scheduleURL: String, user: String) throws -> String {
        guard let start = scheduleURL.range(of: "://"), let at = scheduleURL[start.upperBound...].firstIndex(of: "@") else {
            throw PostgresTestError("\(scheduleURL) names no user to replace")
        }
        return String(scheduleURL[..<start.upperBound]) + user + String(scheduleURL[at...])
    }

    /// Runs SQL on the test server with `psql` (for setting up foreign databases and damage);
    /// returns what it printed, unaligned, one row a line.
    @discardableResult
    public static func psql(_ sql: String, database: String? = nil) throws -> String {
        try psql(sql, url: try database.map { try url(database: $0) } ?? requireURL())
    }

    /// Runs SQL with `psql` connected as the URL says (its user; its `?schedule=` is ignored).
    /// - Throws: `PostgresTestError` with what psql said on stderr when the SQL fails.
    @discardableResult
    public static func psql(_ sql: String, url target: String) throws -> String {
        let server = target.split(separator: "?", maxSplits: 1).map(String.init)
        let parameters = server.count > 1 ? server[1].split(separator: "&").filter { !$0.hasPrefix("schedule=") }.joined(separator: "&") : ""
        let target = server[0] + (parameters.isEmpty ? "" : "?" + parameters)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", target.replacingOccurrences(of: "postgres://", with: "postgresql://"),
                             "-c", sql]
        let errors = Pipe()
        let output = Pipe()
        process.standardError = errors
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw PostgresTestError("psql failed: \(text)")
        }
        return printed
    }
}

public struct PostgresTestError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
