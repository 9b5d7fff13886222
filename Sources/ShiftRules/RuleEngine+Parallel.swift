import Foundation
import LuaHost
import ShiftCore
import Synchronization

/// Whole-schedule checks and big batches split over several Lua states: the slices, the pool of
/// extra states, and running the slices side by side.
extension RuleEngine {
    /// Contiguous ranges of items of about equal total weight, at most one per worker.
    static func slices(_ weights: [Int], workers: Int) -> [Range<Int>] {
        let total = weights.reduce(0, +)
        guard !weights.isEmpty else { return [] }
        var slices: [Range<Int>] = []
        var start = 0
        var sum = 0
        for (index, weight) in weights.enumerated() {
            sum += weight
            if slices.count < workers - 1, sum * workers >= total * (slices.count + 1) {
                slices.append(start..<index + 1)
                start = index + 1
            }
        }
        if start < weights.count { slices.append(start..<weights.count) }
        return slices
    }

    /// Contiguous ranges of whole chunks, one per worker.
    static func slices(_ count: Int, workers: Int) -> [Range<Int>] {
        guard count > 0 else { return [] }
        let chunks = (count + EngineState.chunkSize - 1) / EngineState.chunkSize
        let perWorker = (chunks + workers - 1) / workers * EngineState.chunkSize
        return stride(from: 0, to: count, by: perWorker).map { $0..<min($0 + perWorker, count) }
    }

    /// Runs `work` for each slice index on its own Lua state (the primary one for slice 0), side
    /// by side, and returns the results in slice order; the first error wins.
    func parallel<T: Sendable>(_ count: Int, _ work: @Sendable (Int, EngineState) throws -> T) throws -> [T] {
        let extras = checkOut(count - 1)
        defer { checkIn(extras) }
        // Worker w takes slices w, w + workers, …: if an extra state could not be made, the
        // slices still all run, on fewer states.
        let workers = extras.count + 1
        let results = Mutex<[Int: Result<T, any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: worker, to: count, by: workers) {
                let outcome: Result<T, any Error>
                if worker == 0 {
                    outcome = state.withLock { engine in Result { try work(index, engine) } }
                } else {
                    outcome = Result { try work(index, extras[worker - 1].state) }
                }
                results.withLock { $0[index] = outcome }
            }
        }
        let collected = results.withLock { $0 }
        return try (0..<count).map { try collected[$0]!.get() }
    }

    /// Extra states for one parallel run: idle ones from the pool, new ones beyond that.
    func checkOut(_ count: Int) -> [StateLease] {
        guard count > 0 else { return [] }
        var leases = pool.withLock { idle -> [StateLease] in
            let taken = idle.suffix(count).map(StateLease.init)
            idle.removeLast(taken.count)
            return taken
        }
        while leases.count < count, let fresh = try? EngineState(configuration) { leases.append(StateLease(fresh)) }
        return leases
    }

    func checkIn(_ leases: [StateLease]) {
        pool.withLock { idle in idle.append(contentsOf: leases.map(\.state)) }
    }
}

/// An extra Lua state checked out of the engine's pool for one parallel run.
///
/// `@unchecked Sendable`: a lease is owned by exactly one worker between `checkOut` and
/// `checkIn` (the pool hands each state to one lease; the worker that holds it is the only code
/// that touches it until the run ends), so the state is never used from two threads at once.
struct StateLease: @unchecked Sendable {
    let state: EngineState
    init(_ state: EngineState) { self.state = state }
}
