/// A persistent sorted set of plain values (no references inside them), held in a B+ tree whose
/// nodes the copies of a set share: a copy costs O(1), and a change to a copy copies the nodes on
/// one path from the root to a leaf.
///
/// Why not a hash map of arrays: the schedule's indexes used to be persistent hash maps whose
/// values were arrays (one person's shifts, one type's shifts on one day). A change copied a path
/// of hash nodes, and each copied node retained every array in it and every child, one by one,
/// through generic code that looks up type metadata; freeing the version before released them
/// again. Here the elements are plain bytes (a leaf copies with one `memcpy` and frees without
/// visiting its elements), a branch has at most 16 children to retain, and nothing generic runs
/// per element.
///
/// Branches keep each child's element count, so positions (`index(where:)`, `subscript`) are
/// O(log n) too: a range of the set is a pair of positions.
struct SortedTree<Element: Comparable>: @unchecked Sendable {
    typealias Node = SortedTreeNode<Element>

    private var root: Node?

    init() {
        precondition(_isPOD(Element.self), "SortedTree holds plain values only (its nodes are copied byte for byte)")
    }

    /// A tree holding `elements`, which must be sorted and free of duplicates, built bottom up
    /// with full nodes: a store's indexes are built this way when it is read, at the size and
    /// cost of one pass (inserting one by one leaves nodes about two thirds full).
    init(sorted elements: [Element]) {
        self.init()
        guard !elements.isEmpty else { return }
        var level: [Node] = []
        level.reserveCapacity(elements.count / Node.leafCapacity + 1)
        elements.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                let end = Swift.min(start + Node.leafCapacity, buffer.count)
                let leaf = Node.make(leaf: true)
                leaf.elements.initialize(from: buffer.baseAddress! + start, count: end - start)
                leaf.used = end - start
                leaf.total = end - start
                if let previous = level.last {
                    precondition(previous.last < leaf.elements[0], "SortedTree(sorted:) needs sorted, distinct elements")
                }
                level.append(leaf)
                start = end
            }
        }
        for leaf in level {
            for position in 1..<leaf.used {
                precondition(leaf.elements[position - 1] < leaf.elements[position], "SortedTree(sorted:) needs sorted, distinct elements")
            }
        }
        while level.count > 1 {
            var parents: [Node] = []
            parents.reserveCapacity(level.count / Node.branchCapacity + 1)
            for start in stride(from: 0, to: level.count, by: Node.branchCapacity) {
                let branch = Node.make(leaf: false)
                for child in level[start..<Swift.min(start + Node.branchCapacity, level.count)] { branch.append(child: child) }
                parents.append(branch)
            }
            level = parents
        }
        root = level[0]
    }

    var count: Int { root?.total ?? 0 }
    var isEmpty: Bool { root == nil }

    /// Inserts `element` unless an equal one is held; returns whether it inserted.
    @discardableResult
    mutating func insert(_ element: Element) -> Bool {
        guard root != nil else {
            let leaf = Node.make(leaf: true)
            leaf.elements.initialize(to: element)
            leaf.used = 1
            leaf.total = 1
            root = leaf
            return true
        }
        if !isKnownUniquelyReferenced(&root) { root = root!.copy() }
        let (inserted, split) = Node.insert(element, into: root!)
        if let split {
            let branch = Node.make(leaf: false)
            branch.append(child: root!)
            branch.append(child: split)
            root = branch
        }
        return inserted
    }

    /// Removes the element equal to `element`; returns whether there was one. Nothing is copied
    /// when there is none.
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        guard contains(element) else { return false }
        if !isKnownUniquelyReferenced(&root) { root = root!.copy() }
        Node.remove(element, from: root!)
        // A branch left with one child hands the root down; an empty root leaves the set empty.
        while let node = root, !node.isLeaf, node.used == 1 {
            root = node.children[0].takeUnretainedValue()
        }
        if root?.used == 0 { root = nil }
        return true
    }

    func contains(_ element: Element) -> Bool {
        guard let root else { return false }
        unowned(unsafe) var node = root
        while !node.isLeaf { node = node.children[node.slot(for: element)].takeUnretainedValue() }
        let low = partitionPoint(node.elements, node.used) { $0 < element }
        return low < node.used && node.elements[low] == element
    }

    /// The number of leading elements for which `below` holds: the position of the first one for
    /// which it does not. `below` must hold for every element before any for which it does not
    /// (a lower bound: `{ $0 < key }`).
    func index(where below: (Element) -> Bool) -> Int {
        descend(below)?.position ?? count
    }

    /// The first element for which `below` does not hold: its position, its leaf and its offset
    /// there (nil when there is none).
    private func descend(_ below: (Element) -> Bool) -> (position: Int, leaf: Node, offset: Int)? {
        guard let root else { return nil }
        // The walk holds no references of its own (no retain and release per level): the tree
        // holds its nodes for as long as the walk lasts.
        unowned(unsafe) var node = root
        var position = 0
        while !node.isLeaf {
            let slot = partitionPoint(node.lasts, node.used, below)
            if slot == node.used { return nil }
            for child in 0..<slot { position += node.counts[child] }
            node = node.children[slot].takeUnretainedValue()
        }
        // Some element of the leaf is not below (its parent's last element for it is not).
        let offset = partitionPoint(node.elements, node.used, below)
        return offset < node.used ? (position + offset, node, offset) : nil
    }

    /// The element at `position` (0 ..< count).
    subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count, "SortedTree position out of range")
        let (elements, _, offset) = leafElements(containing: position)
        return elements[offset]
    }

    /// The elements of the leaf holding `position`, how many it holds, and the position's offset
    /// there: valid while the tree holds the leaf (no reference to it is taken).
    private func leafElements(containing position: Int) -> (UnsafePointer<Element>, Int, Int) {
        unowned(unsafe) var node = root!
        var offset = position
        while !node.isLeaf {
            var child = 0
            while offset >= node.counts[child] {
                offset -= node.counts[child]
                child += 1
            }
            node = node.children[child].takeUnretainedValue()
        }
        return (UnsafePointer(node.elements), node.used, offset)
    }

    /// Calls `body` with the elements at `range`'s positions, in order.
    func forEach(in range: Range<Int>, _ body: (Element) throws -> Void) rethrows {
        guard let root, !range.isEmpty else { return }
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "SortedTree range out of bounds")
        try Node.forEach(root, range, body)
    }

    /// The elements at `range`'s positions, in order, one leaf at a time.
    func elements(in range: Range<Int>) -> Elements { Elements(tree: self, range: range) }

    /// The elements from the first one for which `below` does not hold to the end, in order: one
    /// walk down the tree finds the first, and the walk goes on from that leaf. (`below` as in
    /// `index(where:)`.) Callers stop at the end of the range they want.
    func elements(from below: (Element) -> Bool) -> Elements {
        guard let (position, leaf, offset) = descend(below) else { return Elements(tree: self, range: count..<count) }
        return Elements(tree: self, position: position, end: count, leaf: leaf, offset: offset)
    }

    /// What is wrong with the tree's structure (nil when nothing): counts, last elements, order,
    /// fill and depth. For tests.
    func structuralProblem() -> String? {
        guard let root else { return nil }
        var previous: Element?
        var leafDepth: Int?
        func visit(_ node: Node, depth: Int) -> String? {
            let count = node.used
            if count == 0 { return "an empty node at depth \(depth)" }
            if node.isLeaf {
                if count > Node.leafCapacity { return "a leaf over capacity" }
                if node.total != count { return "a leaf's total is not its count" }
                if let leafDepth, leafDepth != depth { return "leaves at depths \(leafDepth) and \(depth)" }
                leafDepth = depth
                for position in 0..<count {
                    let element = node.elements[position]
                    if let previous, !(previous < element) { return "elements out of order" }
                    previous = element
                }
                return nil
            }
            if count > Node.branchCapacity { return "a branch over capacity" }
            var total = 0
            for slot in 0..<count {
                let child = node.children[slot].takeUnretainedValue()
                if let problem = visit(child, depth: depth + 1) { return problem }
                if node.counts[slot] != child.total { return "a branch's count of a child is wrong" }
                if node.lasts[slot] != child.last { return "a branch's last element of a child is wrong" }
                total += child.total
            }
            return total == node.total ? nil : "a branch's total is not the sum of its children's"
        }
        if !root.isLeaf && root.used < 2 { return "a branch root with one child" }
        return visit(root, depth: 0)
    }

    /// A walk over a range of positions that descends from the root once per leaf, not per element.
    struct Elements: Sequence, IteratorProtocol {
        /// Holds the nodes for as long as the walk lasts (a change to the tree copies the ones it
        /// changes), so the walk reads its leaf's elements through a plain pointer: no reference
        /// count is touched per element or per leaf.
        let tree: SortedTree
        var position: Int
        let end: Int
        private var leaf: UnsafePointer<Element>?
        private var offset = 0
        private var leafEnd = 0

        init(tree: SortedTree, range: Range<Int>) {
            self.tree = tree
            self.position = range.lowerBound
            self.end = range.upperBound
        }

        /// A walk from `position`, which is at `offset` in `leaf`, to `end`.
        fileprivate init(tree: SortedTree, position: Int, end: Int, leaf: Node, offset: Int) {
            self.tree = tree
            self.position = position
            self.end = end
            self.leaf = UnsafePointer(leaf.elements)
            self.offset = offset
            self.leafEnd = Swift.min(leaf.used, offset + (end - position))
        }

        mutating func next() -> Element? {
            if offset == leafEnd {
                guard position < end else { return nil }
                let (elements, used, start) = tree.leafElements(containing: position)
                leaf = elements
                offset = start
                leafEnd = Swift.min(used, start + (end - position))
            }
            defer {
                offset += 1
                position += 1
            }
            return leaf![offset]
        }
    }
}

struct SortedTreeNodeHeader {
    /// Elements in a leaf, children in a branch.
    var count: Int
    /// Elements in the subtree.
    var total: Int
    let isLeaf: Bool
}

/// A node of `SortedTree`: a leaf's elements, or a branch's children with each one's element
/// count and last element, laid out in the node's own allocation. A node is changed only while
/// one tree holds it (checked with `isKnownUniquelyReferenced`); shared nodes are copied first.
final class SortedTreeNode<Element: Comparable>: ManagedBuffer<SortedTreeNodeHeader, UInt64> {
    typealias Child = Unmanaged<SortedTreeNode>

    /// About 2 KiB of elements a leaf: a copy is one short `memcpy`.
    static var leafCapacity: Int { max(8, 2048 / MemoryLayout<Element>.stride) }
    /// Copying a branch retains each child (a cache miss apiece when the children are cold), so
    /// branches stay narrow.
    static var branchCapacity: Int { 16 }

    private static var lastsOffset: Int {
        let unaligned = branchCapacity * (MemoryLayout<Child>.stride + MemoryLayout<Int>.stride)
        let alignment = MemoryLayout<Element>.alignment
        return (unaligned + alignment - 1) / alignment * alignment
    }

    static func make(leaf: Bool) -> SortedTreeNode {
        let bytes = leaf
            ? leafCapacity * MemoryLayout<Element>.stride
            : lastsOffset + branchCapacity * MemoryLayout<Element>.stride
        // Storage in 8-byte words: children, counts and elements start 8-byte aligned.
        let buffer = create(minimumCapacity: (bytes + 7) / 8) { _ in SortedTreeNodeHeader(count: 0, total: 0, isLeaf: leaf) }
        let node = unsafeDowncast(buffer, to: SortedTreeNode.self)
        node.withUnsafeMutablePointerToElements { raw in
            let base = UnsafeMutableRawPointer(raw)
            assert(MemoryLayout<Element>.alignment <= 8 && Int(bitPattern: base) % 8 == 0, "SortedTreeNode storage is 8-byte aligned")
            if leaf {
                base.bindMemory(to: Element.self, capacity: leafCapacity)
            } else {
                base.bindMemory(to: Child.self, capacity: branchCapacity)
                (base + branchCapacity * MemoryLayout<Child>.stride).bindMemory(to: Int.self, capacity: branchCapacity)
                (base + lastsOffset).bindMemory(to: Element.self, capacity: branchCapacity)
            }
        }
        return node
    }

    deinit {
        guard !isLeaf else { return }
        let children = self.children
        for child in 0..<used { children[child].release() }
    }

    // The header through a pointer: `header` itself is a class property, and each access to it
    // would be checked for exclusivity at run time.
    private var headerPointer: UnsafeMutablePointer<SortedTreeNodeHeader> { withUnsafeMutablePointerToHeader { $0 } }
    /// Elements in a leaf, children in a branch.
    var used: Int {
        get { headerPointer.pointee.count }
        set { headerPointer.pointee.count = newValue }
    }
    /// Elements in the subtree.
    var total: Int {
        get { headerPointer.pointee.total }
        set { headerPointer.pointee.total = newValue }
    }
    var isLeaf: Bool { headerPointer.pointee.isLeaf }

    private var base: UnsafeMutableRawPointer { withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0) } }
    /// A leaf's elements.
    var elements: UnsafeMutablePointer<Element> { base.assumingMemoryBound(to: Element.self) }
    /// A branch's children, each retained once by the branch.
    var children: UnsafeMutablePointer<Child> { base.assumingMemoryBound(to: Child.self) }
    /// A branch's children's element counts.
    var counts: UnsafeMutablePointer<Int> {
        (base + Self.branchCapacity * MemoryLayout<Child>.stride).assumingMemoryBound(to: Int.self)
    }
    /// A branch's children's last elements.
    var lasts: UnsafeMutablePointer<Element> { (base + Self.lastsOffset).assumingMemoryBound(to: Element.self) }

    var last: Element { isLeaf ? elements[used - 1] : lasts[used - 1] }

    /// A node with the same contents, which the caller owns alone.
    func copy() -> SortedTreeNode {
        let node = Self.make(leaf: isLeaf)
        let count = used
        node.used = count
        node.total = total
        if isLeaf {
            UnsafeMutableRawPointer(node.elements).copyMemory(from: elements, byteCount: count * MemoryLayout<Element>.stride)
        } else {
            for child in 0..<count { _ = children[child].retain() }
            UnsafeMutableRawPointer(node.children).copyMemory(from: children, byteCount: count * MemoryLayout<Child>.stride)
            UnsafeMutableRawPointer(node.counts).copyMemory(from: counts, byteCount: count * MemoryLayout<Int>.stride)
            UnsafeMutableRawPointer(node.lasts).copyMemory(from: lasts, byteCount: count * MemoryLayout<Element>.stride)
        }
        return node
    }

    /// Appends `child` to a branch (retaining it).
    func append(child: SortedTreeNode) {
        insert(child: child, at: used)
    }

    private func insert(child: SortedTreeNode, at slot: Int) {
        let count = used
        precondition(count < Self.branchCapacity)
        (children + slot + 1).moveInitialize(from: children + slot, count: count - slot)
        (counts + slot + 1).moveInitialize(from: counts + slot, count: count - slot)
        (lasts + slot + 1).moveInitialize(from: lasts + slot, count: count - slot)
        children[slot] = Child.passRetained(child)
        counts[slot] = child.total
        lasts[slot] = child.last
        used = count + 1
        total += child.total
    }

    /// Removes a branch's child at `slot` (releasing it) and returns the elements it held.
    @discardableResult
    private func removeChild(at slot: Int) -> Int {
        let count = used
        let removed = counts[slot]
        children[slot].release()
        (children + slot).moveInitialize(from: children + slot + 1, count: count - slot - 1)
        (counts + slot).moveInitialize(from: counts + slot + 1, count: count - slot - 1)
        (lasts + slot).moveInitialize(from: lasts + slot + 1, count: count - slot - 1)
        used = count - 1
        total -= removed
        return removed
    }

    /// A branch's child at `slot`, made unique (copied if another tree shares it) so that it can be
    /// changed in place. The branch must itself be unique.
    private func uniqueChild(at slot: Int) -> SortedTreeNode {
        var child = children[slot].takeRetainedValue()
        if !isKnownUniquelyReferenced(&child) { child = child.copy() }
        children[slot] = Child.passRetained(child)
        return child
    }

    /// The first child whose last element is not below `element` (the last child if none is).
    func slot(for element: Element) -> Int {
        Swift.min(partitionPoint(lasts, used) { $0 < element }, used - 1)
    }

    /// Inserts into `node` (which the caller holds alone). Returns whether it inserted and, when
    /// the node split, the new right half.
    static func insert(_ element: Element, into node: SortedTreeNode) -> (Bool, SortedTreeNode?) {
        if node.isLeaf {
            let elements = node.elements
            let count = node.used
            let low = partitionPoint(elements, count) { $0 < element }
            if low < count && elements[low] == element { return (false, nil) }
            guard count == leafCapacity else {
                node.insertElement(element, at: low)
                return (true, nil)
            }
            // A full leaf splits in halves, and the element goes into the half it sorts into.
            let half = count / 2
            let right = make(leaf: true)
            right.elements.moveInitialize(from: elements + half, count: count - half)
            right.used = count - half
            right.total = count - half
            node.used = half
            node.total = half
            if low <= half { node.insertElement(element, at: low) } else { right.insertElement(element, at: low - half) }
            return (true, right)
        }
        let slot = node.slot(for: element)
        let child = node.uniqueChild(at: slot)
        let (inserted, split) = insert(element, into: child)
        if inserted { node.total += 1 }
        node.counts[slot] = child.total
        node.lasts[slot] = child.last
        guard let split else { return (inserted, nil) }
        // The split's elements are counted in the total already; adding its slot counts them again.
        node.total -= split.total
        guard node.used == branchCapacity else {
            node.insert(child: split, at: slot + 1)
            return (inserted, nil)
        }
        // A full branch splits in halves; the new child goes beside the one that split.
        let count = node.used
        let half = count / 2
        let right = make(leaf: false)
        right.children.moveInitialize(from: node.children + half, count: count - half)
        right.counts.moveInitialize(from: node.counts + half, count: count - half)
        right.lasts.moveInitialize(from: node.lasts + half, count: count - half)
        right.used = count - half
        node.used = half
        right.total = (0..<right.used).reduce(0) { $0 + right.counts[$1] }
        node.total -= right.total
        if slot < half { node.insert(child: split, at: slot + 1) } else { right.insert(child: split, at: slot + 1 - half) }
        return (inserted, right)
    }

    private func insertElement(_ element: Element, at position: Int) {
        let count = used
        (elements + position + 1).moveInitialize(from: elements + position, count: count - position)
        elements[position] = element
        used = count + 1
        total = count + 1
    }

    /// Removes `element`, which the subtree of `node` holds (the caller checked), from `node`
    /// (which the caller holds alone). A child left empty goes; a child left under a quarter full
    /// is merged with a neighbour when both fit in one node.
    static func remove(_ element: Element, from node: SortedTreeNode) {
        if node.isLeaf {
            let elements = node.elements
            let count = node.used
            let low = partitionPoint(elements, count) { $0 < element }
            precondition(low < count && elements[low] == element, "SortedTree.remove of an element it does not hold")
            (elements + low).moveInitialize(from: elements + low + 1, count: count - low - 1)
            node.used = count - 1
            node.total = count - 1
            return
        }
        let slot = node.slot(for: element)
        let (left, capacity): (Int, Int)
        do {
            // (`child` ends with this block: a merge below checks the child's uniqueness again.)
            let child = node.uniqueChild(at: slot)
            remove(element, from: child)
            node.total -= 1
            node.counts[slot] = child.total
            if child.used == 0 {
                node.removeChild(at: slot)
                return
            }
            node.lasts[slot] = child.last
            capacity = child.isLeaf ? leafCapacity : branchCapacity
            guard child.used < capacity / 4, node.used > 1 else { return }
            left = slot + 1 < node.used ? slot : slot - 1
        }
        let leftCount = node.children[left].takeUnretainedValue().used
        let rightCount = node.children[left + 1].takeUnretainedValue().used
        guard leftCount + rightCount <= capacity else { return }
        node.merge(at: left)
    }

    /// Moves the contents of the child after `slot` into the child at `slot` and drops the emptied one.
    private func merge(at slot: Int) {
        let left = uniqueChild(at: slot)
        let right = children[slot + 1].takeUnretainedValue()
        let leftCount = left.used
        let rightCount = right.used
        if left.isLeaf {
            (left.elements + leftCount).initialize(from: right.elements, count: rightCount)
        } else {
            // The right node may be shared: its children get a reference from `left` of their own.
            for child in 0..<rightCount { _ = right.children[child].retain() }
            (left.children + leftCount).initialize(from: right.children, count: rightCount)
            (left.counts + leftCount).initialize(from: right.counts, count: rightCount)
            (left.lasts + leftCount).initialize(from: right.lasts, count: rightCount)
        }
        left.used = leftCount + rightCount
        left.total += right.total
        let moved = right.total
        counts[slot] = left.total
        lasts[slot] = left.last
        removeChild(at: slot + 1)
        total += moved
    }

    static func forEach(_ node: SortedTreeNode, _ range: Range<Int>, _ body: (Element) throws -> Void) rethrows {
        if node.isLeaf {
            let elements = node.elements
            for position in range { try body(elements[position]) }
            return
        }
        var offset = 0
        for slot in 0..<node.used {
            let count = node.counts[slot]
            let lower = max(range.lowerBound - offset, 0)
            let upper = min(range.upperBound - offset, count)
            if lower < upper { try forEach(node.children[slot].takeUnretainedValue(), lower..<upper, body) }
            offset += count
            if offset >= range.upperBound { return }
        }
    }
}

/// The number of leading elements of `buffer[0..<count]` for which `below` holds (a binary
/// search: `below` holds for every element before any for which it does not).
@inline(__always)
private func partitionPoint<Element>(_ buffer: UnsafeMutablePointer<Element>, _ count: Int, _ below: (Element) -> Bool) -> Int {
    var low = 0
    var high = count
    while low < high {
        let mid = (low + high) / 2
        if below(buffer[mid]) { low = mid + 1 } else { high = mid }
    }
    return low
}
