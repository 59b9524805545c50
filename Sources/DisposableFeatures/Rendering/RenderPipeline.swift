import DisposableCore
import DisposablePlatform
import Foundation

/// The one way a stored original becomes what people see, for every kind of subject (an event photo, a library
/// asset): decoded once into its renders, the files written as a pending write, the renders recorded on the
/// subject's row with the job, the change announced — then the steps features register to run after a render
/// (`AfterRender`). What differs by subject is its `RenderTarget`.
package struct RenderPipeline: Sendable {
    package let blobs: any BlobStore
    package let derivatives: Derivatives
    package let jobs: JobQueue
    /// Run after each recorded render, in order; they never undo or delay what the render made visible.
    package var after: [any AfterRender] = []

    package init(blobs: any BlobStore, derivatives: Derivatives, jobs: JobQueue, after: [any AfterRender] = []) {
        self.blobs = blobs
        self.derivatives = derivatives
        self.jobs = jobs
        self.after = after
    }

    package func run<Target: RenderTarget>(_ target: Target, subjectID: String, jobID: String) async throws {
        guard let work = try await target.work(for: subjectID) else { return try await jobs.complete(jobID) }
        let made: Target.Made
        do {
            let started = ContinuousClock.now
            made = try await target.render(work, with: derivatives)
            if target.measured {
                Metric.renderSeconds(ContinuousClock.now - started)
                Metric.ingest(.render, since: started)
            }
        } catch let error as UndecodableImage {
            return try await target.undecodable(work, jobID: jobID, error: error)
        }
        // Recorded before writing: should the subject be deleted meanwhile and the process die, the files go too.
        let writing = ContinuousClock.now
        try await target.beginWrite(work)
        for file in target.files(of: work, made) {
            try await blobs.put(data: file.data, key: file.key)
        }
        if target.measured { Metric.ingest(.writeDerivatives, since: writing) }
        let marking = ContinuousClock.now
        let recorded = try await target.record(work, made, jobID: jobID)
        if recorded == nil { try await target.settleUnrecorded(work) }
        await target.announce(work, recorded)
        if target.measured { Metric.ingest(.markReady, since: marking) }
        guard recorded != nil else { return }
        let subject = target.subject(of: work)
        for step in after { await step.rendered(subject) }
    }
}

/// What one kind of subject tells the pipeline: what a job asks for, how its original is rendered, which files that
/// makes, and how its row records them.
package protocol RenderTarget: Sendable {
    /// What a job has to do, read when it starts.
    associatedtype Work: Sendable
    /// What the render made, kept until it is recorded.
    associatedtype Made: Sendable
    /// What the row answers when it took the renders.
    associatedtype Recorded: Sendable

    /// Whether the party's render figures (`/metrics`) count these renders.
    var measured: Bool { get }
    /// Nil when nothing is left to do (deleted, or done already): the job completes.
    func work(for subjectID: String) async throws -> Work?
    /// One decode of the original into what it shows; a video's playable copy stored on the way. A file that cannot be
    /// read throws `UndecodableImage`.
    func render(_ work: Work, with derivatives: Derivatives) async throws -> Made
    /// The original cannot be read: the subject is marked so.
    func undecodable(_ work: Work, jobID: String, error: UndecodableImage) async throws
    /// Records that the renders' files are about to be written.
    func beginWrite(_ work: Work) async throws
    func files(of work: Work, _ made: Made) -> [(key: String, data: Data)]
    /// The renders on the subject's row, in the job's transaction; nil when the row took none of them.
    func record(_ work: Work, _ made: Made, jobID: String) async throws -> Recorded?
    /// The files were written but the row took none: the subject was deleted meanwhile (its files must go), or another
    /// worker made the same renders first (nothing may be removed).
    func settleUnrecorded(_ work: Work) async throws
    /// Tells whoever watches (live galleries, the library's feed).
    func announce(_ work: Work, _ recorded: Recorded?) async
    /// The subject as the steps after a render see it.
    func subject(of work: Work) -> RenderedSubject
}

/// A subject whose renders were just recorded, as a step after the render sees it.
package struct RenderedSubject: Sendable {
    package enum Kind: Sendable { case eventPhoto, libraryAsset }
    package let kind: Kind
    package let id: String
    /// The event a photo belongs to, or the account an asset does.
    package let scope: String
    /// The preview just written: what a step reads rather than decoding the original again.
    package let previewKey: String

    package init(kind: Kind, id: String, scope: String, previewKey: String) {
        self.kind = kind
        self.id = id
        self.scope = scope
        self.previewKey = previewKey
    }
}

/// A step a feature registers to run after each render (an index of what the photos show, say). It runs in the render's
/// worker once the renders are recorded and announced: anything slow is a job of its own at a low priority.
package protocol AfterRender: Sendable {
    func rendered(_ subject: RenderedSubject) async
}
