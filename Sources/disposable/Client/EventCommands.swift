import ArgumentParser
import DisposableClient
import Foundation

struct EventCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "event", abstract: "Create, list, show, end and download events; print their QR code.",
        subcommands: [Create.self, List.self, Show.self, QR.self, End.self, Download.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an event (it starts now unless --starts-at says otherwise).")

        @Option(help: "The event's name.") var name: String
        @Option(help: "Shots per guest.") var shots: Int?
        @Option(help: "How long it lasts, in hours.") var durationHours: Int?
        @Option(help: "When it starts (RFC 3339, e.g. 2026-06-20T14:00:00Z).") var startsAt: String?
        @Option(help: "When the gallery opens: now, at-end.") var reveal: String?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await withClient { client, _ in
                let starts = try startsAt.map { text in
                    guard let date = try? Date.ISO8601FormatStyle().parse(text) else {
                        throw CLIError.failed("--starts-at must be an RFC 3339 time such as 2026-06-20T14:00:00Z.")
                    }
                    return date
                }
                let revealMode = try reveal.map { text in
                    guard let mode = Components.Schemas.RevealMode(rawValue: text), mode != .at else {
                        throw CLIError.failed("--reveal must be now or at-end.")
                    }
                    return Components.Schemas.RevealInput(mode: mode)
                }
                let settings = Components.Schemas.EventSettings(
                    name: name, startsAt: starts, durationHours: durationHours, shotsPerGuest: shots, reveal: revealMode)
                let event = try await client.call { try await client.api.createEvent(body: .json(settings)).created.body.json }
                if output.json { try printJSON(event) } else { describe(event) }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The events you organize or joined.")
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await withClient { client, _ in
                let events = try await client.call { try await client.api.listEvents().ok.body.json.items }
                if output.json { return try printJSON(events) }
                if events.isEmpty { return print("No events yet: `disposable event create --name NAME`.") }
                for event in events {
                    print("\(event.id)  \(event.code)  \(event.status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0))  \(event.name)")
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One event's settings and numbers.")
        @Argument(help: "The event's id.") var id: String
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await withClient { client, _ in
                let event = try await client.call { try await client.api.getEvent(path: .init(id: id)).ok.body.json }
                if output.json { try printJSON(event) } else { describe(event) }
            }
        }
    }

    struct QR: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The event's QR code, in the terminal (or as a PNG file).")
        @Argument(help: "The event's id.") var id: String
        @Option(help: "Write the QR code as a PNG image to this file instead.") var png: String?
        @Option(help: "The PNG's size in pixels.") var size = 1024

        func run() async throws {
            try await withClient { client, _ in
                if let png {
                    let body = try await client.call {
                        try await client.api.getEventQRCodePNG(path: .init(id: id), query: .init(size: size)).ok.body.png
                    }
                    let data = try await Data(collecting: body, upTo: 16 << 20)
                    try data.write(to: URL(fileURLWithPath: png), options: .atomic)
                    return print("Wrote \(png) (\(data.count) bytes).")
                }
                let event = try await client.call { try await client.api.getEvent(path: .init(id: id)).ok.body.json }
                print(try TerminalQR.render(event.joinURL))
                print("\(event.name) — \(event.joinURL)  (code \(event.code))")
            }
        }
    }

    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End the event now: no more photos; the countdown to deletion starts.")
        @Argument(help: "The event's id.") var id: String
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await withClient { client, _ in
                let event = try await client.call { try await client.api.endEvent(path: .init(id: id)).ok.body.json }
                if output.json { try printJSON(event) } else { print("Ended \(event.name); it will be deleted on \(event.deletesAt.formatted()).") }
            }
        }
    }

    struct Download: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Download every photo of the event as one ZIP file.")
        @Argument(help: "The event's id.") var id: String
        @Option(name: .shortAndLong, help: "The ZIP file to write.") var output: String
        @OptionGroup var format: OutputOptions

        func run() async throws {
            try await withClient { client, _ in
                let bar = ProgressBar(enabled: !format.json, label: "Downloading")
                let written = try await client.downloadArchive(of: id, to: URL(fileURLWithPath: output)) { done, total in
                    bar.update(done: done, total: total)
                }
                bar.finish()
                if format.json {
                    try printJSON(["file": output, "bytes": String(written)])
                } else {
                    print("Wrote \(output) (\(ByteCountFormatter.string(fromByteCount: written, countStyle: .file))).")
                }
            }
        }
    }
}

/// An event in a few lines for a person.
private func describe(_ event: Components.Schemas.Event) {
    print(
        """
        \(event.name)  (\(event.status.rawValue))
          id        \(event.id)
          code      \(event.code)   \(event.joinURL)
          when      \(event.startsAt.formatted()) – \(event.endsAt.formatted())
          shots     \(event.shotsPerGuest) per guest, \(event.guestCount) guest(s)
          reveal    \(event.reveal.mode.rawValue), deleted on \(event.deletesAt.formatted())
        """)
}
