/// A person's picture beside their name in lists (SOC-5): their account's picture, or their initial in a circle.
struct Face: Sendable {
    let url: String?
    let initial: String

    init(name: String, url: String?) {
        self.url = url
        initial = name.first.map { String($0).uppercased() } ?? "?"
    }
}
