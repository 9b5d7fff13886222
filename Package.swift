// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ShiftScheduler",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ShiftCore", targets: ["ShiftCore"]),
        .library(name: "ShiftStorage", targets: ["ShiftStorage"]),
        .library(name: "LuaHost", targets: ["LuaHost"]),
        .library(name: "ShiftRules", targets: ["ShiftRules"]),
        .library(name: "ShiftApp", targets: ["ShiftApp"]),
        .library(name: "ShiftInterop", targets: ["ShiftInterop"]),
        .executable(name: "shiftctl", targets: ["shiftctl"]),
        .executable(name: "shiftbench", targets: ["shiftbench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
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
        // The plugin host: the schedule's Lua API, rules, rotations and scripts.
        .target(
            name: "ShiftRules",
            dependencies: ["ShiftCore", "LuaHost"]
        ),
        // What the command line does, as a library: opening stores, resolving names, rendering
        // rosters and reports. `shiftctl` only parses arguments and calls it.
        .target(
            name: "ShiftApp",
            dependencies: ["ShiftCore", "ShiftStorage", "ShiftRules", "ShiftInterop"]
        ),
        // iCalendar, CSV and HTML import and export.
        .target(name: "ShiftInterop", dependencies: ["ShiftCore"]),

        // MARK: Executables
        .executableTarget(
            name: "shiftctl",
            dependencies: [
                "ShiftApp", "ShiftCore", "ShiftStorage", "ShiftRules",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "shiftbench",
            dependencies: ["ShiftCore", "ShiftStorage", "ShiftRules"]
        ),
        // A tiny writer process used by the crash-safety and multi-process tests.
        .executableTarget(
            name: "StoreWriter",
            dependencies: ["ShiftCore", "ShiftStorage"]
        ),

        // MARK: Tests
        .testTarget(name: "LuaHostTests", dependencies: ["LuaHost", "CLua"]),
        .testTarget(name: "ShiftCoreTests", dependencies: ["ShiftCore"]),
        .testTarget(name: "ShiftRulesTests", dependencies: ["ShiftRules", "ShiftCore", "LuaHost"]),
        .testTarget(name: "ShiftAppTests", dependencies: ["ShiftApp", "ShiftCore", "ShiftStorage", "ShiftRules", "shiftctl"]),
        .testTarget(name: "ShiftInteropTests", dependencies: ["ShiftInterop", "ShiftCore", "ShiftApp", "ShiftStorage"]),
        .testTarget(
            name: "ShiftStorageTests",
            dependencies: ["ShiftCore", "ShiftStorage", "StoreWriter"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
