import Foundation

/// A JSON member of a PATCH body: left out, set to null, or given a value.
enum PatchValue<Value: Decodable & Sendable>: Sendable {
    case absent, null, value(Value)

    var isPresent: Bool {
        if case .absent = self { return false }
        return true
    }
}

extension KeyedDecodingContainer {
    func patchValue<Value: Decodable & Sendable>(_ key: Key) throws -> PatchValue<Value> {
        guard contains(key) else { return .absent }
        if try decodeNil(forKey: key) { return .null }
        return .value(try decode(Value.self, forKey: key))
    }
}

/// `reveal: {mode, at?}` as clients send it.
struct RevealInput: Decodable, Sendable {
    let mode: String?
    let at: String?
}

/// The settings of an event as sent to create (`POST`) or edit (`PATCH`) it, before validation.
/// On create every member may be left out (defaults apply); on edit only what is sent changes.
struct EventSettingsInput: JSONBody, Sendable {
    static let fields: Set<String> = [
        "name", "description", "startsAt", "durationHours", "endsAt", "shotsPerGuest", "reveal",
        "allowLibraryUploads", "allowGuestDownloads", "password", "maxGuests", "requireApproval",
    ]

    var name: PatchValue<String> = .absent
    var description: PatchValue<String> = .absent
    var startsAt: PatchValue<String> = .absent
    var durationHours: PatchValue<Int> = .absent
    var endsAt: PatchValue<String> = .absent
    var shotsPerGuest: PatchValue<Int> = .absent
    var reveal: PatchValue<RevealInput> = .absent
    var allowLibraryUploads: PatchValue<Bool> = .absent
    var allowGuestDownloads: PatchValue<Bool> = .absent
    var password: PatchValue<String> = .absent
    var maxGuests: PatchValue<Int> = .absent
    var requireApproval: PatchValue<Bool> = .absent

    private enum CodingKeys: String, CodingKey {
        case name, description, startsAt, durationHours, endsAt, shotsPerGuest, reveal
        case allowLibraryUploads, allowGuestDownloads, password, maxGuests, requireApproval
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.patchValue(.name)
        description = try container.patchValue(.description)
        startsAt = try container.patchValue(.startsAt)
        durationHours = try container.patchValue(.durationHours)
        endsAt = try container.patchValue(.endsAt)
        shotsPerGuest = try container.patchValue(.shotsPerGuest)
        reveal = try container.patchValue(.reveal)
        allowLibraryUploads = try container.patchValue(.allowLibraryUploads)
        allowGuestDownloads = try container.patchValue(.allowGuestDownloads)
        password = try container.patchValue(.password)
        maxGuests = try container.patchValue(.maxGuests)
        requireApproval = try container.patchValue(.requireApproval)
    }
}
