import Foundation
import TestSupport
import Testing
import ShiftStoragePostgres

/// `--store postgres://…` as libpq reads it: the URL, then the `PG*` variables, then the
/// password file. No server needed.
@Suite struct PostgresLocationTests {
    @Test func aFullURLNamesEveryPart() throws {
        let location = try PostgresLocation(url: "postgres://alice:s%40cret@db.example:6543/roster?schedule=ward3&sslmode=require", environment: [:])
        #expect(location.user == "alice")
        #expect(location.password == "s@cret")
        #expect(location.host == "db.example")
        #expect(location.port == 6543)
        #expect(location.database == "roster")
        #expect(location.schedule == "ward3")
        #expect(location.schemaName == "shiftscheduler_ward3")
        #expect(location.tlsMode == .require)
        #expect(location.description == "postgres://alice@db.example:6543/roster?schedule=ward3", "no password in messages")
    }

    @Test func postgresqlSchemeAndDefaultsFromTheEnvironment() throws {
        let environment = ["PGHOST": "pg.internal", "PGPORT": "5433", "PGUSER": "bob", "PGDATABASE": "teams", "PGPASSWORD": "pw"]
        let location = try PostgresLocation(url: "postgresql://", environment: environment)
        #expect(location.host == "pg.internal")
        #expect(location.port == 5433)
        #expect(location.user == "bob")
        #expect(location.database == "teams")
        #expect(location.password == "pw")
        #expect(location.schedule == PostgresLocation.defaultSchedule)
        #expect(location.schemaName == "shiftscheduler")
        // The URL wins over the variables.
        let explicit = try PostgresLocation(url: "postgresql://carol@other/db2", environment: environment)
        #expect(explicit.user == "carol")
        #expect(explicit.host == "other")
        #expect(explicit.database == "db2")
    }

    @Test func aUnixSocketFolderAsEncodedHostOrParameter() throws {
        let encoded = try PostgresLocation(url: "postgres://shift@%2Ftmp%2Fpg/test", environment: [:])
        #expect(encoded.host == "/tmp/pg")
        #expect(encoded.usesUnixSocket)
        #expect(encoded.tlsMode == .disable)
        #expect(encoded.description == "postgres://shift@%2Ftmp%2Fpg/test")
        let parameter = try PostgresLocation(url: "postgres:///test?host=/var/run/postgresql&user=shift", environment: [:])
        #expect(parameter.host == "/var/run/postgresql")
        #expect(parameter.user == "shift")
        #expect(parameter.database == "test")
        let defaulted = try PostgresLocation(url: "postgres:///test", environment: ["USER": "dana"])
        #expect(defaulted.host == "/var/run/postgresql", "libpq's default socket folder on Debian")
        #expect(defaulted.user == "dana")
    }

    @Test func thePasswordFileSuppliesAMissingPassword() throws {
        let directory = try TemporaryFolder()
        let file = directory.file("pgpass")
        writeText("# comment\nother:*:*:*:wrong\ndb.example:5432:roster:alice:fr\\:om-file\n*:*:*:bob:bobs\n", to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let environment = ["PGPASSFILE": file]
        #expect(try PostgresLocation(url: "postgres://alice@db.example/roster", environment: environment).password == "fr:om-file")
        #expect(try PostgresLocation(url: "postgres://bob@anywhere:7000/x", environment: environment).password == "bobs")
        #expect(try PostgresLocation(url: "postgres://alice:given@db.example/roster", environment: environment).password == "given")
        // As libpq: a password file others may read is ignored.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        #expect(try PostgresLocation(url: "postgres://alice@db.example/roster", environment: environment).password == nil)
    }

    @Test(arguments: [
        ("postgres://h:99999/db", "port '99999'"),
        ("postgres://h/db?schedule=Ward-3", "schedule 'Ward-3'"),
        ("postgres://h/db?colour=blue", "unknown parameter 'colour'"),
        ("postgres://h/db?sslmode=sometimes", "sslmode 'sometimes'"),
        ("mysql://h/db", "must start with postgres://"),
    ])
    func badURLsSayWhatIsWrongInOneLine(url: String, expected: String) {
        #expect {
            try PostgresLocation(url: url, environment: [:])
        } throws: { error in
            let text = "\(error)"
            return error is PostgresStoreError && text.contains(expected) && !text.contains("\n")
        }
    }

    @Test func aBadURLsMessageHidesItsPassword() {
        #expect {
            try PostgresLocation(url: "postgres://alice:topsecret@h:0/db", environment: [:])
        } throws: { error in
            "\(error)".contains("alice:***@h") && !"\(error)".contains("topsecret")
        }
    }

    @Test func storeArgumentsAreRecognisedByScheme() {
        #expect(PostgresLocation.isURL("postgres://x/y"))
        #expect(PostgresLocation.isURL("PostgreSQL://x/y"))
        #expect(!PostgresLocation.isURL("schedule.json"))
        #expect(!PostgresLocation.isURL("postgres.sqlite"))
    }
}
