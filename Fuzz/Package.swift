// swift-tools-version: 6.1
// libFuzzer targets for ShiftScheduler, kept apart from the main package: a fuzz target has no
// `main` (libFuzzer supplies it), so it links only with `--sanitize=fuzzer`. Run them with
// `scripts/fuzz.sh` (see docs/guarantees.md).
import PackageDescription

let fuzzTarget: (String, [Target.Dependency]) -> Target = { name, dependencies in
    .executableTarget(name: name, dependencies: dependencies, swiftSettings: [.unsafeFlags(["-parse-as-library"])])
}

let package = Package(
    name: "ShiftSchedulerFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "ShiftScheduler", path: "..")],
    targets: [
        fuzzTarget("FuzzStoreDecoder", [.product(name: "ShiftStorage", package: "ShiftScheduler")]),
        fuzzTarget("FuzzICS", [.product(name: "ShiftInterop", package: "ShiftScheduler"), .product(name: "ShiftCore", package: "ShiftScheduler")]),
        fuzzTarget("FuzzCSV", [.product(name: "ShiftInterop", package: "ShiftScheduler"), .product(name: "ShiftCore", package: "ShiftScheduler")]),
        fuzzTarget("FuzzLua", [.product(name: "LuaHost", package: "ShiftScheduler")]),
        fuzzTarget("FuzzSQLiteStore", [
            .product(name: "ShiftStorageSQLite", package: "ShiftScheduler"), .product(name: "ShiftStorage", package: "ShiftScheduler"),
            .product(name: "ShiftCore", package: "ShiftScheduler"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
