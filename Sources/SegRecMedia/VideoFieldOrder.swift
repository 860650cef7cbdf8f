import CFFmpeg

/// How the lines of a picture are ordered in time: progressive, or interlaced with the top
/// or bottom field first. Mirrors FFmpeg's `AVFieldOrder` (and CoreVideo's
/// `kCVImageBufferFieldDetailKey`).
package enum VideoFieldOrder: String, Sendable, Codable {
    /// Unknown or not stated (`AV_FIELD_UNKNOWN`).
    case unknown
    /// Progressive (`AV_FIELD_PROGRESSIVE`).
    case progressive
    /// Top field coded and displayed first (`AV_FIELD_TT`).
    case topFieldFirst
    /// Bottom field coded and displayed first (`AV_FIELD_BB`).
    case bottomFieldFirst
    /// Top coded first, bottom displayed first (`AV_FIELD_TB`).
    case topCodedBottomDisplayedFirst
    /// Bottom coded first, top displayed first (`AV_FIELD_BT`).
    case bottomCodedTopDisplayedFirst

    init(_ order: AVFieldOrder) {
        switch order {
        case AV_FIELD_PROGRESSIVE: self = .progressive
        case AV_FIELD_TT: self = .topFieldFirst
        case AV_FIELD_BB: self = .bottomFieldFirst
        case AV_FIELD_TB: self = .topCodedBottomDisplayedFirst
        case AV_FIELD_BT: self = .bottomCodedTopDisplayedFirst
        default: self = .unknown
        }
    }

    /// Whether the pictures are interlaced.
    package var isInterlaced: Bool { self != .unknown && self != .progressive }

    /// Whether the top field is displayed first (TT, BT).
    package var isTopFieldDisplayedFirst: Bool { self == .topFieldFirst || self == .bottomCodedTopDisplayedFirst }

    /// `"top field first"`, `"bottom field first"`, ….
    package var description: String {
        switch self {
        case .unknown: "field order unknown"
        case .progressive: "progressive"
        case .topFieldFirst: "top field first"
        case .bottomFieldFirst: "bottom field first"
        case .topCodedBottomDisplayedFirst: "top coded first, bottom displayed first"
        case .bottomCodedTopDisplayedFirst: "bottom coded first, top displayed first"
        }
    }
}
