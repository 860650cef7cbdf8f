import Foundation

/// The synthetic microphone's sound (Docs/DESIGN.md "Audio"): a 1 kHz sine at −20 dBFS and,
/// at every whole second after session start, a click: 10 ms of 4 kHz at −3 dBFS added from
/// the first sample whose session time is at or after that second.
///
/// A pure function of the sample index `n` and the click onsets (sample indices, found on
/// the session clock by the microphone): the sine's phase is `n · 1000 / sampleRate` turns,
/// computed from `n` modulo the rate so it never loses precision; a click's 4 kHz phase
/// starts at 0 on its onset sample.
public struct SyntheticAudioSignal: Sendable, Hashable {
    /// The tone's frequency, Hz.
    package static let toneFrequency = 1000
    /// The tone's amplitude: −20 dBFS.
    package static let toneAmplitude: Float = 0.1
    /// The click's frequency, Hz.
    package static let clickFrequency = 4000
    /// The click's amplitude: −3 dBFS (10^(−3/20)).
    package static let clickAmplitude: Float = 0.707_945_8

    /// Sample frames per second.
    public let sampleRate: Int
    /// Channels (every channel carries the same signal).
    public let channelCount: Int

    /// A signal at `sampleRate` Hz in `channelCount` channels.
    public init(sampleRate: Int, channelCount: Int) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// A click's length in samples: 10 ms, `round(sampleRate / 100)`.
    package var clickLength: Int64 { Int64((sampleRate + 50) / 100) }

    /// Samples `first ..< first + count`, with clicks starting at `clickOnsets` (sample
    /// indices, ascending; only those that overlap the range matter).
    public func samples(from first: Int64, count: Int, clickOnsets: [Int64]) -> AudioPCMBuffer {
        var values = [Float](repeating: 0, count: count * channelCount)
        let rate = Int64(sampleRate)
        let twoPi = 2 * Double.pi
        for j in 0..<count {
            let n = first + Int64(j)
            let tonePhase = Double((n % rate) * Int64(Self.toneFrequency) % rate) / Double(rate)
            var value = Self.toneAmplitude * Float(sin(twoPi * tonePhase))
            for onset in clickOnsets where n >= onset && n < onset + clickLength {
                let clickPhase = Double(((n - onset) * Int64(Self.clickFrequency)) % rate) / Double(rate)
                value += Self.clickAmplitude * Float(sin(twoPi * clickPhase))
            }
            for c in 0..<channelCount { values[j * channelCount + c] = value }
        }
        return AudioPCMBuffer(channelCount: channelCount, samples: values)
    }
}
