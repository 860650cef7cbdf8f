/// When a camera captures each frame, on its device clock (Docs/clocks.md).
///
/// Frame `i` is captured at device tick `D(i) = D0 + round(i · timescale / fps)` (half away
/// from zero), computed from `i` directly so timestamps never accumulate error. `D0` is the
/// session start converted to the device clock.
package struct FrameTiming: Sendable, Hashable {
    /// The device clock whose ticks `D(i)` counts.
    package let deviceClock: MediaClock
    /// The capture frame rate.
    package let frameRate: FrameRate
    /// `D0`: device ticks of frame 0.
    package let firstFrameDeviceTicks: Int64

    /// Frame timing for a session starting at `sessionStart` on `sessionClock`.
    /// - Throws: ``MediaTimeError/overflow(operation:)`` from the conversion.
    package init(deviceClock: MediaClock, frameRate: FrameRate, sessionStart: MediaTime, sessionClock: MediaClock = .host) throws(MediaTimeError) {
        let d0 = try convertTime(sessionStart, from: sessionClock, to: deviceClock)
        self.init(deviceClock: deviceClock, frameRate: frameRate, firstFrameDeviceTicks: d0.value)
    }

    /// Frame timing with an explicit `D0` in device ticks.
    package init(deviceClock: MediaClock, frameRate: FrameRate, firstFrameDeviceTicks: Int64) {
        self.deviceClock = deviceClock
        self.frameRate = frameRate
        self.firstFrameDeviceTicks = firstFrameDeviceTicks
    }

    /// `round(i · timescale · fpsDenominator / fpsNumerator)`: ticks from frame 0 to frame `i`.
    private func ticksSinceFirstFrame(_ index: Int64) throws(MediaTimeError) -> Int64 {
        guard
            let ticks = ExactArithmetic.multiplyDivide(
                Int128(index), Int128(deviceClock.timescale) * Int128(frameRate.denominator), Int128(frameRate.numerator), rounding: .roundHalfAwayFromZero),
            let value = Int64(exactly: ticks)
        else { throw .overflow(operation: "device time of frame \(index)") }
        return value
    }

    /// `D(i)` in device ticks, at the device clock's timescale.
    /// - Throws: ``MediaTimeError/overflow(operation:)`` past Int64 ticks.
    package func deviceTime(ofFrame index: Int64) throws(MediaTimeError) -> MediaTime {
        let (sum, overflow) = firstFrameDeviceTicks.addingReportingOverflow(try ticksSinceFirstFrame(index))
        guard !overflow else { throw .overflow(operation: "device time of frame \(index)") }
        return MediaTime(value: sum, timescale: deviceClock.timescale)
    }

    /// Frame `i`'s timestamp on `sessionClock`: `convertTime(D(i), device → session)`.
    package func sessionTime(ofFrame index: Int64, sessionClock: MediaClock = .host) throws(MediaTimeError) -> MediaTime {
        try convertTime(try deviceTime(ofFrame: index), from: deviceClock, to: sessionClock)
    }

    /// The first frame `k ≥ minimumIndex` whose session timestamp is at or after
    /// `sessionTime` (on `sessionClock`): the first frame captured at or after an event at
    /// that time. The device-clock estimate is settled on session timestamps exactly, since
    /// the two clocks round separately.
    /// - Throws: ``MediaTimeError/overflow(operation:)``.
    package func firstFrame(capturedAtOrAfter sessionTime: MediaTime, sessionClock: MediaClock = .host, minimumIndex: Int64 = 0) throws(MediaTimeError) -> Int64
    {
        let onDevice = try convertTime(sessionTime, from: sessionClock, to: deviceClock)
        var k = try firstFrame(atOrAfter: onDevice, minimumIndex: minimumIndex)
        while k > minimumIndex, try self.sessionTime(ofFrame: k - 1, sessionClock: sessionClock) >= sessionTime { k -= 1 }
        while try self.sessionTime(ofFrame: k, sessionClock: sessionClock) < sessionTime { k += 1 }
        return k
    }

    /// The smallest frame index `k ≥ minimumIndex` with `D(k) ≥ threshold`, where the
    /// threshold is the exact rational `deviceTime + latencyFrames · timescale / fps` device
    /// ticks (`deviceTime` in any timescale of the device clock). This is the frame on which
    /// a `setDynamicAspectRatio` request takes effect (Docs/clocks.md, "A change").
    /// - Throws: ``MediaTimeError/overflow(operation:)``.
    package func firstFrame(atOrAfter deviceTime: MediaTime, plusFramePeriods latencyFrames: Int64 = 0, minimumIndex: Int64 = 0) throws(MediaTimeError) -> Int64
    {
        // Compare D(k) ≥ deviceTime + L·ts·den/num exactly, as
        // D(k)·tsT·num ≥ t·ts·num + L·ts·den·tsT  (tsT = deviceTime.timescale, t = its value),
        // all in Int128: each term < 2^63 · 2^31 · 2^63 is too big, so reduce first.
        let ts = Int128(deviceClock.timescale)
        let num = Int128(frameRate.numerator)
        let den = Int128(frameRate.denominator)
        let tsT = Int128(deviceTime.timescale)
        // threshold − D0 in ticks, as the fraction thresholdNumerator / thresholdDenominator.
        let thresholdDenominator = tsT * num
        guard let timeTerm = ExactArithmetic.multiply(Int128(deviceTime.value) * ts - Int128(firstFrameDeviceTicks) * tsT, num),
            let latencyTerm = ExactArithmetic.multiply(Int128(latencyFrames) * ts * den, tsT),
            let thresholdNumerator = ExactArithmetic.add(timeTerm, latencyTerm)
        else { throw .overflow(operation: "effective frame") }
        func reaches(_ k: Int64) throws(MediaTimeError) -> Bool {
            // (D(k) − D0) ≥ thresholdNumerator / thresholdDenominator
            guard let left = ExactArithmetic.multiply(Int128(try ticksSinceFirstFrame(k)), thresholdDenominator) else {
                throw .overflow(operation: "effective frame")
            }
            return left >= thresholdNumerator
        }
        // Estimate k = ceil((threshold − D0) · fps / ts), then settle exactly.
        guard let periodDenominator = ExactArithmetic.multiply(thresholdDenominator, ts * den) else { throw .overflow(operation: "effective frame") }
        let estimate = ExactArithmetic.multiplyDivide(thresholdNumerator, num, periodDenominator, rounding: .roundTowardPositiveInfinity) ?? 0
        var k = max(Int64(minimumIndex), Int64(clamping: estimate))
        while k > minimumIndex, try reaches(k - 1) { k -= 1 }
        while !(try reaches(k)) { k += 1 }
        return k
    }
}
