/// What the active-format rules need of a camera format: the ratios it crops to, its
/// highest frame rate and the frame size of a ratio. ``CaptureDevice/Format`` conforms;
/// another camera's format type conforms the same way.
package protocol ActiveFormatCandidate: Equatable {
    /// `AVCaptureDevice.Format.supportedDynamicAspectRatios` (empty for a fixed-size format).
    var supportedDynamicAspectRatios: [DynamicAspectRatio] { get }
    /// The highest frame rate the format delivers, frames per second.
    var maxFrameRate: FrameRate { get }
    /// Frame dimensions in pixels for `ratio`, or nil when the format does not list it.
    func frameDimensions(for ratio: DynamicAspectRatio) -> VideoDimensions?
    /// How errors and events name the format (`"1920"`, `"1920x1080"`).
    var formatName: String { get }
}

extension CaptureDevice.Format: ActiveFormatCandidate {
    /// ``dimensions(for:)`` without the error: nil when the format does not list `ratio`.
    package func frameDimensions(for ratio: DynamicAspectRatio) -> VideoDimensions? {
        supportedDynamicAspectRatios.contains(ratio) ? ratio.dimensions(squareSide: squareSide) : nil
    }

    /// The square side, as scenarios spell the format: `"1920"`.
    package var formatName: String { "\(squareSide)" }
}

/// The outcome of choosing the active format for a ratio (segrec's `apply()`, Docs/cameras.md
/// "Active format") or switching it explicitly (`{"activeFormat": 1920}`), as a pure value
/// the session applies:
///
/// - ``formatChanged``: `activeFormat` changes, a reconfiguration: frames stop for the
///   session's `switchGapSeconds`, then the new format delivers with ``aspectRatio``
///   already in effect;
/// - ``startsSegment``: the switch changes the frame dimensions or the frame rate, so the
///   next frame starts a segment (`startReason: formatChanged`);
/// - without a format change, ``aspectRatio`` is set as an ordinary
///   `setDynamicAspectRatio` (with its change latency) if it differs
///   (``aspectRatioChanged``).
///
/// Frame rates: the camera keeps its preferred rate (the scenario's `fps`) where the format
/// allows it, else the format's ``ActiveFormatCandidate/maxFrameRate`` (clamped).
package struct ActiveFormatSelection<Format: ActiveFormatCandidate>: Equatable {
    /// The format active afterwards.
    package let format: Format
    /// Its index in the camera's format list.
    package let formatIndex: Int
    /// The ratio in effect afterwards.
    package let aspectRatio: DynamicAspectRatio
    /// Frame dimensions afterwards (``aspectRatio`` on ``format``).
    package let dimensions: VideoDimensions
    /// Frame rate afterwards: the preferred rate, clamped to ``format``'s maximum.
    package let frameRate: FrameRate
    /// Whether `activeFormat` changes (a reconfiguration gap).
    package let formatChanged: Bool
    /// Whether the ratio differs from the one in effect before.
    package let aspectRatioChanged: Bool
    /// Whether frame dimensions differ from before.
    package let dimensionsChanged: Bool
    /// Whether the frame rate differs from before.
    package let frameRateChanged: Bool

    /// Whether the next frame starts a segment with `startReason: formatChanged`: the
    /// format changes and with it the dimensions or the frame rate.
    package var startsSegment: Bool { formatChanged && (dimensionsChanged || frameRateChanged) }

    /// segrec's `apply(ratio)` (the seeds' switches to the first format listing `ratio` even
    /// when the active one lists it; Docs/cameras.md says why segrec departs): keeps the
    /// active format if it supports `ratio`, else
    /// switches to the *first* format of `formats` that does, then sets `ratio`.
    /// - Parameters:
    ///   - ratio: the ratio asked for.
    ///   - formats: the camera's formats, in its list order.
    ///   - activeFormat: the format active now (one of `formats`).
    ///   - currentAspectRatio: the ratio in effect now.
    ///   - currentFrameRate: the rate frames are captured at now.
    ///   - preferredFrameRate: the rate the app wants (default `currentFrameRate`).
    /// - Throws: ``CameraControlError/noFormatSupports(_:formats:)`` naming the formats when
    ///   none supports `ratio`; ``CameraControlError/formatUnavailable(_:available:)`` when
    ///   `activeFormat` is not in `formats`.
    package static func apply(
        _ ratio: DynamicAspectRatio, formats: [Format], activeFormat: Format, currentAspectRatio: DynamicAspectRatio, currentFrameRate: FrameRate,
        preferredFrameRate: FrameRate? = nil
    ) throws(CameraControlError) -> ActiveFormatSelection {
        let activeIndex = try index(of: activeFormat, in: formats)
        guard let index = activeFormat.frameDimensions(for: ratio) != nil ? activeIndex : formats.firstIndex(where: { $0.frameDimensions(for: ratio) != nil })
        else { throw .noFormatSupports(ratio, formats: formats.map(\.formatName)) }
        return make(
            formats: formats, index: index, activeFormat: activeFormat, ratio: ratio, currentAspectRatio: currentAspectRatio,
            currentFrameRate: currentFrameRate, preferredFrameRate: preferredFrameRate ?? currentFrameRate)
    }

    /// An explicit switch to the format named `name` (`{"activeFormat": 1920}`); the ratio
    /// in effect is kept unless `startRatio` names the one the new format starts with.
    /// - Parameters: as ``apply(_:formats:activeFormat:currentAspectRatio:currentFrameRate:preferredFrameRate:)``;
    ///   `name` is a format's ``ActiveFormatCandidate/formatName``; `startRatio` (default:
    ///   the ratio in effect) the ratio of the new format's first frame.
    /// - Throws: ``CameraControlError/formatUnavailable(_:available:)`` naming the camera's
    ///   formats; ``CameraControlError/formatLacksRatio(format:ratio:supported:)`` when the
    ///   new format does not support that ratio (never a silent fallback).
    package static func switchFormat(
        to name: String, formats: [Format], activeFormat: Format, currentAspectRatio: DynamicAspectRatio, currentFrameRate: FrameRate,
        preferredFrameRate: FrameRate? = nil, startRatio: DynamicAspectRatio? = nil
    ) throws(CameraControlError) -> ActiveFormatSelection {
        _ = try index(of: activeFormat, in: formats)
        guard let index = formats.firstIndex(where: { $0.formatName == name }) else { throw .formatUnavailable(name, available: formats.map(\.formatName)) }
        let ratio = startRatio ?? currentAspectRatio
        guard formats[index].frameDimensions(for: ratio) != nil else {
            throw .formatLacksRatio(format: name, ratio: ratio, supported: formats[index].supportedDynamicAspectRatios)
        }
        return make(
            formats: formats, index: index, activeFormat: activeFormat, ratio: ratio, currentAspectRatio: currentAspectRatio,
            currentFrameRate: currentFrameRate, preferredFrameRate: preferredFrameRate ?? currentFrameRate)
    }

    /// `rate` clamped to `maximum` (exact rational comparison).
    package static func clamped(_ rate: FrameRate, to maximum: FrameRate) -> FrameRate {
        Int128(rate.numerator) * Int128(maximum.denominator) <= Int128(maximum.numerator) * Int128(rate.denominator) ? rate : maximum
    }

    private static func index(of format: Format, in formats: [Format]) throws(CameraControlError) -> Int {
        guard let index = formats.firstIndex(of: format) else { throw .formatUnavailable(format.formatName, available: formats.map(\.formatName)) }
        return index
    }

    private static func make(
        formats: [Format], index: Int, activeFormat: Format, ratio: DynamicAspectRatio, currentAspectRatio: DynamicAspectRatio, currentFrameRate: FrameRate,
        preferredFrameRate: FrameRate
    ) -> ActiveFormatSelection {
        let format = formats[index]
        let dimensions = format.frameDimensions(for: ratio)!
        let before = activeFormat.frameDimensions(for: currentAspectRatio)
        let rate = clamped(preferredFrameRate, to: format.maxFrameRate)
        return ActiveFormatSelection(
            format: format, formatIndex: index, aspectRatio: ratio, dimensions: dimensions, frameRate: rate, formatChanged: format != activeFormat,
            aspectRatioChanged: ratio != currentAspectRatio, dimensionsChanged: dimensions != before, frameRateChanged: !sameRate(rate, currentFrameRate))
    }

    private static func sameRate(_ a: FrameRate, _ b: FrameRate) -> Bool {
        Int128(a.numerator) * Int128(b.denominator) == Int128(b.numerator) * Int128(a.denominator)
    }
}

extension ActiveFormatSelection: Sendable where Format: Sendable {}
