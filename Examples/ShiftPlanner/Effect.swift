/// A tiny reducer runtime in the style of the Composable Architecture, without it: a reducer
/// changes state synchronously and returns an effect; effects do the async work (through the
/// dependency clients) and feed actions back.
struct Effect<Action: Sendable>: Sendable {
    let operation: (@Sendable (_ send: Send<Action>) async -> Void)?

    static var none: Effect { Effect(operation: nil) }

    static func run(_ operation: @escaping @Sendable (_ send: Send<Action>) async -> Void) -> Effect {
        Effect(operation: operation)
    }

    /// Runs effects one after another.
    static func concatenate(_ effects: Effect...) -> Effect {
        let operations = effects.compactMap(\.operation)
        guard !operations.isEmpty else { return .none }
        return .run { send in
            for operation in operations { await operation(send) }
        }
    }
}

/// Feeds an action back into the store.
struct Send<Action: Sendable>: Sendable {
    let send: @MainActor @Sendable (Action) async -> Void

    func callAsFunction(_ action: Action) async { await send(action) }
}

/// Holds a feature's state and runs its effects. `send` returns when the action and every
/// effect it started (and the actions those sent) are done, which keeps a text UI and tests
/// simple and deterministic.
@MainActor
final class FeatureStore<State, Action: Sendable> {
    private(set) var state: State
    private let reduce: (inout State, Action) -> Effect<Action>

    init(initialState: State, reduce: @escaping (inout State, Action) -> Effect<Action>) {
        state = initialState
        self.reduce = reduce
    }

    func send(_ action: Action) async {
        let effect = reduce(&state, action)
        guard let operation = effect.operation else { return }
        await operation(Send { [weak self] action in await self?.send(action) })
    }
}
