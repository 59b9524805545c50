import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation

/// The create/settings form of an event: form fields ↔ the API's settings, and errors shown by their field.
package struct EventForm {
    package let web: WebRequest
    package let values: [String: String]
    /// Settings that cannot change once the first photo is in (EV-2) are shown but disabled.
    package let locked: Bool

    package init(web: WebRequest, values: [String: String], locked: Bool) {
        self.web = web
        self.values = values
        self.locked = locked
    }

    package init(web: WebRequest, event: Event) {
        var values: [String: String] = [
            "name": event.name, "description": event.description, "startsAt": web.localInputValue(event.startsAt),
            "endsAt": web.localInputValue(event.endsAt), "shotsPerGuest": "\(event.shotsPerGuest)", "revealMode": event.revealMode.rawValue,
            "revealAt": event.revealAt.map(web.localInputValue) ?? "", "maxGuests": event.maxGuests.map(String.init) ?? "",
        ]
        if event.allowLibraryUploads { values["allowLibraryUploads"] = "on" }
        if event.allowGuestDownloads { values["allowGuestDownloads"] = "on" }
        if event.requireApproval { values["requireApproval"] = "on" }
        if event.postsCountAsShots { values["postsCountAsShots"] = "on" }
        if event.allowVideos { values["allowVideos"] = "on" }
        self.init(web: web, values: values, locked: event.hasPhotos)
    }

    private func on(_ key: String) -> Bool { values[key] == "on" }

    /// The form as API settings. Against an existing event, times that did not change at the form's
    /// minute precision are left out, so an untouched form never trips the EV-2 lock.
    package func input(comparedTo original: Event?) throws -> EventSettingsInput {
        var input = EventSettingsInput()
        input.name = .value(values["name"] ?? "")
        input.description = .value(values["description"] ?? "")
        func time(_ key: String, _ current: Date?) throws -> PatchValue<String> {
            guard let raw = values[key], !raw.isEmpty else { return .absent }
            if let current, raw == web.localInputValue(current) { return .absent }
            guard let rfc = web.rfc3339(fromLocalInput: raw) else { throw Problem.invalidField(key, web.t("problem_invalid_time")) }
            return .value(rfc)
        }
        if !locked {
            input.startsAt = try time("startsAt", original?.startsAt)
            input.allowLibraryUploads = .value(on("allowLibraryUploads"))
            input.postsCountAsShots = .value(on("postsCountAsShots"))
            if let raw = values["shotsPerGuest"] {
                guard let shots = Int(raw) else { throw Problem.invalidField("shotsPerGuest", web.t("problem_whole_number")) }
                input.shotsPerGuest = .value(shots)
            }
            let mode = values["revealMode"] ?? "now"
            var reveal = RevealInput(mode: mode)
            if mode == "at" {
                guard let raw = values["revealAt"], let rfc = web.rfc3339(fromLocalInput: raw) else {
                    throw Problem.invalidField("revealAt", web.t("problem_reveal_time_needed"))
                }
                reveal.at = rfc
            }
            if original == nil || mode != original?.revealMode.rawValue
                || mode == "at" && values["revealAt"] != original?.revealAt.map(web.localInputValue)
            {
                input.reveal = .value(reveal)
            }
            let maxGuests = values["maxGuests"]?.trimmingCharacters(in: .whitespaces) ?? ""
            if maxGuests.isEmpty {
                if original?.maxGuests != nil { input.maxGuests = .null }
            } else {
                guard let max = Int(maxGuests) else { throw Problem.invalidField("maxGuests", web.t("problem_whole_number")) }
                input.maxGuests = .value(max)
            }
            if on("removePassword") {
                input.password = .null
            } else if let password = values["password"], !password.isEmpty {
                input.password = .value(password)
            }
        }
        input.endsAt = try time("endsAt", original?.endsAt)
        input.allowGuestDownloads = .value(on("allowGuestDownloads"))
        input.requireApproval = .value(on("requireApproval"))
        input.allowVideos = .value(on("allowVideos"))
        return input
    }

    /// What the form template shows: the values as typed, the switches, and each error by its field.
    package struct View: Sendable {
        package var name, description, startsAt, endsAt, shotsPerGuest, revealAt, maxGuests: String?
        /// The event's name as typed to confirm its deletion.
        package var confirm: String?
        package var allowLibraryUploads = false, allowGuestDownloads = false, requireApproval = false, postsCountAsShots = false, allowVideos = false
        package var revealNow = false, revealAtEnd = false, revealAt_mode = false
        package var locked = false
        package var error_name, error_description, error_startsAt, error_endsAt, error_shotsPerGuest, error_revealAt: String?
        package var error_maxGuests, error_password, error_allowLibraryUploads, error_allowGuestDownloads, error_confirm: String?
        /// A problem no field owns.
        package var error: String?
        package var hasError = false
        package var errorSummary: String?
    }

    package func view(error: Problem?) -> View {
        var view = View(
            name: values["name"], description: values["description"], startsAt: values["startsAt"], endsAt: values["endsAt"],
            shotsPerGuest: values["shotsPerGuest"], revealAt: values["revealAt"], maxGuests: values["maxGuests"], confirm: values["confirm"])
        (view.allowLibraryUploads, view.allowGuestDownloads, view.requireApproval, view.postsCountAsShots, view.allowVideos) =
            (on("allowLibraryUploads"), on("allowGuestDownloads"), on("requireApproval"), on("postsCountAsShots"), on("allowVideos"))
        let mode = values["revealMode"] ?? "now"
        (view.revealNow, view.revealAtEnd, view.revealAt_mode) = (mode == "now", mode == "at-end", mode == "at")
        view.locked = locked
        guard let error else { return view }
        let message = web.problemMessage(error)
        switch error.extensions["field"] {
        case "name": view.error_name = message
        case "description": view.error_description = message
        case "startsAt": view.error_startsAt = message
        case "endsAt", "durationHours": view.error_endsAt = message
        case "shotsPerGuest": view.error_shotsPerGuest = message
        case "reveal", "revealAt", "reveal.at": view.error_revealAt = message
        case "maxGuests": view.error_maxGuests = message
        case "password": view.error_password = message
        case "allowLibraryUploads": view.error_allowLibraryUploads = message
        case "allowGuestDownloads": view.error_allowGuestDownloads = message
        case "confirm": view.error_confirm = message
        default: view.error = message
        }
        view.hasError = true
        view.errorSummary = message
        return view
    }
}
