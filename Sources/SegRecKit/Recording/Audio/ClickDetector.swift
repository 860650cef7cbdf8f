import Foundation

/// Finds the synthetic signal's clicks (``SyntheticAudioSignal``) in decoded sound, for
/// `segrec verify`: a sliding DFT at the click's 4 kHz over about 1 ms (`round(rate/1000)`
/// samples: one period of the 1 kHz tone, which then leaks nothing into it at rates that are
/// multiples of 1000). An onset is where the magnitude first rises through half the click's
/// plateau, less the detector's own delay (measured once on a clean click), so it names the
/// first sample of the burst within a sample or two after AAC coding.
package struct ClickDetector: Sendable {
    /// Sample frames per second.
    package let sampleRate: Int
    private let window: Int
    private let period: Int
    private let phases: [(re: Double, im: Double)]
    private let threshold: Double
    private var delay = 0

    /// A detector for sound at `sampleRate` Hz (> 0).
    package init(sampleRate: Int) {
        self.sampleRate = sampleRate
        window = max(1, (sampleRate + 500) / 1000)
        var (a, b) = (sampleRate, SyntheticAudioSignal.clickFrequency)
        while b != 0 { (a, b) = (b, a % b) }
        period = sampleRate / a
        phases = (0..<period).map { k in
            let angle = -2 * Double.pi * Double((k * SyntheticAudioSignal.clickFrequency) % sampleRate) / Double(sampleRate)
            return (cos(angle), sin(angle))
        }
        threshold = 0.5 * Double(SyntheticAudioSignal.clickAmplitude) * Double(window) / 2
        let signal = SyntheticAudioSignal(sampleRate: sampleRate, channelCount: 1)
        let start = Int64(sampleRate / 10)
        let clean = signal.samples(from: 0, count: sampleRate / 2, clickOnsets: [start])
        // The tone is in the clean signal too: the detector's delay is measured as it will run.
        delay = (rawCrossings(clean.samples).first ?? Int(start)) - Int(start)
    }

    /// The first sample index of every click in `samples` (mono), in order.
    package func onsets(in samples: [Float]) -> [Int] { rawCrossings(samples).map { $0 - delay } }

    /// Where the magnitude first rises through the threshold, once per click (rises less
    /// than half a second after the previous one belong to it).
    private func rawCrossings(_ samples: [Float]) -> [Int] {
        var re = 0.0
        var im = 0.0
        var above = false
        var last = Int.min / 2
        var found: [Int] = []
        for n in samples.indices {
            let p = phases[n % period]
            let x = Double(samples[n])
            re += x * p.re
            im += x * p.im
            if n >= window {
                let q = phases[(n - window) % period]
                let y = Double(samples[n - window])
                re -= y * q.re
                im -= y * q.im
            }
            let isAbove = re * re + im * im >= threshold * threshold
            if isAbove, !above, n - last > sampleRate / 2 {
                found.append(n)
                last = n
            }
            above = isAbove
        }
        return found
    }
}
