// SegRecKit's public API speaks in the types of the layers below it (MediaTime and the
// clocks from SegRecTime; PixelBuffer, EncoderSettings and the FFmpeg-backed readers and
// writers from SegRecMedia), so `import SegRecKit` brings them along.
@_exported import SegRecMedia
@_exported import SegRecTime
