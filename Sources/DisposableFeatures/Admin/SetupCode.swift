import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The one-time code that `/setup` asks for: without it, whoever reached a fresh instance on a
/// public address first would become its admin. It is made when the server starts without an admin, printed in
/// its log (only the person who started the server reads that), stored so that every instance of a scaled-out
/// deployment takes the same one, and removed with the first admin.
package enum SetupCode {
    /// `7KQX-M2PA-9RTB`: 12 symbols of the event codes' alphabet, 60 bits.
    package static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let symbols = (0..<12).map { _ in EventCode.alphabet[Int(generator.next() % 32)] }
        return stride(from: 0, to: 12, by: 4).map { String(symbols[$0..<($0 + 4)]) }.joined(separator: "-")
    }

    /// As typed: any case, spaces and dashes anywhere.
    package static func normalized(_ typed: String) -> String {
        typed.uppercased().filter { $0 != "-" && !$0.isWhitespace }
    }

    /// The stored code, made now if there is none.
    package static func current(in db: any SQLDatabase) async throws -> String {
        try await InstanceSettingsRepository.setupCode(candidate: random(), in: db)
    }

    /// Whether `typed` is the stored code (compared in constant time).
    package static func matches(_ typed: String, in db: any SQLDatabase) async throws -> Bool {
        let stored = normalized(try await current(in: db))
        return !stored.isEmpty && normalized(typed).equalsInConstantTime(stored)
    }

    package static func remove(in db: any SQLDatabase) async throws {
        try await InstanceSettingsRepository.removeSetupCode(in: db)
    }
}
