import Foundation

/// `POST /api/v1/support/tickets` (SUP-2): anyone writes to the admin; the e-mail is for the answer.
public struct NewTicketRequest: Codable, Sendable {
    public var email: String?
    public var subject: String?
    public var message: String?

    public init(email: String?, subject: String?, message: String?) {
        self.email = email
        self.subject = subject
        self.message = message
    }
}

/// A support ticket as its writer sees it once sent, and as the admin sees it.
public struct TicketJSON: Codable, Sendable, Equatable {
    public var id: String
    /// `open` or `closed`.
    public var status: String
    public var subject: String
    public var createdAt: Date
    /// Shown to the admin only.
    public var email: String?
    public var message: String?
    public var answer: String?
    public var answeredAt: Date?

    public init(
        id: String, status: String, subject: String, createdAt: Date, email: String? = nil, message: String? = nil, answer: String? = nil,
        answeredAt: Date? = nil
    ) {
        self.id = id
        self.status = status
        self.subject = subject
        self.createdAt = createdAt
        self.email = email
        self.message = message
        self.answer = answer
        self.answeredAt = answeredAt
    }
}

/// `GET /api/v1/admin/tickets`: the newest first.
public struct TicketList: Codable, Sendable {
    public var items: [TicketJSON]

    public init(items: [TicketJSON]) {
        self.items = items
    }
}

/// `PATCH /api/v1/admin/tickets/{id}`: close or reopen it, and/or answer it by e-mail (needs a mail server and
/// the writer's address).
public struct TicketPatch: Codable, Sendable {
    public var status: String?
    public var answer: String?

    public init(status: String? = nil, answer: String? = nil) {
        self.status = status
        self.answer = answer
    }
}
