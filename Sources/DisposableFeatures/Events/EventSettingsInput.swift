import DisposableAPI
import DisposableCore
import DisposablePlatform

extension EventSettingsInput: JSONBody {
    package static let fields = Set(CodingKeys.allCases.map(\.rawValue))
}
