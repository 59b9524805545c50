import DisposableAPI
import Foundation

/// The create/settings form of an event: form fields ↔ the API's settings, and errors shown by their field.
struct EventForm {
    let web: WebRequest
    let values: [String: String]
    /// Settings that cannot change once the first photo is in (EV-2) are shown but disabled.
    let locked: Bool

    init(web: WebRequest, values: [String: String], locked: Bool) {
        self.web = web
        self.values = values
        self.locked = locked
    }

    init(web: WebRequest, event: Event) {
        var values: [String: String] = [
            "name": event.name, "description": event.description, "startsAt": web.localInputValue(event.startsAt),
            "endsAt": web.localInputValue(event.endsAt), "shotsPerGuest": "\(event.shotsPerGuest)", "revealMode": event.revealMode.rawValue,
            "revealAt": event.revealAt.map(web.localInputValue) ?? "", "maxGuests": event.maxGuests.map(String.init) ?? "",
        ]
        if event.allowLibraryUploads { values["allowLibraryUploads"] = "on" }
        if event.allowGuestDownloads { values["allowGuestDownloads"] = "on" }
        if event.requireApproval { values["requireApproval"] = "on" }
        self.init(web: web, values: values, locked: event.hasPhotos)
    }

    private func on(_ key: String) -> Bool { values[key] == "on" }

    /// The form as API settings. Against an existing event, times that did not change at the form's
    /// minute precision are left out, so an untouched form never trips the EV-2 lock.
    func input(comparedTo original: Event?) throws -> EventSettingsInput {
        var json: [String: Any] = [:]
        json["name"] = values["name"] ?? ""
        json["description"] = values["description"] ?? ""
        func time(_ key: String, _ current: Date?) throws {
            guard let raw = values[key], !raw.isEmpty else { return }
            if let current, raw == web.localInputValue(current) { return }
            guard let rfc = web.rfc3339(fromLocalInput: raw) else { throw Problem.invalidField(key, web.t("problem_invalid_time")) }
            json[key] = rfc
        }
        if !locked {
            try time("startsAt", original?.startsAt)
            json["allowLibraryUploads"] = on("allowLibraryUploads")
            if let raw = values["shotsPerGuest"] {
                guard let shots = Int(raw) else { throw Problem.invalidField("shotsPerGuest", web.t("problem_whole_number")) }
                json["shotsPerGuest"] = shots
            }
            let mode = values["revealMode"] ?? "now"
            var reveal: [String: Any] = ["mode": mode]
            if mode == "at" {
                guard let raw = values["revealAt"], let rfc = web.rfc3339(fromLocalInput: raw) else {
                    throw Problem.invalidField("revealAt", web.t("problem_reveal_time_needed"))
                }
                reveal["at"] = rfc
            }
            if original == nil || mode != original?.revealMode.rawValue
                || mode == "at" && reveal["at"] as? String != nil
                    && values["revealAt"] != original?.revealAt.map(web.localInputValue)
            {
                json["reveal"] = reveal
            }
            let maxGuests = values["maxGuests"]?.trimmingCharacters(in: .whitespaces) ?? ""
            if maxGuests.isEmpty {
                if original?.maxGuests != nil { json["maxGuests"] = NSNull() }
            } else {
                guard let max = Int(maxGuests) else { throw Problem.invalidField("maxGuests", web.t("problem_whole_number")) }
                json["maxGuests"] = max
            }
            if on("removePassword") {
                json["password"] = NSNull()
            } else if let password = values["password"], !password.isEmpty {
                json["password"] = password
            }
        }
        try time("endsAt", original?.endsAt)
        json["allowGuestDownloads"] = on("allowGuestDownloads")
        json["requireApproval"] = on("requireApproval")
        let data = try JSONSerialization.data(withJSONObject: json)
        return try JSONDecoder().decode(EventSettingsInput.self, from: data)
    }

    func data(error: Problem?) -> [String: Any] {
        var data: [String: Any] = values.filter { $0.key != "password" }
        for key in ["allowLibraryUploads", "allowGuestDownloads", "requireApproval"] { data[key] = on(key) }
        let mode = values["revealMode"] ?? "now"
        data["revealNow"] = mode == "now"
        data["revealAtEnd"] = mode == "at-end"
        data["revealAt_mode"] = mode == "at"
        data["locked"] = locked
        if let error {
            let field = error.extensions["field"]
            let message = web.problemMessage(error)
            if let field,
                [
                    "name", "description", "startsAt", "endsAt", "durationHours", "shotsPerGuest", "reveal", "revealAt",
                    "maxGuests", "password", "allowLibraryUploads", "allowGuestDownloads", "confirm", "reveal.at",
                ].contains(field)
            {
                data["error_\(field.hasPrefix("reveal") ? "revealAt" : field == "durationHours" ? "endsAt" : field)"] = message
            } else {
                data["error"] = message
            }
            data["hasError"] = true
            data["errorSummary"] = message
        }
        return data
    }
}
