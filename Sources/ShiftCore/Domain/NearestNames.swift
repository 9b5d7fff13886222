import Foundation

/// "Did you mean": the names closest to a typo, for messages about an unknown person, shift
/// type, command or option.
public enum NearestNames {
    /// Names within a small edit distance of the text (or starting like it), closest first.
    public static func suggestions(for text: String, among names: [String]) -> [String] {
        let lower = text.lowercased()
        let limit = max(1, lower.count / 3)
        let scored = names.compactMap { name -> (Int, Int, String)? in
            let candidate = name.lowercased()
            let whole = editDistance(lower, candidate)
            // "Bbo" should find "Bobby" too: compare with the name's start of the same length.
            let start = lower.count >= 3 ? editDistance(lower, String(candidate.prefix(lower.count))) : whole
            let distance = min(whole, start)
            guard distance <= limit else { return nil }
            return (distance, whole, name)
        }
        var seen = Set<String>()
        return scored.sorted { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }.map(\.2).filter { seen.insert($0).inserted }.prefix(5).map { $0 }
    }

    /// Edit distance counting an insertion, deletion, substitution or swap of neighbours as one
    /// (optimal string alignment), so the typo "Bbo" is one edit from "Bob".
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
