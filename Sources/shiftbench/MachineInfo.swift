import Foundation

enum MachineInfo {
    /// `2 cores, Intel Xeon …, 23 GiB, Linux 6.1` from /proc.
    static var current: String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
        return String(format: "%d cores, %@, %.0f GiB, %@", ProcessInfo.processInfo.activeProcessorCount, model, memory,
                      ProcessInfo.processInfo.operatingSystemVersionString)
    }
}
