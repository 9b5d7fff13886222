// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ShiftScheduler",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ShiftCore", targets: ["ShiftCore"]),
        .library(name: "ShiftStorage", targets: ["ShiftStorage"]),
        .library(name: "LuaHost", targets: ["LuaHost"]),
        .executable(name: "shiftbench", targets: ["shiftbench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
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

        // MARK: Executables
        .executableTarget(
            name: "shiftbench",
            dependencies: ["ShiftCore", "ShiftStorage"]
        ),
        // A tiny writer process used by the crash-safety and multi-process tests.
        .executableTarget(
            name: "StoreWriter",
            dependencies: ["ShiftCore", "ShiftStorage"]
        ),

        // MARK: Tests
        .testTarget(name: "LuaHostTests", dependencies: ["LuaHost"]),
        .testTarget(name: "ShiftCoreTests", dependencies: ["ShiftCore"]),
        .testTarget(
            name: "ShiftStorageTests",
            dependencies: ["ShiftCore", "ShiftStorage", "StoreWriter"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
