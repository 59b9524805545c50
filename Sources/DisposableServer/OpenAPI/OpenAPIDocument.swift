import DisposableAPI
import Foundation

/// The OpenAPI 3.1 description of the public API (API-1). A test fails when a registered route is
/// missing here, so the document stays true as routes are added.
enum OpenAPIDocument {
    struct Operation {
        let method: String
        let path: String
        let summary: String
        var auth: Bool = true
        var request: String? = nil
        var responses: [Int: String]
        var query: [String] = []
        /// Query parameters the route refuses to answer without.
        var requiredQuery: [String] = []
    }

    static let operations: [Operation] = [
        .init(
            method: "get", path: "/status", summary: "Server version and whether registration is open", auth: false,
            responses: [200: "Status"]),
        .init(
            method: "get", path: "/healthz", summary: "200 when the database and the media storage are usable", auth: false,
            responses: [200: "Health", 503: "Problem"]),
        .init(
            method: "get", path: "/metrics",
            summary: "OPS-2: Prometheus text (requests, uploads by outcome, render queue, live streams, bytes stored) for loopback "
                + "clients, the metrics token or an admin",
            responses: [200: "text/plain (Prometheus exposition format)", 403: "Problem"]),
        .init(
            method: "get", path: "/setup", summary: "First-run wizard page (only while no admin exists)", auth: false,
            responses: [200: "HTML page", 404: "HTML page"]),
        .init(
            method: "post", path: "/setup", summary: "Create the first admin (form-encoded email, password, name)", auth: false,
            responses: [201: "HTML page", 404: "HTML page", 422: "HTML page"]),
        .init(method: "get", path: "/api/v1/openapi.json", summary: "This document", auth: false, responses: [200: "OpenAPI document"]),
        .init(
            method: "post", path: "/api/v1/users", summary: "Register an account", auth: false, request: "Register",
            responses: [201: "User", 403: "Problem", 409: "Problem", 422: "Problem", 429: "Problem"]),
        .init(
            method: "post", path: "/api/v1/sessions", summary: "Log in; sets the session cookie too", auth: false, request: "Login",
            responses: [200: "Session", 401: "Problem", 422: "Problem", 429: "Problem"]),
        .init(
            method: "delete", path: "/api/v1/sessions/current", summary: "Log out (revokes the token)",
            responses: [204: "Logged out", 401: "Problem"]),
        .init(method: "get", path: "/api/v1/me", summary: "The current user or guest", responses: [200: "Me", 401: "Problem"]),
        .init(
            method: "post", path: "/api/v1/events", summary: "Create an event", request: "EventSettings",
            responses: [201: "Event", 401: "Problem", 403: "Problem", 422: "Problem"]),
        .init(method: "get", path: "/api/v1/events", summary: "My events: organized and joined", responses: [200: "EventList", 401: "Problem"]),
        .init(method: "get", path: "/api/v1/events/{id}", summary: "An event", responses: [200: "Event", 401: "Problem", 404: "Problem"]),
        .init(
            method: "patch", path: "/api/v1/events/{id}", summary: "Edit an event (EV-2: some settings lock after the first photo)",
            request: "EventSettings", responses: [200: "Event", 403: "Problem", 404: "Problem", 409: "Problem", 422: "Problem"]),
        .init(
            method: "delete", path: "/api/v1/events/{id}", summary: "Delete an event and everything in it",
            responses: [204: "Deleted", 403: "Problem", 404: "Problem"]),
        .init(
            method: "post", path: "/api/v1/events/{id}/end", summary: "End the event now",
            responses: [200: "Event", 403: "Problem", 404: "Problem"]),
        .init(
            method: "get", path: "/api/v1/events/{id}/qr.png", summary: "The event's QR code as PNG (organizer)",
            responses: [200: "PNG image", 403: "Problem", 404: "Problem", 422: "Problem"], query: ["size"]),
        .init(
            method: "get", path: "/api/v1/events/{id}/qr.svg", summary: "The event's QR code as SVG (organizer)",
            responses: [200: "SVG image", 403: "Problem", 404: "Problem", 422: "Problem"], query: ["size"]),
        .init(
            method: "post", path: "/api/v1/join", summary: "Join an event by its code as a guest", auth: false, request: "Join",
            responses: [201: "Joined", 403: "Problem", 404: "Problem", 409: "Problem", 422: "Problem", 429: "Problem"]),
        .init(
            method: "delete", path: "/api/v1/events/{id}/membership", summary: "Leave an event (the guest's photos stay)",
            responses: [204: "Left", 401: "Problem", 404: "Problem", 409: "Problem"]),
        .init(
            method: "post", path: "/api/v1/photos/{id}/approve",
            summary: "ORG-4: let a guest's photo into the gallery (events with requireApproval); refuse it with DELETE",
            responses: [200: "Photo", 401: "Problem", 403: "Problem", 404: "Problem"]),
        .init(
            method: "post", path: "/api/v1/events/{id}/membership/link",
            summary: "JN-5: a one-time personal link (valid a day) that signs another device in as this guest",
            responses: [201: "PersonalLink", 401: "Problem", 404: "Problem", 409: "Problem"]),
        .init(
            method: "delete", path: "/api/v1/events/{id}/membership/link",
            summary: "JN-5: stop the guest's personal link before it is used (creating a new one also replaces it)",
            responses: [204: "Stopped", 401: "Problem", 404: "Problem", 409: "Problem"]),
        .init(
            method: "post", path: "/api/v1/events/{id}/photos",
            summary: "Upload a photo: the body is the image's bytes; headers Idempotency-Key and X-Photo-Source: camera|library",
            request: "ImageBytes",
            responses: [
                200: "Photo", 201: "Photo", 403: "Problem", 409: "Problem", 413: "Problem", 415: "Problem", 422: "Problem", 503: "Problem",
                507: "Problem",
            ]),
        .init(
            method: "post", path: "/api/v1/events/{id}/photos/check", summary: "Which of these SHA-256 the event already has",
            request: "HashCheck", responses: [200: "HashCheckResult", 404: "Problem", 422: "Problem"]),
        .init(
            method: "get", path: "/api/v1/events/{id}/photos", summary: "The gallery (mine=true: my photos), newest first",
            responses: [200: "PhotoPage", 401: "Problem", 404: "Problem", 422: "Problem"], query: ["cursor", "limit", "order", "mine"]),
        .init(
            method: "get", path: "/api/v1/events/{id}/stats", summary: "The organizer's numbers",
            responses: [200: "Stats", 403: "Problem", 404: "Problem"]),
        .init(
            method: "get", path: "/api/v1/events/{id}/archive.zip", summary: "A streamed ZIP of the event's photos, or of ids=a,b,c",
            responses: [200: "ZIP archive", 403: "Problem", 404: "Problem"], query: ["ids"]),
        .init(method: "get", path: "/api/v1/photos/{id}", summary: "A photo's metadata", responses: [200: "Photo", 404: "Problem"]),
        .init(
            method: "delete", path: "/api/v1/photos/{id}", summary: "Delete a photo and its files (its shooter, or the organizer)",
            responses: [204: "Deleted", 403: "Problem", 404: "Problem"]),
        .init(
            method: "get", path: "/api/v1/photos/{id}/original", summary: "The original bytes (Range supported; GPS removed for others)",
            responses: [200: "Image", 206: "Image part", 403: "Problem", 404: "Problem", 416: "Range not satisfiable"]),
        .init(
            method: "get", path: "/api/v1/photos/{id}/preview", summary: "The ~1600 px JPEG preview",
            responses: [200: "JPEG image", 404: "Problem", 409: "Problem"]),
        .init(
            method: "get", path: "/api/v1/photos/{id}/thumbnail", summary: "The ~400 px JPEG thumbnail",
            responses: [200: "JPEG image", 404: "Problem", 409: "Problem"]),
        .init(
            method: "get", path: "/api/v1/media/{event}/{id}/{file}",
            summary: "A thumbnail.jpg or preview.jpg by the signed link in a Photo's urls: no session needed, valid 12–24 h",
            auth: false, responses: [200: "JPEG image", 403: "Problem", 404: "Problem"], requiredQuery: ["until", "sig"]),
        .init(
            method: "get", path: "/api/v1/events/{id}/changes",
            summary: "The change feed: Server-Sent Events (id = sequence number, resume with Last-Event-ID or lastEventId); "
                + "with Accept: application/json and since=N, JSON pages",
            responses: [200: "text/event-stream, or ChangePage", 401: "Problem", 404: "Problem", 422: "Problem"],
            query: ["lastEventId", "since", "limit"]),
        .init(
            method: "get", path: "/api/v1/events/{id}/guests", summary: "ORG-3: the guests still in the event, with their photo counts (organizer)",
            responses: [200: "EventGuestList", 401: "Problem", 403: "Problem", 404: "Problem"]),
        .init(
            method: "delete", path: "/api/v1/events/{id}/guests/{guest}",
            summary: "ORG-3: remove a guest (signed out at once, place freed); photos=true deletes their photos too (organizer)",
            responses: [204: "Removed", 401: "Problem", 403: "Problem", 404: "Problem", 422: "Problem"], query: ["photos"]),
        .init(
            method: "post", path: "/api/v1/events/{id}/wall",
            summary: "GAL-5: a new venue wall link (/w/KEY, opens without signing in); the previous one stops working (organizer)",
            responses: [201: "WallLink", 401: "Problem", 403: "Problem", 404: "Problem"]),
        .init(
            method: "delete", path: "/api/v1/events/{id}/wall", summary: "Turn the venue wall link off (organizer)",
            responses: [204: "Turned off", 401: "Problem", 403: "Problem", 404: "Problem"]),
        .init(
            method: "get", path: "/api/v1/walls/{key}/photos",
            summary: "The venue wall's photos: what every guest may see, newest first; the key is the wall link's",
            auth: false, responses: [200: "PhotoPage", 404: "Problem", 422: "Problem"], query: ["cursor", "limit"]),
        .init(
            method: "get", path: "/api/v1/walls/{key}/changes",
            summary: "The venue wall's change feed, as /api/v1/events/{id}/changes, while the wall link stands",
            auth: false, responses: [200: "text/event-stream, or ChangePage", 404: "Problem", 422: "Problem"],
            query: ["lastEventId", "since", "limit"]),
        .init(
            method: "get", path: "/api/v1/admin/deletions", summary: "Deleted events: ids, times, counts (admin)",
            responses: [200: "DeletionRecords", 401: "Problem", 403: "Problem"]),
        .init(
            method: "get", path: "/api/v1/admin/users", summary: "ADM-4: accounts by email with their quota and used space (admin)",
            responses: [200: "AdminUserList", 401: "Problem", 403: "Problem", 422: "Problem"], query: ["cursor", "limit"]),
        .init(
            method: "post", path: "/api/v1/admin/users", summary: "ADM-4: add an account (admin), whether registration is open or not",
            request: "NewUser", responses: [201: "AdminUser", 401: "Problem", 403: "Problem", 409: "Problem", 422: "Problem"]),
        .init(
            method: "patch", path: "/api/v1/admin/users/{id}",
            summary: "ADM-4: change an account's name, admin flag or quota (quotaBytes null: the instance's default) (admin)",
            request: "AdminUserPatch", responses: [200: "AdminUser", 401: "Problem", 403: "Problem", 404: "Problem", 409: "Problem", 422: "Problem"]),
        .init(
            method: "delete", path: "/api/v1/admin/users/{id}",
            summary: "ADM-4: delete an account and every file of theirs: their events, photos and sessions (admin)",
            responses: [204: "Deleted", 401: "Problem", 403: "Problem", 404: "Problem", 409: "Problem"]),
        .init(
            method: "get", path: "/api/v1/admin/settings", summary: "The instance's switches: registration, default quota (admin)",
            responses: [200: "InstanceSettings", 401: "Problem", 403: "Problem"]),
        .init(
            method: "patch", path: "/api/v1/admin/settings", summary: "Change the instance's switches; only what is sent changes (admin)",
            request: "InstanceSettings", responses: [200: "InstanceSettings", 401: "Problem", 403: "Problem", 422: "Problem"]),
        .init(
            method: "get", path: "/api/v1/admin/stats",
            summary: "ADM-6: users, events, photos, uploads per day (30 days), render queue, storage (admin)",
            responses: [200: "InstanceStats", 401: "Problem", 403: "Problem"]),
        .init(
            method: "post", path: "/api/v1/password-resets",
            summary: "ADM-3: mail a one-time link to set a new password, if the account exists and mail is configured (always 202)",
            auth: false, request: "PasswordResetRequest", responses: [202: "Accepted", 400: "Problem", 422: "Problem", 429: "Problem"]),
        .init(
            method: "post", path: "/api/v1/password-resets/{token}",
            summary: "ADM-3: set the new password with the link's token (once, within the hour); every session of the account ends",
            auth: false, request: "NewPassword", responses: [204: "Password set", 404: "Problem", 422: "Problem"]),
        .init(
            method: "post", path: "/api/v1/admin/users/{id}/password-reset",
            summary: "ADM-3: a one-time reset link for an account, to hand over when there is no mail server (admin)",
            responses: [201: "ResetLink", 401: "Problem", 403: "Problem", 404: "Problem"]),
        .init(
            method: "post", path: "/api/v1/me/password",
            summary: "Change my password (the current one first); my other sessions end", request: "PasswordChange",
            responses: [204: "Changed", 401: "Problem", 403: "Problem", 422: "Problem", 429: "Problem"]),
        .init(
            method: "get", path: "/api/v1/me/sessions", summary: "My sessions: device, since, last seen (to the hour), which one is asking",
            responses: [200: "SessionList", 401: "Problem", 403: "Problem"]),
        .init(
            method: "delete", path: "/api/v1/me/sessions", summary: "Sign out every session of mine but this one",
            responses: [204: "Signed out", 401: "Problem", 403: "Problem"]),
        .init(
            method: "delete", path: "/api/v1/me/sessions/{session}", summary: "Sign out one of my sessions (by the id the list gives)",
            responses: [204: "Signed out", 401: "Problem", 403: "Problem", 404: "Problem"]),
        .init(
            method: "post", path: "/api/v1/support/tickets",
            summary: "SUP-2: write to the admin (anyone; an e-mail address for the answer is optional; 5 per address, then one per 10 min)",
            auth: false, request: "NewTicket", responses: [201: "Ticket", 400: "Problem", 422: "Problem", 429: "Problem"]),
        .init(
            method: "get", path: "/api/v1/admin/tickets", summary: "SUP-2: support tickets, open ones first (admin)",
            responses: [200: "TicketList", 401: "Problem", 403: "Problem", 422: "Problem"], query: ["status"]),
        .init(
            method: "patch", path: "/api/v1/admin/tickets/{id}",
            summary: "SUP-2: answer a ticket by e-mail (needs --smtp-url and the writer's address) and/or close or reopen it (admin)",
            request: "TicketPatch",
            responses: [200: "Ticket", 401: "Problem", 403: "Problem", 404: "Problem", 409: "Problem", 422: "Problem", 502: "Problem"]),
        .init(
            method: "get", path: "/api/v1/me/export",
            summary: "SUP-4: a streamed ZIP of my own photos as I sent them, and data.json with everything stored about me",
            responses: [200: "ZIP archive", 401: "Problem"]),
        .init(
            method: "delete", path: "/api/v1/me",
            summary:
                "SUP-4: an account deletes itself and everything in it (confirmEmail: its address); a guest deletes all their photos in the event",
            request: "DeleteMe", responses: [204: "Deleted", 401: "Problem", 422: "Problem"]),
        .init(
            method: "patch", path: "/api/v1/me", summary: "SOC-5: change my display name", request: "ProfilePatch",
            responses: [200: "Profile", 400: "Problem", 401: "Problem", 403: "Problem", 422: "Problem"]),
        .init(
            method: "put", path: "/api/v1/me/avatar",
            summary: "SOC-5: my picture: the body is the image's bytes, checked and re-encoded (a 400 px JPEG, no metadata)",
            request: "ImageBytes", responses: [200: "Profile", 401: "Problem", 403: "Problem", 413: "Problem", 415: "Problem", 422: "Problem"]),
        .init(
            method: "delete", path: "/api/v1/me/avatar", summary: "SOC-5: remove my picture",
            responses: [204: "Removed", 401: "Problem", 403: "Problem"]),
        .init(
            method: "get", path: "/api/v1/users/{id}/avatar.jpg", summary: "SOC-5: an account's picture (anyone signed in)",
            responses: [200: "JPEG image", 401: "Problem", 404: "Problem"]),
    ]

    static var schemas: [String: Any] {
        [
            "Problem": object(["type": string, "title": string, "status": integer, "detail": string, "field": string]),
            "Register": object(["email": string, "password": string, "name": string], required: ["email", "password"]),
            "Login": object(["email": string, "password": string], required: ["email", "password"]),
            "Join": object(
                ["code": string, "key": string, "name": string, "password": string, "acceptedTerms": string], required: ["code", "name"]),
            "EventGuestList": object([
                "items": [
                    "type": "array",
                    "items": object(["id": string, "name": string, "joinedAt": dateTime, "shotsUsed": integer, "photos": integer]),
                ]
            ]),
            "WallLink": object(["url": string], required: ["url"]),
            "PersonalLink": object(["url": string, "expiresAt": ["type": "string", "format": "date-time"]], required: ["url", "expiresAt"]),
            "User": object(["id": string, "email": string, "name": string, "isAdmin": boolean, "createdAt": dateTime]),
            "Guest": object(["id": string, "eventId": string, "name": string, "joinedAt": dateTime, "shotsUsed": integer, "shotsLeft": integer]),
            "Session": object(["token": string, "user": ref("User")]),
            "Me": object(["kind": ["type": "string", "enum": ["user", "guest"]], "user": ref("User"), "guest": ref("Guest")]),
            "Joined": object(["token": string, "guest": ref("Guest"), "event": ref("Event")]),
            "Reveal": object(["mode": ["type": "string", "enum": RevealMode.allCases.map(\.rawValue)], "at": dateTime], required: ["mode"]),
            "EventSettings": object([
                "name": string, "description": string, "startsAt": dateTime, "durationHours": integer, "endsAt": dateTime,
                "shotsPerGuest": integer, "reveal": ref("Reveal"), "allowLibraryUploads": boolean, "allowGuestDownloads": boolean,
                "password": string, "maxGuests": integer, "requireApproval": boolean,
            ]),
            "Event": object([
                "id": string, "code": string, "joinURL": string, "name": string, "description": string,
                "status": ["type": "string", "enum": ["scheduled", "live", "ended"]], "startsAt": dateTime, "endsAt": dateTime,
                "deletesAt": dateTime, "shotsPerGuest": integer, "reveal": ref("Reveal"), "revealsAt": dateTime,
                "allowLibraryUploads": boolean, "allowGuestDownloads": boolean, "hasPassword": boolean, "maxGuests": integer,
                "requireApproval": boolean,
                "guestCount": integer, "settingsLocked": boolean, "role": ["type": "string", "enum": ["organizer", "guest"]],
                "createdAt": dateTime,
            ]),
            "EventList": object(["items": ["type": "array", "items": ref("Event")]]),
            "Status": object(["version": string, "registrationEnabled": boolean]),
            "Health": object(["status": string, "database": string, "storage": string]),
            "HashCheck": object(["sha256": ["type": "array", "items": string]], required: ["sha256"]),
            "HashCheckResult": object(["existing": ["type": "array", "items": string], "missing": ["type": "array", "items": string]]),
            "Photo": object([
                "id": string, "eventId": string, "shooter": object(["name": string, "number": integer]), "takenAt": dateTime,
                "uploadedAt": dateTime, "width": integer, "height": integer, "byteSize": integer, "format": string,
                "status": ["type": "string", "enum": ["processing", "ready", "failed"]], "source": string, "sha256": string,
                "downloadName": string, "mine": boolean, "approved": boolean,
                "urls": object(["thumbnail": string, "preview": string, "original": string]),
            ]),
            "PhotoPage": object([
                "items": ["type": "array", "items": ref("Photo")], "nextCursor": string, "revealed": boolean, "revealAt": dateTime,
                "developingCount": integer, "changeSeq": integer,
            ]),
            "ChangePage": object([
                "items": ["type": "array", "items": object(["seq": integer, "kind": string, "createdAt": dateTime, "change": ["type": "object"]])],
                "next": integer, "hasMore": boolean,
            ]),
            "DeletionRecords": object([
                "items": [
                    "type": "array",
                    "items": object([
                        "eventId": string, "organizerId": string, "reason": string, "endedAt": dateTime, "deletedAt": dateTime,
                        "photoCount": integer, "byteCount": integer,
                    ]),
                ]
            ]),
            "ProfilePatch": object(["name": string]),
            "Profile": object(["name": string, "avatarURL": string], required: ["name"]),
            "DeleteMe": object(["confirmEmail": string]),
            "NewTicket": object(["email": string, "subject": string, "message": string], required: ["subject", "message"]),
            "Ticket": object(
                [
                    "id": string, "status": ["type": "string", "enum": ["open", "closed"]], "subject": string, "createdAt": dateTime,
                    "email": string, "message": string, "answer": string, "answeredAt": dateTime,
                ], required: ["id", "status", "subject", "createdAt"]),
            "TicketList": object(["items": ["type": "array", "items": ref("Ticket")]], required: ["items"]),
            "TicketPatch": object(["status": ["type": "string", "enum": ["open", "closed"]], "answer": string]),
            "SessionList": object([
                "items": [
                    "type": "array",
                    "items": object(
                        ["id": string, "device": string, "createdAt": dateTime, "lastSeenAt": dateTime, "current": boolean],
                        required: ["id", "createdAt", "lastSeenAt", "current"]),
                ]
            ]),
            "PasswordResetRequest": object(["email": string], required: ["email"]),
            "NewPassword": object(["password": string], required: ["password"]),
            "PasswordChange": object(["currentPassword": string, "newPassword": string], required: ["currentPassword", "newPassword"]),
            "ResetLink": object(["resetURL": string, "expiresAt": dateTime], required: ["resetURL", "expiresAt"]),
            "AdminUser": object(
                [
                    "id": string, "email": string, "name": string, "isAdmin": boolean, "quotaBytes": integer, "quotaIsDefault": boolean,
                    "usedBytes": integer, "createdAt": dateTime,
                ], required: ["id", "email", "name", "isAdmin", "quotaBytes", "quotaIsDefault", "usedBytes", "createdAt"]),
            "AdminUserList": object(["items": ["type": "array", "items": ref("AdminUser")], "nextCursor": string], required: ["items"]),
            "NewUser": object(
                ["email": string, "password": string, "name": string, "isAdmin": boolean, "quotaBytes": integer], required: ["email", "password"]),
            "AdminUserPatch": object(["name": string, "isAdmin": boolean, "quotaBytes": ["type": ["integer", "null"]]]),
            "InstanceSettings": object(["registrationEnabled": boolean, "defaultQuotaBytes": integer]),
            "InstanceStats": object([
                "users": integer, "photos": integer, "renderQueueDepth": integer,
                "events": object(["upcoming": integer, "live": integer, "ended": integer]),
                "uploadsPerDay": ["type": "array", "items": object(["day": ["type": "string", "format": "date"], "uploads": integer])],
                "storage": object([
                    "kind": ["type": "string", "enum": ["folder", "s3"]], "storedBytes": integer, "diskFreeBytes": integer,
                    "diskTotalBytes": integer,
                ]),
            ]),
            "Stats": object([
                "photos": integer, "guests": integer, "bytesStored": integer,
                "photosPerGuest": ["type": "array", "items": object(["name": string, "photos": integer])],
                "uploadsPerHour": ["type": "array", "items": object(["hour": dateTime, "photos": integer])],
            ]),
        ]
    }

    /// The document as JSON bytes.
    static func json() throws -> Data {
        var paths: [String: [String: Any]] = [:]
        for operation in operations {
            var responses: [String: Any] = [:]
            for (status, name) in operation.responses {
                var response: [String: Any] = ["description": name]
                if schemas[name] != nil {
                    let mediaType = name == "Problem" ? "application/problem+json" : "application/json"
                    response["content"] = [mediaType: ["schema": ref(name)]]
                }
                responses[String(status)] = response
            }
            var entry: [String: Any] = ["summary": operation.summary, "responses": responses]
            var parameters: [[String: Any]] = []
            for name in pathParameters(operation.path) {
                parameters.append(["name": name, "in": "path", "required": true, "schema": string])
            }
            for (names, required) in [(operation.query, false), (operation.requiredQuery, true)] {
                for name in names {
                    let type = ["size", "limit", "since", "lastEventId", "until"].contains(name) ? integer : string
                    parameters.append(["name": name, "in": "query", "required": required, "schema": type])
                }
            }
            if !parameters.isEmpty { entry["parameters"] = parameters }
            if operation.request == "ImageBytes" {
                entry["requestBody"] = ["required": true, "content": ["image/*": ["schema": ["type": "string", "format": "binary"]]]]
            } else if let request = operation.request {
                entry["requestBody"] = ["required": true, "content": ["application/json": ["schema": ref(request)]]]
            }
            entry["security"] = operation.auth ? [["bearer": [String]()], ["cookie": [String]()]] : [[String: Any]]()
            paths[operation.path, default: [:]][operation.method] = entry
        }
        let document: [String: Any] = [
            "openapi": "3.1.0",
            "info": [
                "title": "Disposable", "version": disposableVersion,
                "description": "The public API of Disposable, a self-hosted disposable camera for events.",
            ],
            "paths": paths,
            "components": [
                "schemas": schemas,
                "securitySchemes": [
                    "bearer": ["type": "http", "scheme": "bearer"],
                    "cookie": ["type": "apiKey", "in": "cookie", "name": SessionCookie.name],
                ],
            ],
        ]
        return try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// `{event}`, `{id}`… in a path template.
    static func pathParameters(_ path: String) -> [String] {
        path.split(separator: "/").filter { $0.hasPrefix("{") && $0.hasSuffix("}") }.map { String($0.dropFirst().dropLast()) }
    }

    private static var string: [String: Any] { ["type": "string"] }
    private static var integer: [String: Any] { ["type": "integer"] }
    private static var boolean: [String: Any] { ["type": "boolean"] }
    private static var dateTime: [String: Any] { ["type": "string", "format": "date-time"] }
    private static func ref(_ name: String) -> [String: Any] { ["$ref": "#/components/schemas/\(name)"] }
    private static func object(_ properties: [String: Any], required: [String] = []) -> [String: Any] {
        var schema: [String: Any] = ["type": "object", "properties": properties]
        if !required.isEmpty { schema["required"] = required }
        return schema
    }
}
