/// A person's picture beside their name in lists (SOC-5): their account's picture, or their initial in a circle.
import DisposableCore
import DisposableFeatures
import DisposablePlatform

package struct Face: Sendable {
    package let url: String?
    package let initial: String

    package init(name: String, url: String?) {
        self.url = url
        initial = name.first.map { String($0).uppercased() } ?? "?"
    }
}
