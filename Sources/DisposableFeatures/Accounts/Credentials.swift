import DisposableCore
import DisposablePlatform
import Foundation

/// Email and password rules for registering and logging in, with a message for each way to get them wrong
/// (the GuestBook seed's test table: blank fields, no “@”, no “.”, neither).
package enum Credentials {
    /// A normalised (trimmed, lowercased) email, or a problem that says what is wrong with it.
    package static func email(_ raw: String?) throws -> String {
        let email = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard !email.isEmpty else {
            throw Problem.invalidField("email", "Please enter your email address.")
        }
        guard email.count <= 254, !email.unicodeScalars.contains(where: isForbiddenInEmail) else {
            throw Problem.invalidField("email", "“\(email)” is not a valid email address.")
        }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        let hasAt = parts.count == 2
        let domain = hasAt ? parts[1] : ""
        let domainHasDot =
            domain.split(separator: ".", omittingEmptySubsequences: false).count >= 2
            && !domain.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
        switch (hasAt, email.contains(".")) {
        case (false, false):
            throw Problem.invalidField("email", "The email address “\(email)” is missing an “@” and a domain such as “example.com”.")
        case (false, true):
            throw Problem.invalidField("email", "The email address “\(email)” is missing an “@”.")
        default:
            break
        }
        guard !parts[0].isEmpty else {
            throw Problem.invalidField("email", "The email address “\(email)” needs a name before the “@”.")
        }
        guard domainHasDot else {
            throw Problem.invalidField("email", "The email address “\(email)” needs a domain with a dot after the “@”, such as “example.com”.")
        }
        return email
    }

    /// A password we accept for a new account.
    package static func newPassword(_ raw: String?) throws -> String {
        let password = raw ?? ""
        guard !password.isEmpty else { throw Problem.invalidField("password", "Please enter a password.") }
        guard password.count >= 8 else {
            throw Problem.invalidField("password", "The password must be at least 8 characters long.")
        }
        // bcrypt reads only the first 72 bytes; refusing more is more honest than silently ignoring them.
        guard password.utf8.count <= 72 else {
            throw Problem.invalidField("password", "The password must be at most 72 bytes long.")
        }
        return password
    }

    /// A password typed to log in: only presence is checked here.
    package static func loginPassword(_ raw: String?) throws -> String {
        guard let password = raw, !password.isEmpty else {
            throw Problem.invalidField("password", "Please enter your password.")
        }
        return password
    }

    private static func isForbiddenInEmail(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar.properties.isWhitespace
    }
}

/// Display names of people (accounts and guests): trimmed, 1…max characters, no control or bidi characters.
package enum DisplayName {
    package static func validate(_ raw: String?, field: String = "name", max: Int = 40) throws -> String {
        let name = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw Problem.invalidField(field, "Please enter a name.") }
        guard name.count <= max else {
            throw Problem.invalidField(field, "The name must be at most \(max) characters long.")
        }
        // Cc: control characters; Cf: invisible formatting such as U+202E, which reverses how text reads.
        // The zero-width joiner stays allowed: emoji such as 👩‍👩‍👧 are built with it.
        let hidden = name.unicodeScalars.contains {
            [.control, .format].contains($0.properties.generalCategory) && $0 != "\u{200D}"
        }
        guard !hidden else {
            throw Problem.invalidField(field, "The name contains characters that cannot be shown (control characters).")
        }
        return name
    }
}

/// A username: what friends type to find an account, and what shows in links — so a short, plain handle.
package enum Username {
    package static let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._")

    /// The stored form (lowercase), or nil for none (nil or blank).
    package static func validate(_ raw: String?) throws -> String? {
        let name = (raw ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        guard !name.isEmpty else { return nil }
        guard (3...30).contains(name.count), name.allSatisfy(allowed.contains), name.first != ".", name.last != "." else {
            throw Problem.invalidField(
                "username", "A username has 3 to 30 letters (a–z), digits, dots or underscores, and does not start or end with a dot.")
        }
        return name
    }
}
