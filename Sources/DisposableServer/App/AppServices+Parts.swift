import DisposableCore
import DisposableFeatures
import DisposablePlatform
import DisposableWeb
import Foundation

/// Each service and shared part by name, as controllers, pages, background services and the CLI are handed them.
extension AppServices {
    public var accounts: AccountService { people.accounts }
    package var appPasswords: AppPasswordService { people.appPasswords }
    package var profiles: ProfileService { people.profiles }
    package var passwordResets: PasswordResetService { people.passwordResets }
    package var signUps: SignUpService { people.signUps }
    package var openID: OpenIDService? { people.openID }

    package var events: EventService { gatherings.events }
    package var joining: JoinService { gatherings.joining }
    package var photos: PhotoService { gatherings.photos }
    package var gallery: GalleryService { gatherings.gallery }
    package var guestbook: GuestbookService { gatherings.guestbook }
    package var notifications: NotificationService { gatherings.notifications }
    package var recaps: RecapService { gatherings.recaps }
    package var renderer: PhotoRenderer { gatherings.renderer }
    package var deletion: EventDeletion { gatherings.deletion }

    package var library: LibraryService { personal.library }
    package var dav: DAVService { personal.dav }
    package var libraryRenderer: LibraryRenderer { personal.libraryRenderer }
    package var moments: MomentService { personal.moments }
    package var scrobblers: ScrobblerService { personal.scrobblers }
    package var capsules: CapsuleService { personal.capsules }
    package var push: PushService { personal.push }
    package var friends: FriendService { personal.friends }
    package var board: StoryBoardService { personal.board }

    package var myData: MyDataService { instance.myData }
    package var statistics: InstanceStatistics { instance.statistics }
    package var admin: AdminService { instance.admin }
    package var support: SupportService { instance.support }
    package var clientErrors: ClientErrorService { instance.clientErrors }
    package var resumableUploads: ResumableUploadService { instance.resumableUploads }
    package var retention: RetentionSweeper { instance.retention }
    package var untrustedProxy: UntrustedProxyNotice { instance.untrustedProxy }
    package var requestLog: RequestLog { instance.requestLog }
    package var liveStreams: LiveStreamSlots { instance.liveStreams }
    package var started: StartupGate { instance.started }

    package var rows: Database { platform.rows }
    package var transactions: Transactions { platform.transactions }
    package var blobs: CachingBlobStore { platform.blobs }
    package var staging: UploadStaging { platform.staging }
    package var pendingWrites: PendingWrites { platform.pendingWrites }
    package var jobs: JobQueue { platform.jobs }
    package var changes: ChangeHub { platform.changes }
    package var recentReads: RecentReads { platform.recentReads }
    package var signer: MediaSigner { platform.signer }
    package var newWork: WorkSignal { platform.newWork }
}
