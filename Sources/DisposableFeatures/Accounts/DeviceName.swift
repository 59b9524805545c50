/// "Chrome on Android", "Safari on iPhone", "curl": what a session is called on the account's sessions page,
/// from the User-Agent it signed in with (nothing more of it is kept).
import DisposableCore
import DisposablePlatform

package enum DeviceName {
    package static func from(userAgent: String?) -> String? {
        guard let agent = userAgent?.prefix(512), !agent.isEmpty else { return nil }
        let systems = [
            ("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "ChromeOS"), ("Windows", "Windows"),
            ("Macintosh", "Mac"), ("Linux", "Linux"),
        ]
        let browsers = [
            ("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"), ("CriOS/", "Chrome"), ("Chrome/", "Chrome"),
            ("Safari/", "Safari"),
        ]
        let system = systems.first { agent.contains($0.0) }?.1
        if let browser = browsers.first(where: { agent.contains($0.0) })?.1 {
            return system.map { "\(browser) on \($0)" } ?? browser
        }
        // A script or an app: its first product name ("curl/8.5" → "curl"), printable characters only.
        let product = agent.prefix { $0 != "/" && $0 != " " }.filter { $0.isLetter || $0.isNumber || "-_.".contains($0) }
        return product.isEmpty ? nil : String(product.prefix(40))
    }
}
