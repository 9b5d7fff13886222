import Foundation

/// Who holds which name, for the core invariant that people (and locations) have names that
/// can be told apart: two names are the same when they match ignoring case and outer spaces.
///
/// A mutation builds it on first use from the schedule it changes, then keeps it current; a
/// stored schedule that already holds duplicates (from before the invariant) still loads.
struct NameIndex<ID: Hashable> {
    private var holders: [String: [ID]] = [:]

    init<S: Sequence>(_ entries: S) where S.Element == (ID, String) {
        for (id, name) in entries { insert(id, name) }
    }

    /// The form two names are compared in.
    static func key(_ name: String) -> String { name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }

    /// Another holder of the name than `id`, if any.
    func otherHolder(of name: String, than id: ID) -> ID? {
        holders[Self.key(name)]?.first { $0 != id }
    }

    mutating func insert(_ id: ID, _ name: String) { holders[Self.key(name), default: []].append(id) }

    mutating func remove(_ id: ID, _ name: String) {
        let key = Self.key(name)
        holders[key]?.removeAll { $0 == id }
        if holders[key]?.isEmpty == true { holders[key] = nil }
    }
}
