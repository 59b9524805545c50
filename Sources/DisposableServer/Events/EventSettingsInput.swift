import DisposableAPI

extension EventSettingsInput: JSONBody {
    static let fields = Set(CodingKeys.allCases.map(\.rawValue))
}
