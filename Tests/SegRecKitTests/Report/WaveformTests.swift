import Testing

@testable import SegRecKit

/// The report's waveform reduction: every sample in exactly one bucket, peaks kept.
@Suite("Waveform") struct WaveformTests {
    @Test func bucketsCoverEverySampleOnce() {
        // 10 samples in 4 buckets: 0..<2, 2..<5, 5..<7, 7..<10.
        let samples: [Float] = [0.1, -0.2, 0.3, 0.9, -0.4, 0.0, -0.8, 0.2, 0.25, -0.1]
        let w = Waveform(samples: samples, buckets: 4)
        #expect(w.minimum == [-0.2, -0.4, -0.8, -0.1])
        #expect(w.maximum == [0.1, 0.9, 0.0, 0.25])
        #expect(w.sampleCount == 10)
        #expect(w.loudestBucket == 1)
    }

    @Test func aClickLandsInTheBucketOfItsTime() {
        // 2 s at 48 kHz, quiet, a click at 1.5 s: in 200 buckets it is bucket 150.
        var samples = [Float](repeating: 0.05, count: 96000)
        for i in 72000..<72480 { samples[i] = i % 2 == 0 ? 0.7 : -0.7 }
        let w = Waveform(samples: samples, buckets: 200)
        #expect(w.loudestBucket == 150)
        #expect(w.maximum[150] == 0.7 && w.minimum[150] == -0.7)
        #expect(w.maximum[149] == 0.05 && w.maximum[151] == 0.05)
    }

    @Test func moreBucketsThanSamplesAndNoSamples() {
        // Buckets 0..<0, 0..<1, 1..<1, 1..<2: a one-sample bucket is that sample, low and high.
        let w = Waveform(samples: [0.5, -0.5], buckets: 4)
        #expect(w.maximum == [0, 0.5, 0, -0.5])
        #expect(w.minimum == [0, 0.5, 0, -0.5])
        let empty = Waveform(samples: [], buckets: 0)
        #expect(empty.minimum == [0] && empty.loudestBucket == nil)
    }
}
