import Testing
import TestSupport

extension PostgresTestServer {
    static let skipReason = Comment(rawValue: skipText)
}
