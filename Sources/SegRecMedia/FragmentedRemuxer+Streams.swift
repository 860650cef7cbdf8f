import CFFmpeg

/// The video stream of a ``FragmentedRemuxer`` output: its bitstream filter (parameter sets
/// and, for a turned H.264 file, its display orientation in band) and its parameters.
extension FragmentedRemuxer {
    /// The bitstream filter that puts the parameter sets in band (`h264_mp4toannexb`,
    /// `hevc_mp4toannexb`) and the sample entry that says so (`avc3`, `hev1`); nil for another codec.
    static func inBandParameterSets(of inStream: UnsafeMutablePointer<AVStream>, timeBase inputTimeBase: AVRational, input: String) throws -> (
        filter: BitstreamFilter?, tag: UInt32?
    ) {
        let codecID = inStream.pointee.codecpar.pointee.codec_id
        let filter: BitstreamFilter?
        let tag: UInt32?
        switch codecID {
        case AV_CODEC_ID_H264:
            // A turned file also says so in band, in every access unit (a display
            // orientation SEI from each packet's display matrix): FFmpeg's `hls` and `concat`
            // demuxers keep the first file's matrix, their decoders give each frame its own.
            let chain = displayMatrix(of: inStream) == nil ? "h264_mp4toannexb" : "h264_mp4toannexb,h264_metadata=display_orientation=insert"
            filter = try BitstreamFilter(name: chain, parameters: inStream.pointee.codecpar, timeBase: inputTimeBase, source: input)
            tag = segrec_mktag(0x61, 0x76, 0x63, 0x33)  // avc3
        case AV_CODEC_ID_HEVC:
            filter = try BitstreamFilter(name: "hevc_mp4toannexb", parameters: inStream.pointee.codecpar, timeBase: inputTimeBase, source: input)
            tag = segrec_mktag(0x68, 0x65, 0x76, 0x31)  // hev1
        default:
            filter = nil
            tag = nil
        }
        return (filter, tag)
    }

    /// The stream's display matrix (nine `int32_t`, native order) when it turns the picture
    /// (not the identity); nil otherwise.
    static func displayMatrix(of stream: UnsafeMutablePointer<AVStream>) -> [UInt8]? {
        var size = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return nil }
        let matrix = data.withMemoryRebound(to: Int32.self, capacity: 9) { Array(UnsafeBufferPointer(start: $0, count: 9)) }
        guard matrix != [65536, 0, 0, 0, 65536, 0, 0, 0, 1 << 30] else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: 36))
    }

    /// The output's video stream: the filtered (or the input's) codec parameters, `tag`,
    /// `timeBase` and the input stream's side data.
    static func addVideoStream(
        to format: OutputFormatContext, from inStream: UnsafeMutablePointer<AVStream>, filter: BitstreamFilter?, tag: UInt32?, timeBase: AVRational,
        keepingDisplayMatrix: Bool
    ) throws -> UnsafeMutablePointer<AVStream> {
        guard let outStream = avformat_new_stream(format.pointer, nil) else {
            throw FFmpegError(call: "avformat_new_stream", code: segrec_averror_enomem(), context: format.path)
        }
        try check(
            avcodec_parameters_copy(outStream.pointee.codecpar, filter.map { UnsafePointer($0.outputParameters) } ?? UnsafePointer(inStream.pointee.codecpar)),
            "avcodec_parameters_copy", context: format.path)
        outStream.pointee.codecpar.pointee.codec_tag = tag ?? 0
        outStream.pointee.time_base = timeBase
        try FaststartRemuxer.copySideData(from: inStream, to: outStream, context: format.path, skipping: keepingDisplayMatrix ? nil : AV_PKT_DATA_DISPLAYMATRIX)
        return outStream
    }

    static func codecIsH264(_ stream: UnsafeMutablePointer<AVStream>) -> Bool { stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_H264 }
}
