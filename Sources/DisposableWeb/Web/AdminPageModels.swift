import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation

/// `/admin`: what the panel shows, worded for the reader (ADM-4..6).
package struct AdminPage: Sendable {
    package struct Account: Sendable {
        package let id: String
        package let email: String
        package let name: String
        package let isAdmin: Bool
        /// Signs in with the instance's OpenID Connect provider.
        package let usesOpenID: Bool
        package let isMe: Bool
        /// "50 GB", "2 GB (own)".
        package let quotaText: String
        /// The quota field's value in GB; empty when the account follows the default.
        package let quotaGB: String
        /// "1.2 GB used (2 %)".
        package let usedText: String
        package let percent: Int
        package let nearlyFull: Bool
        package let confirmTitle: String
        package let face: Face

        package init(
            id: String, email: String, name: String, isAdmin: Bool, usesOpenID: Bool, isMe: Bool, quotaText: String, quotaGB: String,
            usedText: String, percent: Int, nearlyFull: Bool, confirmTitle: String, face: Face
        ) {
            self.id = id
            self.email = email
            self.name = name
            self.isAdmin = isAdmin
            self.usesOpenID = usesOpenID
            self.isMe = isMe
            self.quotaText = quotaText
            self.quotaGB = quotaGB
            self.usedText = usedText
            self.percent = percent
            self.nearlyFull = nearlyFull
            self.confirmTitle = confirmTitle
            self.face = face
        }
    }

    package struct Bar: Sendable {
        package let x: Int
        package let y: Int
        package let height: Int
        package let title: String
    }

    package struct ResetLink: Sendable {
        package let text: String
        package let url: String
    }

    package struct Record: Sendable {
        package let when: TimeText
        package let text: String
    }

    /// An open support ticket (SUP-2).
    package struct Ticket: Sendable {
        package let id: String
        package let subject: String
        package let from: String
        package let when: TimeText
        package let message: String
        package let canAnswer: Bool
    }

    package let notice: String?
    package let error: String?
    package let figures: [String]
    package let bars: [Bar]
    package let chartLabel: String
    package let firstDay: String
    package let lastDay: String
    package let registrationEnabled: Bool
    package let defaultQuotaGB: String
    package let accounts: [Account]
    package let nextURL: String?
    package let records: [Record]
    package let hasRecords: Bool
    package let formEmail: String
    package let formName: String
    package let resetLink: ResetLink?
    package let tickets: [Ticket]
    package let hasTickets: Bool
    /// The latest closed tickets, to look back at or reopen.
    package let closedTickets: [Ticket]
    package let hasClosedTickets: Bool
    package static let closedTicketsShown = 50
    package let canAnswer: Bool
    /// Forwarding headers arrive from this machine and no proxy is trusted.
    package let proxyWarning: String?
    /// The last errors browsers met on the pages.
    package let clientErrors: [ClientError]
    package let hasClientErrors: Bool

    package struct ClientError: Sendable {
        package let message: String
        package let page: String
        package let browser: String
        package let when: TimeText
        package let stack: String?
    }

    package static let chartWidth = 300
    package static let chartHeight = 80

    package init(
        web: WebRequest, me: String, stats: InstanceStats, settings: InstanceSettingsJSON, users: AdminUserList, records: [DeletionRecord],
        notice: String?, error: String?, form: [String: String], resetLink: ResetLink? = nil, tickets: [TicketJSON] = [],
        closedTickets: [TicketJSON] = [], canAnswer: Bool = false, proxyWarning: String? = nil, clientErrors: [ClientErrorJSON] = []
    ) {
        self.notice = notice
        self.clientErrors = clientErrors.map {
            ClientError(
                message: $0.message, page: $0.page, browser: $0.browser.map { AccountPages.device($0, web) } ?? web.t("account_unknown_device"),
                when: web.time($0.at), stack: $0.stack)
        }
        hasClientErrors = !clientErrors.isEmpty
        self.proxyWarning = proxyWarning
        self.error = error
        var figures = [
            web.plural("admin_users_count", stats.users),
            web.t("admin_events_count", ["live": "\(stats.events.live)", "upcoming": "\(stats.events.upcoming)", "ended": "\(stats.events.ended)"]),
            web.plural("photo_count", stats.photos),
            web.t("admin_stored", ["size": web.size(stats.storage.storedBytes)]),
            web.plural("admin_queue", stats.renderQueueDepth),
        ]
        if let free = stats.storage.diskFreeBytes, let total = stats.storage.diskTotalBytes {
            figures.append(web.t("admin_disk", ["free": web.size(free), "total": web.size(total)]))
        } else if stats.storage.kind == "s3" {
            figures.append(web.t("admin_bucket"))
        }
        self.figures = figures
        let most = max(1, stats.uploadsPerDay.map(\.uploads).max() ?? 1)
        let slot = Self.chartWidth / max(1, stats.uploadsPerDay.count)
        bars = stats.uploadsPerDay.enumerated().map { index, day in
            let height = day.uploads == 0 ? 0 : max(2, day.uploads * Self.chartHeight / most)
            return Bar(x: index * slot, y: Self.chartHeight - height, height: height, title: "\(day.day): \(day.uploads)")
        }
        let total = stats.uploadsPerDay.reduce(0) { $0 + $1.uploads }
        chartLabel = web.plural("admin_uploads_30_days", total)
        // "26 Oct 2026", "26 oct. 2026": the API's UTC days in the reader's words.
        func day(_ text: String?) -> String {
            guard let text, let date = Date(rfc3339: text + "T12:00:00Z") else { return text ?? "" }
            return web.shortDate(date)
        }
        firstDay = day(stats.uploadsPerDay.first?.day)
        lastDay = day(stats.uploadsPerDay.last?.day)
        registrationEnabled = settings.registrationEnabled ?? true
        defaultQuotaGB = Self.gigabytes(settings.defaultQuotaBytes ?? Quota.builtInDefault)
        accounts = users.items.map { user in
            let percent = user.quotaBytes > 0 ? Int(min(100, user.usedBytes * 100 / user.quotaBytes)) : 100
            return Account(
                id: user.id, email: user.email, name: user.name, isAdmin: user.isAdmin, usesOpenID: user.usesOpenID, isMe: user.id == me,
                quotaText: web.size(user.quotaBytes) + (user.quotaIsDefault ? "" : " " + web.t("admin_quota_own")),
                quotaGB: user.quotaIsDefault ? "" : Self.gigabytes(user.quotaBytes),
                usedText: web.t("admin_used", ["size": web.size(user.usedBytes), "percent": "\(percent)"]), percent: percent,
                nearlyFull: Quota.Usage(used: user.usedBytes, allowed: user.quotaBytes, own: nil).nearlyFull,
                confirmTitle: web.t("admin_delete_named", ["email": user.email]), face: Face(name: user.name, url: user.avatarURL))
        }
        nextURL = users.nextCursor.map { "/admin?after=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")#users" }
        self.records = records.map { record in
            Record(
                when: web.time(record.deletedAt),
                text: web.t(
                    "admin_record",
                    [
                        "reason": web.t("admin_reason_\(record.reason)"), "photos": web.plural("photo_count", record.photoCount),
                        "size": web.size(record.byteCount),
                    ]))
        }
        hasRecords = !records.isEmpty
        formEmail = form["email"] ?? ""
        formName = form["name"] ?? ""
        self.resetLink = resetLink
        self.tickets = tickets.map { ticket in
            Ticket(
                id: ticket.id, subject: ticket.subject, from: ticket.email ?? web.t("admin_ticket_anonymous"), when: web.time(ticket.createdAt),
                message: ticket.message ?? "", canAnswer: canAnswer && ticket.email != nil)
        }
        hasTickets = !tickets.isEmpty
        self.closedTickets = closedTickets.map { ticket in
            Ticket(
                id: ticket.id, subject: ticket.subject, from: ticket.email ?? web.t("admin_ticket_anonymous"), when: web.time(ticket.createdAt),
                message: ticket.message ?? "", canAnswer: false)
        }
        hasClosedTickets = !closedTickets.isEmpty
        self.canAnswer = canAnswer
    }

    /// The message a redirect's `done=` names.
    package static func notice(_ done: String) -> String? {
        [
            "settings": "admin_saved", "added": "admin_added", "quota": "admin_quota_saved", "deleted": "admin_deleted",
            "ticket": "admin_ticket_saved",
        ][done]
    }

    /// "50", "2.5": the quota fields speak gigabytes.
    /// Bytes as gigabytes to the byte ("0.015", "2.5", "50"): the field saved again unchanged keeps the quota exactly.
    package static func gigabytes(_ bytes: Int64) -> String {
        let (whole, part) = bytes.quotientAndRemainder(dividingBy: 1_000_000_000)
        guard part != 0 else { return String(whole) }
        var digits = String(part)
        digits = String(repeating: "0", count: 9 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)"
    }

    /// A typed number of gigabytes ("2", "2.5", "2,5") as bytes.
    package static func bytes(gigabytes text: String, field: String) throws -> Int64 {
        let normalized = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ".")
        // Read as a decimal, not a binary fraction: "0.015" is 15,000,000 bytes, not one byte less.
        guard normalized.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), normalized.filter({ $0 == "." }).count <= 1,
            let value = Decimal(string: normalized, locale: Locale(identifier: "en_US_POSIX")), value >= 0, value <= 1_000_000
        else {
            throw Problem.invalidField(field, "The quota must be a number of gigabytes, from 0 to 1,000,000.")
        }
        var bytes = value * 1_000_000_000
        var rounded = Decimal()
        NSDecimalRound(&rounded, &bytes, 0, .plain)
        return NSDecimalNumber(decimal: rounded).int64Value
    }
}

/// The delete confirmation as a page of its own, for a browser without scripts.
package struct AdminConfirmPage: Sendable {
    package let id: String
    package let email: String
}
