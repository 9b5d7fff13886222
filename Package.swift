// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ShiftScheduler",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ShiftCore", targets: ["ShiftCore"]),
        .library(name: "ShiftStorage", targets: ["ShiftStorage"]),
        .library(name: "ShiftStorageSQLite", targets: ["ShiftStorageSQLite"]),
        .library(name: "ShiftStoragePostgres", targets: ["ShiftStoragePostgres"]),
        .library(name: "LuaHost", targets: ["LuaHost"]),
        .library(name: "ShiftRules", targets: ["ShiftRules"]),
        .library(name: "ShiftApp", targets: ["ShiftApp"]),
        .library(name: "ShiftSolve", targets: ["ShiftSolve"]),
        .library(name: "ShiftInterop", targets: ["ShiftInterop"]),
        // The embedding API for apps (swift-dependencies clients); a separate product so the
        // core does not build macros.
        .library(name: "ShiftDependencies", targets: ["ShiftDependencies"]),
        .executable(name: "shiftctl", targets: ["shiftctl"]),
        .executable(name: "shiftbench", targets: ["shiftbench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // MARK: Lua
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        .target(
            name: "CLuaShim",
            dependencies: ["CLua"]
        ),
        .target(
            name: "LuaHost",
            dependencies: ["CLua", "CLuaShim"]
        ),

        // MARK: Scheduling core and storage
        .target(
            name: "ShiftCore",
            dependencies: [
                .product(name: "HashTreeCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "ShiftStorage",
            dependencies: ["ShiftCore"]
        ),
        // The SQLite store (GRDB). Only this target depends on GRDB; the core never does.
        .target(
            name: "ShiftStorageSQLite",
            dependencies: [
                "ShiftCore", "ShiftStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The C API, for binding and reading columns without boxing each value.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // The PostgreSQL store (postgres-nio): one schedule shared by several machines. Only this
        // target depends on postgres-nio.
        .target(
            name: "ShiftStoragePostgres",
            dependencies: [
                "ShiftCore", "ShiftStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // The plugin host: the schedule's Lua API, rules, rotations and scripts.
        .target(
            name: "ShiftRules",
            dependencies: ["ShiftCore", "LuaHost"]
        ),
        // Making rosters: a local search whose only model is the Lua rules (docs/solve.md).
        .target(
            name: "ShiftSolve",
            dependencies: ["ShiftCore", "ShiftRules"]
        ),
        // What the command line does, as a library: opening stores, resolving names, rendering
        // rosters and reports. `shiftctl` only parses arguments and calls it.
        .target(
            name: "ShiftApp",
            dependencies: ["ShiftCore", "ShiftStorage", "ShiftStorageSQLite", "ShiftStoragePostgres", "ShiftRules", "ShiftInterop", "ShiftSolve"]
        ),
        // iCalendar, CSV and HTML import and export.
        .target(name: "ShiftInterop", dependencies: ["ShiftCore"]),
        // @DependencyClient clients over the store for Swift apps (docs/embedding.md). Only this
        // target, its tests and its example depend on swift-dependencies.
        .target(
            name: "ShiftDependencies",
            dependencies: [
                "ShiftCore", "ShiftStorage", "ShiftStorageSQLite", "ShiftRules",
                .product(name: "Dependencies", package: "swift-dependencies"),
                .product(name: "DependenciesMacros", package: "swift-dependencies"),
            ]
        ),
        // A small reducer-style feature with a text UI that uses only the public clients.
        .executableTarget(
            name: "ShiftPlannerExample",
            dependencies: [
                "ShiftCore", "ShiftDependencies",
                .product(name: "Dependencies", package: "swift-dependencies"),
            ],
            path: "Examples/ShiftPlanner"
        ),

        // MARK: Executables
        .executableTarget(
            name: "shiftctl",
            dependencies: [
                "ShiftApp", "ShiftCore", "ShiftStorage", "ShiftRules", "ShiftSolve",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "shiftbench",
            dependencies: ["ShiftCore", "ShiftStorage", "ShiftStorageSQLite", "ShiftStoragePostgres", "ShiftRules", "ShiftInterop", "ShiftSolve"]
        ),
        // A tiny writer process used by the crash-safety and multi-process tests.
        .executableTarget(
            name: "StoreWriter",
            dependencies: ["ShiftCore", "ShiftStorage", "ShiftStorageSQLite", "ShiftStoragePostgres"]
        ),

        // MARK: Tests
        .testTarget(name: "LuaHostTests", dependencies: ["LuaHost", "CLua"]),
        .testTarget(name: "ShiftCoreTests", dependencies: ["ShiftCore", "TestSupport"]),
        .testTarget(
            name: "ShiftRulesTests", dependencies: ["ShiftRules", "ShiftCore", "LuaHost", "ShiftStorage", "ShiftInterop", "TestSupport"],
            exclude: ["Fixtures"]  // hostile Lua scripts, read by path
        ),
        .testTarget(name: "ShiftAppTests", dependencies: ["ShiftApp", "ShiftCore", "ShiftStorage", "ShiftStorageSQLite", "ShiftStoragePostgres", "ShiftRules", "shiftctl", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        // Helpers shared by the test targets: ids, dates, the clock, temporary folders, the test
        // PostgreSQL server. It needs only the core's types.
        .target(name: "TestSupport", dependencies: ["ShiftCore"], path: "Tests/TestSupport"),
        .testTarget(name: "ShiftSolveTests", dependencies: ["ShiftSolve", "ShiftRules", "ShiftCore", "ShiftInterop", "TestSupport"]),
        .testTarget(name: "ShiftInteropTests", dependencies: ["ShiftInterop", "ShiftCore", "ShiftApp", "ShiftStorage", "TestSupport"]),
        .testTarget(
            name: "ShiftDependenciesTests",
            dependencies: [
                "ShiftDependencies", "ShiftCore", "ShiftStorage", "ShiftStorageSQLite", "ShiftPlannerExample", "TestSupport",
                .product(name: "Dependencies", package: "swift-dependencies"),
                // Lets unimplemented test values record Swift Testing issues.
                .product(name: "DependenciesTestSupport", package: "swift-dependencies"),
            ]
        ),
        .testTarget(
            name: "ShiftStorageTests",
            dependencies: [
                "ShiftCore", "ShiftStorage", "ShiftStorageSQLite", "ShiftStoragePostgres", "StoreWriter", "TestSupport",
                // To damage and age test databases behind the repository's back.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
