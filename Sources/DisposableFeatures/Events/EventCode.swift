/// The short code people type or scan to join, e.g. `K7QX-M2PA`: 8 symbols of a 32-letter alphabet
/// without look-alikes (no 0/O, no 1/I), i.e. 40 random bits.
import DisposableCore
import DisposablePlatform

public struct EventCode: Sendable, Hashable, CustomStringConvertible {
    package static let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")

    /// The 8 symbols without the dash, as stored.
    public let symbols: String

    /// The code as printed: two groups of four.
    public var description: String { "\(symbols.prefix(4))-\(symbols.suffix(4))" }

    package init(symbols: String) {
        self.symbols = symbols
    }

    package static func random() -> EventCode {
        var generator = SystemRandomNumberGenerator()
        return EventCode(symbols: String((0..<8).map { _ in alphabet[Int(generator.next() % 32)] }))
    }

    /// What a person typed: any case, spaces or dashes anywhere. Nil if it cannot be a code.
    public init?(typed: String) {
        // Dashes and spaces as people type them; "+" is a space sent by a GET form ("786u 458k" → `786u+458k`).
        let cleaned = typed.uppercased().filter { !"- +".contains($0) }
        guard cleaned.count == 8, cleaned.allSatisfy(Self.alphabet.contains) else { return nil }
        symbols = cleaned
    }
}
