import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// The bounds and defaults of event settings (EV-1) and what stays editable once photos exist (EV-2).
package enum EventRules {
    /// RET-3: guests are warned in the last days before everything disappears.
    package static let deletionWarning: TimeInterval = 3 * 86_400

    package static let maxNameLength = 80
    package static let maxDescriptionLength = 2000
    package static let defaultDurationHours = 8 * 24
    package static let durationHours = 1...(30 * 24)
    package static let defaultShotsPerGuest = 27
    package static let shotsPerGuest = 1...1000
    package static let maxGuests = 1...100_000
    /// Six characters at least: with guesses limited per event, that keeps a password from falling in an evening.
    package static let passwordLength = 6...128
    /// A start a little in the past is "now" (clocks of phones and servers differ).
    package static let clockSkew: TimeInterval = 5 * 60
    /// Events are planned at most this far ahead.
    package static let maxLeadTime: TimeInterval = 2 * 365 * 86_400

    /// Settings that may still change after the first photo: name, description, end time, downloads.
    package static let editableAfterFirstPhoto: Set<String> = [
        "name", "description", "durationHours", "endsAt", "allowGuestDownloads", "requireApproval", "allowVideos",
    ]

    /// A new event's settings before the organizer's input: starting now, the default length and shots.
    package static func newEvent(by organizerID: String, now: Date) -> Event {
        Event(
            id: newID(), organizerID: organizerID, code: EventCode.random(), joinKey: Event.newJoinKey(), name: "", description: "",
            startsAt: now, endsAt: now + TimeInterval(defaultDurationHours) * 3600,
            shotsPerGuest: defaultShotsPerGuest, revealMode: .now, revealAt: nil,
            allowLibraryUploads: true, allowGuestDownloads: true, passwordHash: nil, maxGuests: nil,
            guestCount: 0, firstPhotoAt: nil, createdAt: now)
    }

    /// Applies `input` to `event` (a new event's defaults on create), validating every field.
    /// Returns the new settings and the plain password to hash, if one was set (`.some(nil)`: removed).
    package static func apply(
        _ input: EventSettingsInput, to original: Event, isNew: Bool, now: Date
    ) throws -> (event: Event, newPassword: String??) {
        if original.hasPhotos { try checkLockedFields(input, of: original) }
        var event = original
        try applyTexts(input, to: &event, isNew: isNew)
        try applyTimes(input, to: &event, original: original, isNew: isNew, now: now)
        try applyShotsAndReveal(input, to: &event)
        try applySwitches(input, to: &event)
        try applyMaxGuests(input, to: &event, original: original)
        return (event, try newPassword(input))
    }

    /// EV-2: after the first photo, a locked setting may only be sent again unchanged (forms post everything).
    private static func checkLockedFields(_ input: EventSettingsInput, of original: Event) throws {
        for field in EventSettingsInput.fields.subtracting(editableAfterFirstPhoto).sorted() where input.isPresent(field) {
            guard try input.changes(field, of: original) else { continue }
            var problem = Problem.conflict(
                "setting-locked",
                "The setting “\(field)” can no longer be changed: guests have already taken photos. "
                    + "Only the name, description, end time, approval and download and video permissions stay editable.")
            problem.extensions["field"] = field
            throw problem
        }
    }

    private static func applyTexts(_ input: EventSettingsInput, to event: inout Event, isNew: Bool) throws {
        switch input.name {
        case .absent: if isNew { throw Problem.invalidField("name", "Please give the event a name.") }
        case .null: throw Problem.invalidField("name", "Please give the event a name.")
        case .value(let raw): event.name = try name(raw)
        }
        switch input.description {
        case .absent: break
        case .null: event.description = ""
        case .value(let raw):
            let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.count <= maxDescriptionLength else {
                throw Problem.invalidField("description", "The description must be at most \(maxDescriptionLength) characters long.")
            }
            event.description = text
        }
    }

    /// Start, then end (by length or by time). Moving the start keeps the length unless a new length or end is given.
    private static func applyTimes(_ input: EventSettingsInput, to event: inout Event, original: Event, isNew: Bool, now: Date) throws {
        let duration = event.endsAt.timeIntervalSince(event.startsAt)
        if case .value(let raw) = input.startsAt {
            let start = try time(raw, field: "startsAt")
            if start != original.startsAt || isNew {
                guard start >= now - clockSkew else {
                    throw Problem.invalidField("startsAt", "The start time (startsAt) cannot be in the past.")
                }
                guard start <= now + maxLeadTime else {
                    throw Problem.invalidField("startsAt", "The start time (startsAt) must be within the next two years.")
                }
                event.startsAt = max(start, now)
            }
        } else if case .null = input.startsAt {
            if isNew { event.startsAt = now } else { throw Problem.invalidField("startsAt", "The start time (startsAt) cannot be empty.") }
        }
        event.endsAt = event.startsAt + duration

        switch (input.durationHours, input.endsAt) {
        case (.value, .value):
            throw Problem.badRequest("Give either durationHours or endsAt, not both.", field: "endsAt")
        case (.value(let hours), _):
            guard durationHours.contains(hours) else {
                throw Problem.invalidField(
                    "durationHours", "The duration (durationHours) must be between 1 hour and 30 days (720 hours).")
            }
            event.endsAt = event.startsAt + TimeInterval(hours) * 3600
        case (_, .value(let raw)):
            let end = try time(raw, field: "endsAt")
            let hours = end.timeIntervalSince(event.startsAt) / 3600
            guard hours >= Double(durationHours.lowerBound), hours <= Double(durationHours.upperBound) else {
                throw Problem.invalidField("endsAt", "The end time (endsAt) must be between 1 hour and 30 days after the start.")
            }
            guard end > now else {
                throw Problem.invalidField("endsAt", "The end time (endsAt) must be in the future. To end the event now, use “End now”.")
            }
            event.endsAt = end
        case (.null, _), (_, .null):
            throw Problem.invalidField(input.durationHours.isPresent ? "durationHours" : "endsAt", "The end of the event cannot be empty.")
        default:
            if isNew { event.endsAt = event.startsAt + TimeInterval(defaultDurationHours) * 3600 }
        }
    }

    private static func applyShotsAndReveal(_ input: EventSettingsInput, to event: inout Event) throws {
        switch input.shotsPerGuest {
        case .absent: break
        case .null: throw Problem.invalidField("shotsPerGuest", "The number of shots per guest (shotsPerGuest) cannot be empty.")
        case .value(let shots):
            guard shotsPerGuest.contains(shots) else {
                throw Problem.invalidField("shotsPerGuest", "The number of shots per guest (shotsPerGuest) must be between 1 and 1000.")
            }
            event.shotsPerGuest = shots
        }

        switch input.reveal {
        case .absent: break
        case .null: event.revealMode = .now; event.revealAt = nil
        case .value(let reveal):
            guard let mode = RevealMode(rawValue: reveal.mode ?? "") else {
                throw Problem.invalidField("reveal.mode", "The reveal mode (reveal.mode) must be “now”, “at-end” or “at”.")
            }
            event.revealMode = mode
            event.revealAt = nil
            if mode == .at {
                guard let raw = reveal.at else {
                    throw Problem.invalidField("reveal.at", "Choose when the photos are revealed (reveal.at).")
                }
                event.revealAt = try time(raw, field: "reveal.at")
            } else if reveal.at != nil {
                throw Problem.invalidField("reveal.at", "A reveal time (reveal.at) is only used with the reveal mode “at”.")
            }
        }
        if event.revealMode == .at, let at = event.revealAt {
            guard at >= event.startsAt, at <= event.endsAt + 30 * 86_400 else {
                throw Problem.invalidField("reveal.at", "The reveal time (reveal.at) must be after the start and at most 30 days after the end.")
            }
        }
    }

    private static func applySwitches(_ input: EventSettingsInput, to event: inout Event) throws {
        if case .value(let allowed) = input.allowLibraryUploads { event.allowLibraryUploads = allowed }
        if case .null = input.allowLibraryUploads { throw Problem.invalidField("allowLibraryUploads", "allowLibraryUploads must be true or false.") }
        if case .value(let allowed) = input.allowGuestDownloads { event.allowGuestDownloads = allowed }
        if case .null = input.allowGuestDownloads { throw Problem.invalidField("allowGuestDownloads", "allowGuestDownloads must be true or false.") }
        if case .value(let required) = input.requireApproval { event.requireApproval = required }
        if case .null = input.requireApproval { throw Problem.invalidField("requireApproval", "requireApproval must be true or false.") }
        if case .value(let counted) = input.postsCountAsShots { event.postsCountAsShots = counted }
        if case .null = input.postsCountAsShots { throw Problem.invalidField("postsCountAsShots", "postsCountAsShots must be true or false.") }
        if case .value(let allowed) = input.allowVideos { event.allowVideos = allowed }
        if case .null = input.allowVideos { throw Problem.invalidField("allowVideos", "allowVideos must be true or false.") }
    }

    private static func applyMaxGuests(_ input: EventSettingsInput, to event: inout Event, original: Event) throws {
        switch input.maxGuests {
        case .absent: break
        case .null: event.maxGuests = nil
        case .value(let max):
            guard maxGuests.contains(max) else {
                throw Problem.invalidField("maxGuests", "The maximum number of guests (maxGuests) must be between 1 and 100000.")
            }
            guard max >= original.guestCount else {
                throw Problem.invalidField(
                    "maxGuests", "The maximum number of guests (maxGuests) cannot be lower than the \(original.guestCount) guests who already joined."
                )
            }
            event.maxGuests = max
        }
    }

    /// `.none`: unchanged; `.some(nil)`: removed; `.some(password)`: to hash and set.
    private static func newPassword(_ input: EventSettingsInput) throws -> String?? {
        switch input.password {
        case .absent: return nil
        case .null: return .some(nil)
        case .value(let password) where password.isEmpty: return .some(nil)
        case .value(let password):
            guard password.count >= passwordLength.lowerBound else {
                throw Problem.invalidField(
                    "password", "An event password needs at least \(passwordLength.lowerBound) characters, so that it cannot be guessed.")
            }
            guard password.count <= passwordLength.upperBound, password.utf8.count <= 72 else {
                throw Problem.invalidField("password", "The event password must be at most 72 bytes long.")
            }
            return .some(password)
        }
    }

    package static func name(_ raw: String) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw Problem.invalidField("name", "Please give the event a name.") }
        guard name.count <= maxNameLength else {
            throw Problem.invalidField("name", "The event name must be at most \(maxNameLength) characters long.")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw Problem.invalidField("name", "The event name contains control characters.")
        }
        return name
    }

    /// An RFC 3339 time, to the millisecond.
    package static func time(_ raw: String, field: String) throws -> Date {
        guard let date = Date(rfc3339: raw) else {
            throw Problem.invalidField(field, "The time in “\(field)” must be an RFC 3339 date and time, like 2026-06-20T18:00:00Z.")
        }
        return date
    }
}

extension EventSettingsInput {
    package func isPresent(_ field: String) -> Bool {
        switch field {
        case "name": name.isPresent
        case "description": description.isPresent
        case "startsAt": startsAt.isPresent
        case "durationHours": durationHours.isPresent
        case "endsAt": endsAt.isPresent
        case "shotsPerGuest": shotsPerGuest.isPresent
        case "reveal": reveal.isPresent
        case "allowLibraryUploads": allowLibraryUploads.isPresent
        case "allowGuestDownloads": allowGuestDownloads.isPresent
        case "password": password.isPresent
        case "maxGuests": maxGuests.isPresent
        case "requireApproval": requireApproval.isPresent
        case "postsCountAsShots": postsCountAsShots.isPresent
        case "allowVideos": allowVideos.isPresent
        default: false
        }
    }

    /// Whether a locked field's value differs from the event's current one.
    package func changes(_ field: String, of event: Event) throws -> Bool {
        switch field {
        case "startsAt":
            if case .value(let raw) = startsAt { return try EventRules.time(raw, field: field) != event.startsAt }
        case "shotsPerGuest":
            if case .value(let shots) = shotsPerGuest { return shots != event.shotsPerGuest }
        case "reveal":
            if case .value(let reveal) = self.reveal {
                let at = try reveal.at.map { try EventRules.time($0, field: "reveal.at") }
                return reveal.mode != event.revealMode.rawValue || at != (event.revealMode == .at ? event.revealAt : nil)
            }
        case "allowLibraryUploads":
            if case .value(let allowed) = allowLibraryUploads { return allowed != event.allowLibraryUploads }
        case "postsCountAsShots":
            if case .value(let counted) = postsCountAsShots { return counted != event.postsCountAsShots }
        case "maxGuests":
            if case .value(let max) = maxGuests { return max != event.maxGuests }
            if case .null = maxGuests { return event.maxGuests != nil }
        case "password":
            // A password cannot be compared without hashing; any attempt to set one counts as a change.
            return true
        default:
            break
        }
        return true
    }
}
