/// One demuxed packet of a video stream, as stored in the file.
package struct PacketInfo: Sendable, Hashable {
    /// Presentation time, in the stream's time base.
    package let pts: Int64
    /// Decode time, in the stream's time base.
    package let dts: Int64
    /// Presentation duration, in the stream's time base: the next packet's pts minus this
    /// pts; for the last packet, the stream's end (`start_time + duration`, i.e. the edit
    /// list's end for MP4) minus its pts. (FFmpeg 5.1's mov demuxer leaves `AVPacket.duration`
    /// unset when frames are reordered, so it is not used.)
    package let duration: Int64
    /// Whether the packet is a sync sample (`AV_PKT_FLAG_KEY`).
    package let isKeyframe: Bool
}

/// What ``MediaFileReader`` reports about a file's first video stream, all read through
/// libavformat (`AVStream`, `AVCodecParameters`, demuxed `AVPacket`s).
package struct StreamInfo: Sendable, Hashable {
    /// Codec short name (`avcodec_get_name`), e.g. `"h264"`, `"hevc"`.
    package let codecName: String
    /// The sample entry FourCC (`codec_tag` via `av_fourcc_make_string`), e.g. `"avc1"`, `"hvc1"`.
    package let codecTag: String
    /// Width in pixels.
    package let width: Int
    /// Height in pixels.
    package let height: Int
    /// The stream time base `num/den` seconds per tick (`AVStream.time_base`).
    package let timeBase: (num: Int32, den: Int32)
    /// Packets counted by demuxing the whole stream (each one frame).
    package let frameCount: Int
    /// `AVStream.duration` in time-base ticks, nil when unknown.
    package let duration: Int64?
    /// Counter-clockwise display rotation in degrees, as ffprobe prints it
    /// (`av_display_rotation_get` of the `AV_PKT_DATA_DISPLAYMATRIX` side data, rounded);
    /// nil when the file has no display matrix.
    package let rotationDegrees: Int?
    /// Every packet, in presentation (pts) order.
    package let packets: [PacketInfo]

    /// The presentation end of the last frame: its pts + duration (time-base ticks), nil
    /// when there are no packets.
    package var presentationEnd: Int64? { packets.last.map { $0.pts + $0.duration } }

    /// Field-by-field equality (the ``timeBase`` tuple compared by value).
    package static func == (lhs: StreamInfo, rhs: StreamInfo) -> Bool {
        lhs.codecName == rhs.codecName && lhs.codecTag == rhs.codecTag && lhs.width == rhs.width && lhs.height == rhs.height && lhs.timeBase == rhs.timeBase
            && lhs.frameCount == rhs.frameCount && lhs.duration == rhs.duration && lhs.rotationDegrees == rhs.rotationDegrees && lhs.packets == rhs.packets
    }

    /// Hashes codec, size and packets (consistent with ``==``).
    package func hash(into hasher: inout Hasher) {
        hasher.combine(codecName)
        hasher.combine(width)
        hasher.combine(height)
        hasher.combine(packets)
    }
}

/// One decoded picture handed to the ``MediaFileReader/decodeFrames(_:)`` callback. The
/// luma pointer is valid only during the callback (it points into the decoder's `AVFrame`).
package struct DecodedFrame {
    /// Presentation time in the stream's time base (`AVFrame.pts`, else
    /// `best_effort_timestamp`); nil when the frame has neither.
    package let pts: Int64?
    /// Whether the decoder marked it a keyframe (`AVFrame.key_frame`).
    package let isKeyframe: Bool
    /// Width in pixels.
    package let width: Int
    /// Height in pixels.
    package let height: Int
    /// The decoded pixel format name (`av_get_pix_fmt_name`), e.g. `"yuv420p"`.
    package let pixelFormat: String
    /// The Y plane (`data[0]`): `height` rows of ``lumaBytesPerRow`` bytes.
    package let luma: UnsafeBufferPointer<UInt8>
    /// Bytes per luma row (`linesize[0]`, ≥ width).
    package let lumaBytesPerRow: Int

    /// The frame index stamped in the luma plane (``FrameIndexStamp``), nil if too small.
    package var stampedIndex: UInt32? { FrameIndexStamp.read(luma: luma, width: width, height: height, bytesPerRow: lumaBytesPerRow) }
}
