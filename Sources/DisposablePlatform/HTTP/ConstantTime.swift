import DisposableCore

extension String {
    /// Whether two secrets (a key, a token, a code) are equal, in a time that depends on their length only, so that
    /// how long a wrong guess takes does not say how much of it was right.
    package func equalsInConstantTime(_ other: String) -> Bool {
        utf8.count == other.utf8.count && zip(utf8, other.utf8).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
