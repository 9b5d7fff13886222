import Foundation
import PostgresNIO

/// Where a PostgreSQL store lives: a `postgres://` (or `postgresql://`) URL completed the way
/// libpq completes it, from the `PG*` environment variables and the password file.
///
/// - `postgres://user:password@host:port/database?schedule=ward3&sslmode=require`
/// - A host that starts with `/` (percent-encoded in the URL: `%2Fvar%2Frun%2Fpostgresql`, or
///   as `?host=/var/run/postgresql`) is the folder of the server's unix socket.
/// - Missing parts come from `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`, `PGDATABASE`,
///   `PGSSLMODE`, `PGSSLROOTCERT`, then libpq's defaults (the socket folder
///   `/var/run/postgresql`, port 5432, the user's login name, a database named after the user).
/// - A password not given comes from `PGPASSFILE` or `~/.pgpass` (`host:port:db:user:password`,
///   `*` matching anything; a file others may read is ignored, as libpq does).
/// - `schedule=NAME` picks one of several schedules in one database (the default is `main`).
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    /// Which schedule of the database (`[a-z0-9_]`, at most 40 characters).
    public var schedule: String
    public var tlsMode: TLSMode
    /// `sslrootcert`: the certificate authorities to trust for `verify-ca` and `verify-full`.
    public var rootCertificate: String?

    /// Whether `host` names a unix socket folder rather than a machine.
    public var usesUnixSocket: Bool { host.hasPrefix("/") }

    /// The PostgreSQL schema (namespace) holding this schedule's tables.
    public var schemaName: String { schedule == Self.defaultSchedule ? "shiftscheduler" : "shiftscheduler_\(schedule)" }

    public static let defaultSchedule = "main"

    /// Whether a store argument names a PostgreSQL store (by its scheme).
    public static func isURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// Parses a URL and completes it from `environment` (the process's variables) and the
    /// password file.
    /// - Throws: `PostgresStoreError.badURL` naming what is wrong.
    public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard Self.isURL(text), let schemeEnd = text.range(of: "://") else {
            throw PostgresStoreError.badURL(url: text, reason: "it must start with postgres:// or postgresql://")
        }
        var rest = String(text[schemeEnd.upperBound...])
        var query: [String: String] = [:]
        if let mark = rest.firstIndex(of: "?") {
            query = try Self.parameters(String(rest[rest.index(after: mark)...]), url: text)
            rest = String(rest[..<mark])
        }
        let slash = rest.firstIndex(of: "/")
        let authority = String(rest[..<(slash ?? rest.endIndex)])
        let path = slash.map { String(rest[rest.index(after: $0)...]) } ?? ""
        var userInfo: String?
        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            userInfo = String(authority[..<at])
            hostPort = String(authority[authority.index(after: at)...])
        }
        var urlUser: String?
        var urlPassword: String?
        if let userInfo {
            let parts = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            urlUser = try Self.decode(String(parts[0]), url: text)
            if parts.count > 1 { urlPassword = try Self.decode(String(parts[1]), url: text) }
        }
        var urlHost: String?
        var urlPort: String?
        if hostPort.hasPrefix("[") {
            // An IPv6 address: [::1]:5432.
            guard let close = hostPort.firstIndex(of: "]") else { throw PostgresStoreError.badURL(url: text, reason: "an IPv6 host lacks its ']'") }
            urlHost = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if after.hasPrefix(":") { urlPort = String(after.dropFirst()) }
        } else if let colon = hostPort.lastIndex(of: ":") {
            urlHost = try Self.decode(String(hostPort[..<colon]), url: text)
            urlPort = String(hostPort[hostPort.index(after: colon)...])
        } else if !hostPort.isEmpty {
            urlHost = try Self.decode(hostPort, url: text)
        }
        if urlHost?.isEmpty == true { urlHost = nil }
        if urlPort?.isEmpty == true { urlPort = nil }
        let urlDatabase = path.isEmpty ? nil : try Self.decode(path, url: text)

        func pick(_ key: String, _ fromURL: String?, _ variable: String) -> String? {
            if let value = query[key], !value.isEmpty { return value }
            if let fromURL { return fromURL }
            if let value = environment[variable], !value.isEmpty { return value }
            return nil
        }
        host = pick("host", urlHost, "PGHOST") ?? "/var/run/postgresql"
        let portText = pick("port", urlPort, "PGPORT") ?? "5432"
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw PostgresStoreError.badURL(url: text, reason: "port '\(portText)' is not a number from 1 to 65535")
        }
        self.port = port
        user = pick("user", urlUser, "PGUSER") ?? environment["USER"] ?? environment["LOGNAME"] ?? "postgres"
        database = pick("dbname", urlDatabase, "PGDATABASE") ?? user
        let modeText = pick("sslmode", nil, "PGSSLMODE") ?? (host.hasPrefix("/") ? "disable" : "prefer")
        guard let mode = TLSMode(rawValue: modeText) else {
            throw PostgresStoreError.badURL(
                url: text, reason: "sslmode '\(modeText)' is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        tlsMode = mode
        rootCertificate = pick("sslrootcert", nil, "PGSSLROOTCERT")
        schedule = query["schedule"] ?? Self.defaultSchedule
        guard Self.isValidScheduleName(schedule) else {
            throw PostgresStoreError.badURL(
                url: text, reason: "schedule '\(schedule)' must be 1 to 40 lowercase letters, digits or '_'")
        }
        password = pick("password", urlPassword, "PGPASSWORD")
        if password == nil {
            password = PasswordFile(environment: environment)?.password(host: host, port: port, database: database, user: user)
        }
    }

    public static func isValidScheduleName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 40 && name.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
    }

    /// The URL without its password, for messages: `postgres://alice@db.example:5432/roster?schedule=ward3`.
    public var description: String {
        var allowed = CharacterSet.urlHostAllowed
        allowed.remove(charactersIn: "/:@")
        let hostText = usesUnixSocket ? (host.addingPercentEncoding(withAllowedCharacters: allowed) ?? host)
            : (host.contains(":") ? "[\(host)]" : host)
        let portText = usesUnixSocket && port == 5432 ? "" : ":\(port)"
        let scheduleText = schedule == Self.defaultSchedule ? "" : "?schedule=\(schedule)"
        return "postgres://\(user)@\(hostText)\(portText)/\(database)\(scheduleText)"
    }

    /// postgres-nio's connection settings for this location.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        if usesUnixSocket {
            return PostgresConnection.Configuration(
                unixSocketPath: "\(host)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        }
        let tls: PostgresConnection.Configuration.TLS
        switch tlsMode {
        case .disable, .allow: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: tlsConfiguration(verify: nil)))
        case .require: tls = .require(try NIOSSLContext(configuration: tlsConfiguration(verify: rootCertificate == nil ? nil : .noHostnameVerification)))
        case .verifyCA: tls = .require(try NIOSSLContext(configuration: tlsConfiguration(verify: .noHostnameVerification)))
        case .verifyFull: tls = .require(try NIOSSLContext(configuration: tlsConfiguration(verify: .fullVerification)))
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    /// postgres-nio's pool settings for this location (the watchers' connections).
    func clientConfiguration() throws -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if usesUnixSocket {
            configuration = PostgresClient.Configuration(
                unixSocketPath: "\(host)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS = switch tlsMode {
            case .disable, .allow: .disable
            case .prefer: .prefer(try tlsConfiguration(verify: nil))
            case .require: .require(try tlsConfiguration(verify: rootCertificate == nil ? nil : .noHostnameVerification))
            case .verifyCA: .require(try tlsConfiguration(verify: .noHostnameVerification))
            case .verifyFull: .require(try tlsConfiguration(verify: .fullVerification))
            }
            configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
        configuration.options.maximumConnections = 2
        configuration.options.additionalStartupParameters = [("search_path", "\(schemaName), pg_catalog")]
        return configuration
    }

    /// TLS as libpq's modes mean it: `prefer` and `require` (without a root certificate) encrypt
    /// but do not check the server's certificate; `verify-ca` checks it against the roots,
    /// `verify-full` the host name too.
    private func tlsConfiguration(verify: CertificateVerification?) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = verify ?? .none
        if let rootCertificate, verify != nil {
            configuration.trustRoots = .file(rootCertificate)
        }
        return configuration
    }

    private static func parameters(_ text: String, url: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw PostgresStoreError.badURL(url: url, reason: "'\(pair)' is not NAME=VALUE") }
            let key = try decode(String(parts[0]), url: url)
            guard ["host", "port", "user", "password", "dbname", "sslmode", "sslrootcert", "schedule", "application_name", "connect_timeout"]
                .contains(key) else {
                throw PostgresStoreError.badURL(url: url, reason: "unknown parameter '\(key)'")
            }
            result[key] = try decode(String(parts[1]), url: url)
        }
        return result
    }

    private static func decode(_ text: String, url: String) throws -> String {
        guard let decoded = text.removingPercentEncoding else {
            throw PostgresStoreError.badURL(url: url, reason: "'\(text)' has a bad %-escape")
        }
        return decoded
    }
}

/// The password file (`~/.pgpass`), read as libpq reads it.
struct PasswordFile {
    let lines: [[String]]

    init?(environment: [String: String]) {
        let path = environment["PGPASSFILE"] ?? environment["HOME"].map { $0 + "/.pgpass" }
        guard let path, let data = FileManager.default.contents(atPath: path) else { return nil }
        // libpq ignores a password file that the group or others may read.
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
           let mode = attributes[.posixPermissions] as? Int, mode & 0o077 != 0 { return nil }
        lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let fields = Self.fields(String(line))
            return fields.count == 5 ? fields : nil
        }
    }

    /// The first line matching; a unix socket matches `localhost` as well as its folder.
    func password(host: String, port: Int, database: String, user: String) -> String? {
        let hosts = host.hasPrefix("/") ? [host, "localhost"] : [host]
        for line in lines {
            func matches(_ field: String, _ values: [String]) -> Bool { field == "*" || values.contains(field) }
            if matches(line[0], hosts), matches(line[1], [String(port)]), matches(line[2], [database]), matches(line[3], [user]) {
                return line[4]
            }
        }
        return nil
    }

    /// Splits at unescaped `:`; `\:` and `\\` are a colon and a backslash.
    private static func fields(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}
