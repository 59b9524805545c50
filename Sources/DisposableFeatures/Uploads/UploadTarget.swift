import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// A kind of place a resumable upload goes — an event's photos (`EventPhotoUploads`), one's own library
/// (`LibraryUploads`). `ResumableUploadService` owns the bytes (the file, offsets, locks, expiry, the room all
/// unfinished uploads may take); a target owns its rules: who may send there and how much, and what the finished
/// file becomes, through the same path as a plain upload of that kind.
package protocol UploadTarget: Sendable {
    /// Its name in an upload's row, and in `Upload-Metadata`'s `target` (`library`, `event:<id>`).
    var name: String { get }
    /// The largest file it takes.
    var maxBytes: Int64 { get }
    /// Checks that `identity` may send `length` bytes to `placeID` (the event's id; empty for the library) before
    /// anything is kept, and says what the upload holds meanwhile.
    func admit(length: Int64, placeID: String, metadata: UploadMetadata, for identity: Identity?) async throws -> UploadAdmission
    /// Whether `identity` may go on with an upload of theirs (else it is unknown to them: 404).
    func mayContinue(_ upload: ResumableUpload, as identity: Identity) async -> Bool
    /// The finished file becomes a photo or an asset — or the one its idempotency key made before. `stage`
    /// hands over the whole file, hashed, in the staging folder.
    /// `firstLook`: the phone's, sent beside the bytes (`checkFirstLook`).
    func finish(_ upload: ResumableUpload, as identity: Identity, firstLook: Data?, stage: () async throws -> StagedUpload) async throws
        -> UploadFinish
    /// Checks a first look sent beside an upload's bytes, as far as it can be without them (`FirstLook`).
    func checkFirstLook(_ jpeg: Data) async throws
    /// Where what an upload made lives in the API.
    func location(of madeID: String) -> String
}

/// What an admitted upload records and holds until it ends.
package struct UploadAdmission: Sendable {
    package let uploaderID: String
    /// Whose storage its announced length counts against (the event's organizer, the library's owner).
    package let accountID: String
    /// Whether the sender is that account (a quota refusal then says "your storage").
    package let byOrganizer: Bool
    package let source: PhotoSource
    /// A guest's shot, held from the creation so the shot limit stays exact with uploads under way (UP-2).
    package let heldShot: (guestID: String, shotsPerGuest: Int)?
}

/// What a finished upload became.
package struct UploadFinish: Sendable {
    package let madeID: String
    /// It was there already (the same idempotency key): a held shot goes back.
    package let existed: Bool
}

extension UploadTarget {
    package func checkFirstLook(_ jpeg: Data) async throws {
        throw FirstLookRefusal("only an event's photos go with one")
    }
}
