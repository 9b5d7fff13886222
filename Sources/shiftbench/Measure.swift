import Foundation

/// Timing helpers: median and spread of several runs, measured with a monotonic clock.
struct Sample {
    var seconds: [Double]

    var sorted: [Double] { seconds.sorted() }
    var median: Double { percentile(50) }
    var min: Double { sorted.first ?? 0 }
    var max: Double { sorted.last ?? 0 }

    /// The median and the range: `12.1 µs (11.0 µs–14.2 µs)`.
    var summary: String { "\(formatTime(median)) (\(formatTime(min))–\(formatTime(max)))" }

    func percentile(_ p: Double) -> Double {
        let values = sorted
        guard !values.isEmpty else { return 0 }
        let rank = Int((p / 100 * Double(values.count - 1)).rounded())
        return values[Swift.min(Swift.max(rank, 0), values.count - 1)]
    }
}

/// A figure of one round taken over several rounds (each round's p99, say): its median and
/// range say how much the machine moved it.
func rounds(_ samples: [Sample], _ figure: (Sample) -> Double) -> Sample {
    Sample(seconds: samples.map(figure))
}

/// Each round's ratio of two figures (Lua ÷ Swift, say), for their median and range.
func ratios(_ numerators: [Double], _ denominators: [Double]) -> Sample {
    Sample(seconds: zip(numerators, denominators).map { $0 / $1 })
}

func measure(runs: Int, _ body: () throws -> Void) rethrows -> Sample {
    let clock = ContinuousClock()
    var seconds: [Double] = []
    for _ in 0..<runs {
        let elapsed = try clock.measure(body)
        seconds.append(elapsed.seconds)
    }
    return Sample(seconds: seconds)
}

/// The process's CPU seconds for each run of `body` (a profiling aid on a shared machine: time
/// the hypervisor gives other guests is not counted, wall time is).
func measureCPU(runs: Int, _ body: () throws -> Void) rethrows -> Sample {
    func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
    var seconds: [Double] = []
    for _ in 0..<runs {
        let start = now()
        try body()
        seconds.append(now() - start)
    }
    return Sample(seconds: seconds)
}

func measureAsync(runs: Int, _ body: () async throws -> Void) async rethrows -> Sample {
    let clock = ContinuousClock()
    var seconds: [Double] = []
    for _ in 0..<runs {
        let start = clock.now
        try await body()
        seconds.append((clock.now - start).seconds)
    }
    return Sample(seconds: seconds)
}

extension Duration {
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}

func formatTime(_ seconds: Double) -> String {
    switch seconds {
    case ..<1e-6: String(format: "%.0f ns", seconds * 1e9)
    case ..<1e-3: String(format: "%.1f µs", seconds * 1e6)
    case ..<1: String(format: "%.1f ms", seconds * 1e3)
    default: String(format: "%.2f s", seconds)
    }
}

/// Peak resident set size of this process so far, in MiB (Linux `VmHWM`).
func peakRSSMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kib = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
    return kib / 1024
}

/// Collects result rows and prints them as a Markdown table.
struct Report {
    var rows: [[String]] = []
    let header: [String]

    init(_ header: [String]) { self.header = header }

    mutating func add(_ row: [String]) {
        rows.append(row)
        FileHandle.standardError.write(Data(("  " + row.joined(separator: " | ") + "\n").utf8))
    }

    func markdown() -> String {
        var lines = ["| " + header.joined(separator: " | ") + " |", "|" + header.map { _ in "---" }.joined(separator: "|") + "|"]
        lines += rows.map { "| " + $0.joined(separator: " | ") + " |" }
        return lines.joined(separator: "\n")
    }
}
