import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// Support tickets (SUP-2, ADM-6): anyone writes to the admin through a contact form — guests and visitors
/// too, an e-mail address optional — within a rate limit; the admin reads them in the panel, answers by
/// e-mail when the instance has a mail server, and closes them.
package struct SupportService: Sendable {
    let rows: SupportRepository
    package let mailer: (any Mailer)?
    package let clock: any AppClock
    /// Tickets per client address (by default 5, then one more every 10 minutes).
    package let limiter: RateLimiter

    init(rows: SupportRepository, mailer: (any Mailer)?, clock: any AppClock, limiter: RateLimiter) {
        self.rows = rows
        self.mailer = mailer
        self.clock = clock
        self.limiter = limiter
    }

    package static let subjectLimit = 120
    package static let messageLimit = 5000

    /// Stores a ticket; a signed-in user's account address is used when they give none.
    package func open(_ request: NewTicketRequest, from identity: Identity?, client: String) async throws -> TicketJSON {
        let subject = try Self.text(request.subject, field: "subject", label: "subject", max: Self.subjectLimit, lines: false)
        let message = try Self.text(request.message, field: "message", label: "message", max: Self.messageLimit, lines: true)
        var email = try request.email.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : try Credentials.email($0) }
        var userID: String? = nil
        if case .user(let user, _) = identity {
            userID = user.id
            email = email ?? user.email
        }
        try await limiter.take(address: client)
        let (writer, address) = (userID, email)
        let ticket = TicketJSON(id: newID(), status: "open", subject: subject, createdAt: clock.now)
        try await rows.insert(ticket, userID: writer, email: address, message: message)
        return ticket
    }

    /// The admin's list: open ones first when `status` is nil, else only that status; the newest first.
    package func tickets(status: String?) async throws -> [TicketJSON] {
        if let status, !["open", "closed"].contains(status) {
            throw Problem.invalidField("status", "The status must be “open” or “closed”.")
        }
        return try await rows.list(status: status)
    }

    /// Answers by e-mail (then the ticket is answered) and/or closes or reopens it.
    package func update(_ id: String, with patch: TicketPatch) async throws -> TicketJSON {
        guard var ticket = try await rows.find(id) else { throw Problem.notFound("There is no ticket with this id.") }
        if let status = patch.status, !["open", "closed"].contains(status) {
            throw Problem.invalidField("status", "The status must be “open” or “closed”.")
        }
        if let raw = patch.answer {
            let answer = try Self.text(raw, field: "answer", label: "answer", max: Self.messageLimit, lines: true)
            guard let mailer else {
                throw Problem.conflict("mail-not-configured", "This server has no mail server (--smtp-url): answer the person another way.")
            }
            guard let email = ticket.email else {
                throw Problem.conflict("no-address", "This ticket has no e-mail address to answer to.")
            }
            do {
                try await mailer.send(MailMessage(to: email, subject: "Re: " + ticket.subject, body: answer))
            } catch {
                throw Problem(
                    .badGateway, "mail-failed", title: "Mail not sent", detail: "The answer could not be sent by mail: \(error). Try again later.")
            }
            let now = clock.now
            try await rows.setAnswer(id, answer, at: now)
            ticket.answer = answer
            ticket.answeredAt = now
        }
        if let status = patch.status {
            try await rows.setStatus(id, status, closedAt: status == "closed" ? clock.now : nil)
            ticket.status = status
        }
        return ticket
    }

    /// Trimmed, not empty, not too long, and no control or invisible formatting characters (line breaks and
    /// tabs allowed where `lines`).
    package static func text(_ raw: String?, field: String, label: String, max: Int, lines: Bool) throws -> String {
        let text = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw Problem.invalidField(field, "Please write a \(label).") }
        guard text.count <= max else { throw Problem.invalidField(field, "The \(label) must be at most \(max) characters long.") }
        let hidden = text.unicodeScalars.contains { scalar in
            if lines && (scalar == "\n" || scalar == "\r" || scalar == "\t") { return false }
            return [.control, .format].contains(scalar.properties.generalCategory) && scalar != "\u{200D}"
        }
        guard !hidden else { throw Problem.invalidField(field, "The \(label) contains characters that cannot be shown (control characters).") }
        return text
    }
}
