import Foundation
import ShiftCore
import ShiftStorage

/// JSON store: open (read + parse + build indexes) and save (encode + atomic write with fsync).
enum StoreBenchmarks {
    static func run(runs: Int, sizes: [Int]) throws {
        print("## JSON file store: open and save\n")
        print("`open` reads the file, parses it and builds the schedule with its indexes; `save` encodes it and writes it atomically (temp file, fsync, rename, fsync of the folder).\n")
        var report = Report(["shifts", "file size", "open (median)", "open (min–max)", "save (median)", "save (min–max)", "Foundation JSONEncoder (median)"])
        let directory = NSTemporaryDirectory() + "shiftbench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for size in sizes {
            let schedule = try Generator.schedule(shifts: size)
            let path = "\(directory)/bench-\(size).json"
            let repository = JSONFileRepository(path: path)
            try repository.write(StoreFileCodec.encode(schedule))
            let fileSize = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            let open = try measure(runs: runs) { _ = try JSONFileRepository(path: path).load() }
            let summary = CommitSummary(mutation: .batch([]), changes: [], logEntries: [])
            let save = try measure(runs: runs) { _ = try repository.save(schedule, summary: summary) }
            let shifts = schedule.shifts()
            let encoder = JSONEncoder()
            let foundation = try measure(runs: Swift.max(3, runs / 2)) { _ = try encoder.encode(shifts) }
            report.add([
                "\(size)", String(format: "%.1f MB", Double(fileSize) / 1e6),
                formatTime(open.median), "\(formatTime(open.min))–\(formatTime(open.max))",
                formatTime(save.median), "\(formatTime(save.min))–\(formatTime(save.max))",
                formatTime(foundation.median),
            ])
        }
        print(report.markdown())
        print("\nFoundation JSONEncoder encodes only the shifts array (no file write), for comparison with our encoder.\n")
    }
}
