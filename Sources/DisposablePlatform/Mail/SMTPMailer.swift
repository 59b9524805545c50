import DisposableCore
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// A plain-text e-mail to one person.
package struct MailMessage: Sendable {
    package let to: String
    package let subject: String
    package let body: String

    package init(to: String, subject: String, body: String) {
        self.to = to
        self.subject = subject
        self.body = body
    }
}

/// Sends mail through the instance's SMTP server (`--smtp-url`), for password resets and answers to tickets.
package protocol Mailer: Sendable {
    func send(_ message: MailMessage) async throws
}

/// `smtp://[user:password@]host[:port]` (plain, port 25 by default: a relay on the same machine or network) or
/// `smtps://…` (TLS from the first byte, port 465). No listed package speaks SMTP, so this is the small part of
/// RFC 5321 a submission needs: EHLO, AUTH PLAIN, MAIL, RCPT, DATA, QUIT.
package struct SMTPSettings: Sendable, Equatable {
    package let host: String
    package let port: Int
    package let tls: Bool
    package let user: String?
    package let password: String?
    /// `Disposable <photos@example.org>`: the From of every mail.
    package let from: String

    package init(url text: String, from: String) throws {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["smtp", "smtps"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw SMTPError("--smtp-url must look like smtp://host:25 or smtps://user:password@host:465.")
        }
        guard Self.address(in: from) != nil else { throw SMTPError("--mail-from must be an address, like photos@example.org.") }
        self.host = host
        tls = scheme == "smtps"
        port = url.port ?? (tls ? 465 : 25)
        user = url.user?.removingPercentEncoding
        password = url.password?.removingPercentEncoding
        self.from = from
    }

    /// `a@b.c` out of `Name <a@b.c>` or `a@b.c`; nil when there is no plain address (or it holds line breaks).
    package static func address(in text: String) -> String? {
        let inner = text.split(separator: "<").last.map { $0.split(separator: ">").first.map(String.init) ?? "" } ?? text
        let address = inner.trimmingCharacters(in: .whitespaces)
        guard address.contains("@"), !address.contains(where: { $0.isNewline || $0 == " " || $0 == "<" || $0 == ">" }) else { return nil }
        return address
    }
}

package struct SMTPError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

package struct SMTPMailer: Mailer {
    package let settings: SMTPSettings
    package let logger: Logger

    package init(settings: SMTPSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    package func send(_ message: MailMessage) async throws {
        guard let recipient = SMTPSettings.address(in: message.to), let sender = SMTPSettings.address(in: settings.from) else {
            throw SMTPError("A mail needs plain addresses.")
        }
        let tls = try settings.tls ? NIOSSLContext(configuration: .makeClientConfiguration()) : nil
        let host = settings.host
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: host, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: host)) }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        try await withThrowingTaskGroup(of: Void.self) { group in
            // A server that stops answering must not hold a reset request forever.
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                throw SMTPError("The mail server did not answer within 30 seconds.")
            }
            group.addTask {
                try await channel.executeThenClose { inbound, outbound in
                    var replies = SMTPReplies(inbound.makeAsyncIterator())
                    func command(_ line: String, expect codes: Set<Int>) async throws {
                        try await outbound.write(ByteBuffer(string: line + "\r\n"))
                        try await replies.expect(codes, after: line.hasPrefix("AUTH") ? "AUTH" : line)
                    }
                    try await replies.expect([220], after: "connecting")
                    try await command("EHLO \(ProcessInfo.processInfo.hostName)", expect: [250])
                    if let user = settings.user {
                        let credentials = Data("\0\(user)\0\(settings.password ?? "")".utf8).base64EncodedString()
                        try await command("AUTH PLAIN \(credentials)", expect: [235])
                    }
                    try await command("MAIL FROM:<\(sender)>", expect: [250])
                    try await command("RCPT TO:<\(recipient)>", expect: [250, 251])
                    try await command("DATA", expect: [354])
                    try await outbound.write(ByteBuffer(string: Self.data(message, from: settings.from, to: recipient, sender: sender)))
                    try await replies.expect([250], after: "the message")
                    try await outbound.write(ByteBuffer(string: "QUIT\r\n"))
                }
            }
            try await group.next()
            group.cancelAll()
        }
        logger.info("Mail sent to \(recipient): \(message.subject)")
    }

    /// The message as DATA sends it: headers, a base64 body (any language, no line-length or 8-bit worries),
    /// and the lone dot that ends it.
    package static func data(_ message: MailMessage, from: String, to recipient: String, sender: String) -> String {
        let date = Date().formatted(
            Date.VerbatimFormatStyle(
                format:
                    "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .defaultDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) +0000",
                locale: Locale(identifier: "en_US_POSIX"), timeZone: .gmt, calendar: Calendar(identifier: .gregorian)))
        let domain = sender.split(separator: "@").last.map(String.init) ?? "localhost"
        let subject = "=?UTF-8?B?\(Data(message.subject.utf8).base64EncodedString())?="
        let body = Data(message.body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n").utf8)
            .base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
        let headers = [
            "From: \(from.filter { !$0.isNewline })", "To: <\(recipient)>", "Subject: \(subject)", "Date: \(date)",
            "Message-ID: <\(newID())@\(domain)>", "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: base64", "Auto-Submitted: auto-generated",
        ]
        return headers.joined(separator: "\r\n") + "\r\n\r\n" + body + "\r\n.\r\n"
    }
}

/// The server's replies, line by line: `250-…` lines continue a reply, `250 …` ends it.
private struct SMTPReplies {
    var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    var pending = ""

    init(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator) {
        self.inbound = inbound
    }

    mutating func expect(_ codes: Set<Int>, after what: String) async throws {
        var text = ""
        while true {
            let line = try await nextLine()
            text += line + "\n"
            guard line.count >= 3, let code = Int(line.prefix(3)) else { throw SMTPError("The mail server answered “\(line)” to \(what).") }
            if line.count > 3 && line[line.index(line.startIndex, offsetBy: 3)] == "-" { continue }
            guard codes.contains(code) else { throw SMTPError("The mail server refused \(what): \(text.trimmingCharacters(in: .newlines))") }
            return
        }
    }

    private mutating func nextLine() async throws -> String {
        while true {
            // By bytes: "\r\n" is one Character to Swift, so a search for "\n" among Characters never finds it.
            if let end = pending.utf8.firstIndex(of: UInt8(ascii: "\n")) {
                var line = String(decoding: pending.utf8[..<end], as: UTF8.self)
                if line.hasSuffix("\r") { line.removeLast() }
                pending = String(decoding: pending.utf8[pending.utf8.index(after: end)...], as: UTF8.self)
                return line
            }
            guard pending.utf8.count < 65_536, let buffer = try await inbound.next() else {
                throw SMTPError("The mail server closed the connection.")
            }
            pending += String(buffer: buffer)
        }
    }
}
