import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct RequestCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "request",
            abstract: "Swap, offer, claim and time-off requests, and their approval.",
            discussion: """
                A request is made pending; a swap with a colleague is accepted by them; a scheduler then approves \
                (the change it asks for goes through the rules) or declines it. The requester may cancel it while \
                it is open. A request whose shift has started expires.
                """,
            subcommands: [Swap.self, Offer.self, Claim.self, TimeOff.self, List.self, Show.self, Accept.self, Approve.self, Decline.self, Cancel.self,
                          AutoApprove.self])
    }
}

/// `--person` and `--reason`, shared by the commands that make a request.
struct RequestMakingArguments: ParsableArguments {
    @Option(help: "Who asks (default: the acting user's person, see --as).", completion: Completions.people) var person: String?
    @Option(help: "Why, kept in the request's history.") var reason: String?
}

extension Shiftctl.RequestCommand {
    struct Swap: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Ask to give a shift to a colleague, or to exchange it for one of theirs.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @OptionGroup var making: RequestMakingArguments
        @Argument(help: "Your shift: id or unique id prefix.") var shift: String
        @Option(help: "The colleague: name or id prefix.", completion: Completions.people) var with: String
        @Option(name: .customLong("for"), help: "Their shift to take in exchange: id or unique id prefix.") var theirs: String?

        func run() async throws {
            try await Console.run(global, format: output.format) {
                try await $0.requestSwap(shift: shift, with: with, for: theirs, person: making.person, reason: making.reason)
            }
        }
    }

    struct Offer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Offer a shift to anyone: once approved it is open.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @OptionGroup var making: RequestMakingArguments
        @Argument(help: "Your shift: id or unique id prefix.") var shift: String

        func run() async throws {
            try await Console.run(global, format: output.format) {
                try await $0.requestOffer(shift: shift, person: making.person, reason: making.reason)
            }
        }
    }

    struct Claim: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Ask to take an open shift.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @OptionGroup var making: RequestMakingArguments
        @Argument(help: "The open shift: id or unique id prefix.") var shift: String

        func run() async throws {
            try await Console.run(global, format: output.format) {
                try await $0.requestClaim(shift: shift, person: making.person, reason: making.reason)
            }
        }
    }

    struct TimeOff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "time-off", abstract: "Ask for days off: once approved, unavailability, and your shifts then open.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @OptionGroup var making: RequestMakingArguments
        @Option(help: ArgumentHelp("First day off.", valueName: "YYYY-MM-DD")) var from: String
        @Option(help: ArgumentHelp("Last day off (default: --from).", valueName: "YYYY-MM-DD")) var to: String?
        @Option(help: "Only this shift type (default: every shift).", completion: Completions.shiftTypes) var type: String?

        func run() async throws {
            try await Console.run(global, format: output.format) {
                try await $0.requestTimeOff(from: from, to: to, type: type, person: making.person, reason: making.reason)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List requests, oldest first.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Flag(help: "Only the acting user's requests and those addressed to them.") var mine = false
        @Flag(help: "Only open requests (pending or accepted).") var pending = false
        @Option(help: "Only this person's requests and those addressed to them.", completion: Completions.people) var person: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.listRequests(mine: mine, open: pending, person: person) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a request and its history.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Request id or unique id prefix (see request list).") var id: String

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.showRequest(id) }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Accept a swap addressed to you.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Request id or unique id prefix.") var id: String
        @Option(help: "Why, kept in the request's history.") var reason: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.acceptRequest(id, reason: reason) }
        }
    }

    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Approve a request: its change goes through the rules; refused, the request stays open.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Request id or unique id prefix.") var id: String
        @Option(help: "Why, kept in the request's history.") var reason: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.approveRequest(id, reason: reason) }
        }
    }

    struct Decline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Decline a request.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Request id or unique id prefix.") var id: String
        @Option(help: "Why, kept in the request's history.") var reason: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.declineRequest(id, reason: reason) }
        }
    }

    struct AutoApprove: AsyncParsableCommand {
        enum Switch: String, ExpressibleByArgument, CaseIterable { case on, off }
        static let configuration = CommandConfiguration(
            commandName: "auto-approve", abstract: "Approve claims and accepted swaps that pass every rule at once (on), or not (off).")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "on or off.") var value: Switch

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.setAutoApprove(value == .on) }
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Cancel your own open request.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Request id or unique id prefix.") var id: String
        @Option(help: "Why, kept in the request's history.") var reason: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.cancelRequest(id, reason: reason) }
        }
    }
}
